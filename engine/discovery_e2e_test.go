package engine

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// discoSite is a loopback site for the discovery tests: every request logged,
// robots.txt, HTML pages and raw documents (with their content type) by path; a raw
// document is asked for with the number of times it was served before.
type discoSite struct {
	host   string
	mu     sync.Mutex
	log    []string
	robots string
	pages  map[string]string
	raw    map[string]func(n int) (ctype string, body []byte)
	// hold, when set, is asked before each response (outside the lock) with the
	// request's path and the number of requests served before it: a test blocks
	// responses in it until the crawl has reached the state it looks at.
	hold func(path string, served int)
	// status answers a path with that HTTP status and no body.
	status map[string]int
}

func newDiscoSite(t *testing.T) *discoSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &discoSite{host: ln.Addr().String(), pages: map[string]string{}, raw: map[string]func(int) (string, []byte){}}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *discoSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := 0
	for _, p := range s.log {
		if p == r.URL.Path {
			n++
		}
	}
	s.log = append(s.log, r.URL.Path)
	robots, page, raw, hold, served := s.robots, s.pages[r.URL.Path], s.raw[r.URL.Path], s.hold, len(s.log)-1
	code := s.status[r.URL.Path]
	s.mu.Unlock()
	if hold != nil {
		hold(r.URL.Path, served)
	}
	switch {
	case code != 0:
		w.WriteHeader(code)
	case r.URL.Path == "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nAllow: /\n"+robots)
	case raw != nil:
		ctype, body := raw(n)
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	case page != "":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	default:
		http.NotFound(w, r)
	}
}

func (s *discoSite) requested(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return countOf(s.log, path)
}

// countOf counts the entries of log equal to path.
func countOf(log []string, path string) int {
	n := 0
	for _, p := range log {
		if p == path {
			n++
		}
	}
	return n
}

func (s *discoSite) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// The crawl reads the sitemaps robots.txt names (an index, a gzip news
// sitemap), /sitemap.xml when it names none, and the feed an entry page links to; it
// fetches the articles they announce, which no page links to, and refuses URLs of
// other hosts. Before, none of these documents was ever requested.
func TestDiscoveryFindsArticlesOnlyFeedsAndSitemapsAnnounce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		probe    string // discovery.probe
		robots   string // Sitemap lines ("{host}" replaced)
		docs     map[string]func(host string) (string, []byte)
		entry    string
		want     []string // paths fetched
		never    []string // paths never fetched
		sitemaps int      // sitemaps the snapshot lists for the site
		feeds    int
	}{
		{
			name:   "index and gzip news sitemap named in robots.txt",
			robots: "Sitemap: http://{host}/index.xml\n",
			docs: map[string]func(string) (string, []byte){
				"/index.xml": func(h string) (string, []byte) {
					return "application/xml", []byte(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://` + h + `/index.xml</loc></sitemap><sitemap><loc>http://` + h + `/news.xml.gz</loc></sitemap></sitemapindex>`)
				},
				"/news.xml.gz": func(h string) (string, []byte) {
					return "application/x-gzip", gzipBytes(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>http://` + h + `/a1</loc><news:news><news:publication_date>2026-11-20T06:00:00Z</news:publication_date><news:keywords>flood</news:keywords></news:news></url><url><loc>http://evil.test/x</loc></url></urlset>`)
				},
			},
			entry: `<html><body><p>front</p></body></html>`,
			want:  []string{"/index.xml", "/news.xml.gz", "/a1"}, never: []string{"/sitemap.xml"}, sitemaps: 2,
		},
		{
			name:   "no Sitemap line: /sitemap.xml (probe all), and the feed the entry page links to",
			probe:  config.ProbeAll,
			robots: "",
			docs: map[string]func(string) (string, []byte){
				"/sitemap.xml": func(h string) (string, []byte) {
					return "text/xml", []byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://` + h + `/b1</loc><lastmod>2026-11-20</lastmod></url></urlset>`)
				},
				"/rss": func(h string) (string, []byte) {
					return "application/rss+xml", []byte(`<rss version="2.0"><channel><title>t</title><item><title>x</title><link>http://` + h + `/b2</link><pubDate>Fri, 20 Nov 2026 08:00:00 GMT</pubDate></item></channel></rss>`)
				},
			},
			entry: `<html><head><link rel="alternate" type="application/rss+xml" href="/rss"></head><body>front</body></html>`,
			want:  []string{"/sitemap.xml", "/rss", "/b1", "/b2"}, sitemaps: 1, feeds: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newDiscoSite(t)
			host := s.host
			s.robots = strings.ReplaceAll(tc.robots, "{host}", host)
			s.pages["/"] = tc.entry
			for _, p := range []string{"/a1", "/b1", "/b2"} {
				s.pages[p] = "<html><body><p>article " + p + "</p></body></html>"
			}
			for p, f := range tc.docs {
				s.raw[p] = func(int) (string, []byte) { return f(host) }
			}
			o := robotsOptions(t, "http://"+host+"/")
			if tc.probe != "" {
				o.Discovery.Probe = tc.probe
			}
			e := startEngine(t, o)
			waitDone(t, e, 20*time.Second)
			snap := e.Snapshot()
			e.Close()
			for _, p := range tc.want {
				if s.requested(p) == 0 {
					t.Errorf("%s never fetched (log %v)", p, s.paths())
				}
			}
			for _, p := range append(tc.never, "/x") {
				if n := s.requested(p); n != 0 {
					t.Errorf("%s fetched %d times", p, n)
				}
			}
			if n := s.requested("/index.xml"); n > 1 {
				t.Errorf("the index that lists itself was fetched %d times", n)
			}
			if len(snap.Discovery) != 1 || len(snap.Discovery[0].Sitemaps) != tc.sitemaps || len(snap.Discovery[0].Feeds) != tc.feeds {
				t.Errorf("snapshot discovery %+v, want %d sitemaps and %d feeds", snap.Discovery, tc.sitemaps, tc.feeds)
			}
		})
	}
}

func gzipBytes(s string) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte(s))
	z.Close()
	return buf.Bytes()
}

// Bad input: hostile feeds and sitemaps cost bounded work and a counted
// warning, and one WARN line names each of them; the crawl goes on and ends (no
// crash, no stalled lane). The list: billion laughs, an external entity, a gzip
// bomb, a sitemap past the document cap, a text sitemap of 100,000 lines (twice the
// protocol's 50,000 URLs), binary served as text/plain, a feed whose declared
// encoding is a lie, an index that lists itself, and indexes nested ten deep. The
// document cap is 4 MiB here rather than the 50 MiB default (the protocol's 50 MB):
// a cap is a cap at any size, and documents past 50 MiB cost seconds of memory
// and CPU to build, serve and read.
func TestHostileDiscoveryDocumentsDoNotStallTheCrawl(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	laughs := `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">]>`
	const docCap = 4 << 20 // discovery.max_document_bytes, over the pages' cap (fetch.max_body_bytes, 1 MiB)
	var huge bytes.Buffer
	huge.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for huge.Len() < docCap+1<<20 {
		// Padded: under the protocol's 50,000 URLs when the cap cuts it.
		huge.WriteString(`<url><loc>http://` + h + `/same</loc></url>` + strings.Repeat(" ", 2000))
	}
	huge.WriteString(`</urlset>`)
	index := func(next string) func(int) (string, []byte) {
		return static("application/xml", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://`+h+next+`</loc></sitemap></sitemapindex>`)
	}
	big := bytes.Repeat([]byte(`<url><loc>http://`+h+`/big</loc></url>`+"\n"), (docCap+2<<20)/(len(h)+30))
	// 100,000 lines, served as text/plain: read as a text sitemap under the
	// document cap, up to the protocol's 50,000 URLs; one URL, so that the crawl
	// does not fetch 50,000 pages.
	lines := bytes.Repeat([]byte("http://"+h+"/line\n"), 100_000)
	if len(lines) >= docCap {
		t.Fatalf("the text sitemap is %d bytes: it must be read whole under the %d-byte cap to reach the URL limit", len(lines), docCap)
	}
	lie, err := simplifiedchinese.GBK.NewEncoder().String(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>新闻</title>` +
		`<item><title>台风</title><link>http://` + h + `/lie/1</link></item></channel></rss>`)
	if err != nil {
		t.Fatal(err)
	}
	bin := make([]byte, 1<<20)
	for i := range bin {
		bin[i] = byte(i*7919 + i>>8)
	}
	hostile := []string{"/bomb.xml", "/xxe.xml", "/zip.xml.gz", "/big.xml", "/lines.txt", "/bin.txt", "/lie.xml", "/html.xml"}
	for _, p := range hostile {
		s.robots += "Sitemap: http://" + h + p + "\n"
	}
	s.robots += "Sitemap: http://" + h + "/self.xml\nSitemap: http://" + h + "/d1.xml\n"
	s.raw["/bomb.xml"] = static("application/xml", laughs+`<urlset><url><loc>http://`+h+`/&e;</loc></url></urlset>`)
	s.raw["/xxe.xml"] = static("application/xml", `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><urlset><url><loc>http://`+h+`/&x;</loc></url></urlset>`)
	s.raw["/big.xml"] = func(int) (string, []byte) {
		return "application/xml", append([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`), big...)
	}
	s.raw["/lines.txt"] = func(int) (string, []byte) { return "text/plain", lines }
	s.raw["/bin.txt"] = func(int) (string, []byte) { return "text/plain", bin }
	s.raw["/lie.xml"] = static("application/rss+xml", lie)
	s.raw["/self.xml"] = index("/self.xml")
	zipped := gzipBytes(huge.String())
	huge.Reset()
	s.raw["/zip.xml.gz"] = func(int) (string, []byte) { return "application/gzip", zipped }
	s.raw["/html.xml"] = static("application/rss+xml", `<!DOCTYPE html><html><body><a href="/from-html">x</a></body></html>`)
	for i := 1; i <= 10; i++ {
		s.raw[fmt.Sprintf("/d%d.xml", i)] = index(fmt.Sprintf("/d%d.xml", i+1))
	}
	s.pages["/"] = `<a href="/ok">ok</a>`
	s.pages["/ok"] = `<p>ok</p>`
	o := robotsOptions(t, "http://"+h+"/")
	o.Fetch.MaxBodyBytes = 1 << 20 // pages' cap; feeds and sitemaps keep discovery.max_document_bytes
	// The documents take seconds to serve on a loaded box, and the adaptive gap
	// (five times a response's time, up to 30 s) after each would be most of the
	// test's time; what it asserts is the documents' bounds, not the gap.
	o.Politeness = config.FixedPoliteness()
	// The gzip sitemap inflates to 5 MiB, big.xml is 6 MiB: both past the
	// document cap, one cut and one refused.
	o.Discovery.MaxDocumentBytes = docCap
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	snap := e.Snapshot()
	e.Close()
	if s.requested("/ok") != 1 {
		t.Errorf("/ok fetched %d times: the crawl did not go on", s.requested("/ok"))
	}
	deepest := 0
	for i := 1; i <= 10; i++ {
		if s.requested(fmt.Sprintf("/d%d.xml", i)) > 0 {
			deepest = i
		}
	}
	if deepest != 1+discover.MaxIndexDepth {
		t.Errorf("10 nested indexes: followed to /d%d.xml, want /d%d.xml (the root and %d levels)", deepest, 1+discover.MaxIndexDepth, discover.MaxIndexDepth)
	}
	// Warnings, not errors: the header, status and the summary show them apart.
	warns := snap.Totals.Warnings
	for _, k := range []string{"discovery_sitemap_depth", "discovery_unreadable", "discovery_truncated"} {
		if warns[k] == 0 {
			t.Errorf("no %s warning counted (warnings %v)", k, warns)
		}
	}
	for k := range snap.Totals.Errors {
		if strings.HasPrefix(k, "discovery_") {
			t.Errorf("%s counted among the errors (%v): a document's warning is no failure", k, snap.Totals.Errors)
		}
	}
	if n := s.requested("/line"); n != 1 {
		t.Errorf("the 100,000-line text sitemap's URL fetched %d times, want once", n)
	}
	if warns["discovery_too_many_urls"] == 0 {
		t.Errorf("no discovery_too_many_urls warning counted (warnings %v)", warns)
	}
	if n := s.requested("/same"); n > 1 {
		t.Errorf("/same fetched %d times", n)
	}
	if s.requested("/big") != 0 || snap.Totals.Errors["body_too_large"] == 0 {
		t.Errorf("the 6 MiB sitemap: /big fetched %d times, body_too_large %d; want it refused and counted", s.requested("/big"), snap.Totals.Errors["body_too_large"])
	}
	if n := s.requested("/self.xml"); n != 1 {
		t.Errorf("the index that lists itself was fetched %d times, want once", n)
	}
	if n := s.requested("/lie/1"); n != 1 {
		t.Errorf("the lying feed's item fetched %d times, want once", n)
	}
	// Each hostile document is named, once, in a WARN line: the operator can tell
	// which document of which site it was.
	deep := fmt.Sprintf("/d%d.xml", 1+discover.MaxIndexDepth)
	for _, p := range append(hostile, deep) {
		u := "http://" + h + p
		var lines []string
		for _, ev := range e.EventsSince(0, 1<<20) {
			if ev.Level >= view.LevelWarn && (strings.Contains(ev.Msg, "feed/sitemap "+u+" ") || strings.Contains(ev.Msg, "feed/sitemap "+u+":")) {
				lines = append(lines, ev.Msg)
			}
		}
		if len(lines) != 1 {
			t.Errorf("%d WARN lines name %s, want 1: %q", len(lines), p, lines)
		}
	}
}

// A news site's sitemap over fetch.max_body_bytes but within the protocol's 50 MB
// (discovery.max_document_bytes) is read: its first and last URLs are fetched,
// not refused whole as body_too_large. The page cap is 1 MiB here, the sitemap
// 1.2 MB (12 MB over the default 10 MiB shows the same, at ten times the cost).
func TestSitemapOverThePageCapIsRead(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	var doc bytes.Buffer
	doc.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://` + h + `/first</loc></url>`)
	pad := strings.Repeat("\n", 12_000)
	for doc.Len() < 12<<20/10 {
		doc.WriteString(`<url><loc>http://` + h + `/same</loc></url>` + pad)
	}
	doc.WriteString(`<url><loc>http://` + h + `/last</loc></url></urlset>`)
	s.robots = "Sitemap: http://" + h + "/news-sitemap.xml\n"
	s.raw["/news-sitemap.xml"] = static("application/xml", doc.String())
	s.pages["/"] = `<p>home</p>`
	for _, p := range []string{"/first", "/same", "/last"} {
		s.pages[p] = `<p>article</p>`
	}
	o := robotsOptions(t, "http://"+h+"/")
	o.Fetch.MaxBodyBytes = 1 << 20
	if o.Fetch.MaxBodyBytes >= doc.Len() {
		t.Fatalf("the page cap is %d bytes: the sitemap (%d) must be over it", o.Fetch.MaxBodyBytes, doc.Len())
	}
	// A big response's time, five times over, would be the gap before its
	// URLs: the test asserts they are read, not the gap.
	o.Politeness = config.FixedPoliteness()
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	snap := e.Snapshot()
	e.Close()
	for _, p := range []string{"/first", "/same", "/last"} {
		if n := s.requested(p); n != 1 {
			t.Errorf("%s fetched %d times, want once (errors %v)", p, n, snap.Totals.Errors)
		}
	}
	if n := snap.Totals.Errors["body_too_large"]; n != 0 {
		t.Errorf("%d body_too_large: the sitemap was refused", n)
	}
}

// static serves the same document every time.
// busyFeed is an RSS feed on host h that gains an item every 100 ms from now on
// and lists its newest five.
func busyFeed(h string) func(int) (string, []byte) {
	start := time.Now()
	return func(int) (string, []byte) {
		n := int(time.Since(start) / (100 * time.Millisecond))
		var b strings.Builder
		b.WriteString(`<rss version="2.0"><channel><title>busy</title>`)
		for i := n; i > n-5 && i >= 0; i-- {
			fmt.Fprintf(&b, `<item><link>http://%s/i/%d</link></item>`, h, i)
		}
		b.WriteString(`</channel></rss>`)
		return "application/rss+xml", []byte(b.String())
	}
}

func static(ctype, body string) func(int) (string, []byte) {
	return func(int) (string, []byte) { return ctype, []byte(body) }
}

// discoveryPollOptions crawls with revisiting on: feeds and sitemaps are polled every
// 100-300 ms; pages are not revisited on their own schedule within the test.
func discoveryPollOptions(t *testing.T, seed string) config.Options {
	o := robotsOptions(t, seed)
	o.Revisit.Enabled = true
	o.Revisit.Every = 20 * time.Millisecond
	o.Revisit.Initial = time.Hour
	o.Revisit.MinInterval = time.Hour
	for c := range o.Revisit.Windows {
		o.Revisit.Windows[c] = 0
	}
	o.Discovery.Probe = config.ProbeAll
	o.Discovery.MinPoll, o.Discovery.MaxPoll = 100*time.Millisecond, 300*time.Millisecond
	return o
}

// versionText is a page text that shares no sentence with other versions.
func versionText(v int) string {
	words := []string{"harbor", "council", "storm", "ferry", "budget", "school", "market", "bridge", "river", "station", "museum", "orchard"}
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%s %s %d. ", words[(v*7+i)%len(words)], words[(v*5+i*3)%len(words)], v*100+i)
	}
	return "<html><body><article><p>" + b.String() + "</p></article></body></html>"
}

// Hints: a lastmod that moves makes the page due now (without the hint, the page
// would wait for its revisit schedule, an hour here); a site whose lastmod is always the
// serving time gets its dates ignored, and the snapshot says so.
func TestSitemapDatesMakePagesDueUnlessTheyLie(t *testing.T) {
	t.Parallel()
	past := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(time.RFC3339)
	tests := []struct {
		name    string
		lying   bool
		minP1   int // fetches of /p1 at least
		trusted bool
	}{
		{"honest lastmod: the page that changed is refetched", false, 3, true},
		{"lastmod always now: hints ignored", true, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newDiscoSite(t)
			h := s.host
			var mu sync.Mutex
			var changedAt time.Time
			version := 0
			s.raw["/sitemap.xml"] = func(n int) (string, []byte) {
				mu.Lock()
				defer mu.Unlock()
				var b strings.Builder
				b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				now := time.Now().UTC().Format(time.RFC3339Nano)
				if !tc.lying && n >= 1 { // /p1 changes before every read of the sitemap but the first
					version, changedAt = n, time.Now()
				}
				for i := 1; i <= 6; i++ {
					lm := past
					switch {
					case tc.lying:
						lm = now
					case i == 1 && !changedAt.IsZero():
						lm = changedAt.UTC().Format(time.RFC3339Nano)
					}
					fmt.Fprintf(&b, "<url><loc>http://%s/p%d</loc><lastmod>%s</lastmod></url>", h, i, lm)
				}
				b.WriteString(`</urlset>`)
				return "application/xml", []byte(b.String())
			}
			s.raw["/p1"] = func(int) (string, []byte) {
				mu.Lock()
				defer mu.Unlock()
				return "text/html", []byte(versionText(version))
			}
			for i := 2; i <= 6; i++ {
				s.pages[fmt.Sprintf("/p%d", i)] = versionText(100 + i)
			}
			s.pages["/"] = `<p>front</p>`
			e := startEngine(t, discoveryPollOptions(t, "http://"+h+"/"))
			waitFor(t, "the sitemap to be read 5 times", func() bool { return s.requested("/sitemap.xml") >= 5 })
			if tc.minP1 > 0 {
				waitFor(t, fmt.Sprintf("/p1 fetched %d times", tc.minP1), func() bool { return s.requested("/p1") >= tc.minP1 })
			}
			snap := e.Snapshot()
			e.Close()
			for i := 2; i <= 6; i++ {
				if n := s.requested(fmt.Sprintf("/p%d", i)); n != 1 {
					t.Errorf("/p%d (its date never moved, or lied) fetched %d times, want 1", i, n)
				}
			}
			if tc.lying && s.requested("/p1") != 1 {
				t.Errorf("/p1 fetched %d times on a lying site, want 1", s.requested("/p1"))
			}
			if len(snap.Discovery) != 1 {
				t.Fatalf("snapshot discovery %+v", snap.Discovery)
			}
			d := snap.Discovery[0]
			if d.DatesTrusted != tc.trusted || (!tc.trusted && (!strings.Contains(d.Why, "serving time") || d.Ignored == 0)) {
				t.Errorf("snapshot: trusted %v (%q), %d ignored; want trusted %v", d.DatesTrusted, d.Why, d.Ignored, tc.trusted)
			}
		})
	}
}

// Seed 003's keyword filter for news sites applies to pages found through
// feeds and sitemaps as to pages found through links; the sitemap itself is no
// result, though its news:keywords say "flood".
func TestKeywordFilterAppliesToDiscoveredPages(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.robots = "Sitemap: http://" + h + "/news.xml\n"
	s.raw["/news.xml"] = static("application/xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">`+
		`<url><loc>http://`+h+`/s1</loc><news:news><news:keywords>flood</news:keywords></news:news></url>`+
		`<url><loc>http://`+h+`/s2</loc><news:news><news:keywords>flood</news:keywords></news:news></url></urlset>`)
	s.pages["/"] = `<html><body><p>Front page without links.</p></body></html>`
	s.pages["/s1"] = `<html><body><article><p>The flood reached the harbor before dawn, and the council met at noon.</p></article></body></html>`
	s.pages["/s2"] = `<html><body><article><p>The school choir sang at the market on Sunday afternoon.</p></article></body></html>`
	o := robotsOptions(t, "")
	o.Seeds = nil
	o.Keywords = []string{"flood"}
	o.Sites = []config.SiteOptions{{Name: "harbor", Kind: config.SiteNews, Entry: "http://" + h + "/"}}
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if s.requested("/s1") != 1 || s.requested("/s2") != 1 {
		t.Fatalf("/s1 fetched %d, /s2 %d times: the sitemap was not read", s.requested("/s1"), s.requested("/s2"))
	}
	rs, _ := readResults(t, o.DB)
	var got []string
	for _, r := range rs {
		got = append(got, strings.TrimPrefix(r.URL, "http://"+h)+"|"+r.Keyword)
	}
	if strings.Join(got, ",") != "/s1|flood" {
		t.Errorf("results %v, want only /s1 for flood", got)
	}
}

// Each feed is polled on its own learned interval — one that gains an item every
// 100 ms far more often than one that never changes.
func TestFeedsArePolledAtTheirOwnPace(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.raw["/busy"] = busyFeed(h)
	s.raw["/quiet"] = static("application/rss+xml", `<rss version="2.0"><channel><title>quiet</title><item><link>http://`+h+`/q/1</link></item></channel></rss>`)
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/busy"><link rel="alternate" type="application/atom+xml" href="/quiet"></head><body>front</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.Probe = config.ProbeOff
	o.Discovery.MinPoll, o.Discovery.MaxPoll = 50*time.Millisecond, 2*time.Second
	e := startEngine(t, o)
	waitFor(t, "the busy feed to be read 12 times", func() bool { return s.requested("/busy") >= 12 })
	e.Close()
	// Judged by what the poller learned of each feed, the rate its intervals follow,
	// not by how many reads fitted in the wall-clock time the test ran: on a loaded
	// box the busy feed's reads come late and the quiet one's on time.
	p := e.disc.Poller()
	busyURL, quietURL := "http://"+h+"/busy", "http://"+h+"/quiet"
	br, qr := p.Rate(busyURL), p.Rate(quietURL)
	t.Logf("busy feed: read %d times, %.0f new URLs/h, polled every %v; quiet one: read %d times, %.0f/h, every %v",
		s.requested("/busy"), br, p.Interval(busyURL), s.requested("/quiet"), qr, p.Interval(quietURL))
	if s.requested("/quiet") == 0 || br < 3*qr {
		t.Errorf("the poller learned %.0f new URLs/h for the busy feed, %.0f for the quiet one: want the busy one polled at least 3x as often", br, qr)
	}
}

// A home page announcing 100 feeds (one per category) has its first
// page.MaxFeedLinks read, and the rest is said once: a counted warning and one
// WARN line naming the page and how many were left out. Before, the 16 first
// were read and the rest lost without a word.
func TestFeedLinksPastTheBoundAreSaid(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	const n = 100
	var home strings.Builder
	home.WriteString(`<html><head>`)
	for i := range n {
		fmt.Fprintf(&home, `<link rel="alternate" type="application/rss+xml" href="/category/%d/feed/">`, i)
		s.raw[fmt.Sprintf("/category/%d/feed/", i)] = static("application/rss+xml",
			fmt.Sprintf(`<rss version="2.0"><channel><title>c</title><item><link>http://%s/a/%d</link></item></channel></rss>`, h, i))
	}
	home.WriteString(`</head><body><p>home</p></body></html>`)
	s.pages["/"] = home.String()
	o := robotsOptions(t, "http://"+h+"/")
	// A hundred small documents in a row: the adaptive gap, five times a loopback
	// response's time (this box's load), spaced them by up to a second each.
	o.Politeness = config.FixedPoliteness()
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	snap := e.Snapshot()
	e.Close()
	read := 0
	for i := range n {
		read += min(1, s.requested(fmt.Sprintf("/category/%d/feed/", i)))
	}
	if read != page.MaxFeedLinks || page.MaxFeedLinks <= 16 {
		t.Errorf("%d of the %d category feeds read, want the first %d (more than 16)", read, n, page.MaxFeedLinks)
	}
	if got := snap.Totals.Warnings["discovery_feed_links_dropped"]; got != 1 {
		t.Errorf("discovery_feed_links_dropped counted %d times, want once (warnings %v)", got, snap.Totals.Warnings)
	}
	want := fmt.Sprintf("page http://%s/ announces %d feeds: the first %d are read, %d left out", h, n, page.MaxFeedLinks, n-page.MaxFeedLinks)
	var lines []string
	for _, ev := range e.EventsSince(0, 1<<20) {
		if ev.Level >= view.LevelWarn && strings.Contains(ev.Msg, want) {
			lines = append(lines, ev.Msg)
		}
	}
	if len(lines) != 1 {
		t.Errorf("%d WARN lines say %q, want 1: %q", len(lines), want, lines)
	}
}
