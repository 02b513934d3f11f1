package engine

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// Feeds and sitemaps as real servers send them are read, and the articles they
// list fetched: a GB2312 feed served as text/html with relative links, a
// windows-1251 feed served as application/octet-stream, a gzip sitemap served as
// octet-stream, a text sitemap as text/plain, an image sitemap whose <image:loc>
// comes before the page's <loc>, with hreflang alternates. Before, none of these
// articles was fetched (the images were, from the image sitemap). A feed that
// turns out to be an image says why it yielded nothing, once, in the log and in the
// snapshot's per-site problems.
func TestFeedsAndSitemapsAsRealServersSendThem(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	gb, err := simplifiedchinese.GBK.NewEncoder().String(`<?xml version="1.0" encoding="gb2312"?><rss version="2.0"><channel><title>新闻</title>` +
		`<item><title>台风</title><link>/news/2026/gb-1.html</link></item><item><title>洪水</title><link>news/gb-2.html</link></item></channel></rss>`)
	if err != nil {
		t.Fatal(err)
	}
	ru, err := charmap.Windows1251.NewEncoder().String(`<?xml version="1.0" encoding="windows-1251"?><rss version="2.0"><channel><title>Новости</title>` +
		`<item><title>Новость</title><link>http://` + h + `/ru/1.html</link></item></channel></rss>`)
	if err != nil {
		t.Fatal(err)
	}
	s.raw["/feeds/gb"] = static("text/html", gb)
	s.raw["/feeds/ru"] = static("application/octet-stream", ru)
	s.raw["/feeds/picture"] = static("text/plain", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary")
	s.raw["/sitemap.xml.gz"] = func(int) (string, []byte) {
		return "application/octet-stream", gzipBytes(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://` + h + `/gz/1.html</loc></url></urlset>`)
	}
	s.raw["/sitemap.txt"] = static("text/plain", "http://"+h+"/txt/1.html\nhttp://"+h+"/txt/2.html\n")
	s.raw["/images.xml"] = static("text/xml", `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><image:image><image:loc>http://`+h+`/img/1.jpg</image:loc></image:image><loc>http://`+h+`/img-article/1.html</loc>
<xhtml:link rel="alternate" hreflang="de" href="http://`+h+`/de/img-article/1.html"/></url></urlset>`)
	s.robots = "Sitemap: http://" + h + "/sitemap.xml.gz\nSitemap: http://" + h + "/sitemap.txt\nSitemap: http://" + h + "/images.xml\n"
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feeds/gb"><link rel="alternate" type="application/rss+xml" href="/feeds/ru">` +
		`<link rel="alternate" type="application/rss+xml" href="/feeds/picture"></head><body>front</body></html>`
	articles := []string{"/news/2026/gb-1.html", "/feeds/news/gb-2.html", "/ru/1.html", "/gz/1.html", "/txt/1.html", "/txt/2.html", "/img-article/1.html", "/de/img-article/1.html"}
	for _, a := range articles {
		s.pages[a] = "<p>article " + a + "</p>"
	}
	o := robotsOptions(t, "http://"+h+"/")
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	snap := e.Snapshot()
	e.Close()
	for _, a := range articles {
		if s.requested(a) != 1 {
			t.Errorf("%s requested %d times, want once (requests: %v)", a, s.requested(a), s.paths())
		}
	}
	if n := s.requested("/img/1.jpg"); n != 0 {
		t.Errorf("the image of the image sitemap was fetched %d times as a page", n)
	}
	n := 0
	for _, ev := range e.EventsSince(0, 1<<20) {
		if strings.Contains(ev.Msg, "/feeds/picture") {
			n++
			if !strings.Contains(ev.Msg, "yielded nothing") || !strings.Contains(ev.Msg, `\x89PNG`) {
				t.Errorf("log %q: want it to say the feed yielded nothing and what it was", ev.Msg)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d log lines name /feeds/picture, want 1", n)
	}
	var problems map[string]string
	for _, d := range snap.Discovery {
		if len(d.Problems) > 0 {
			problems = d.Problems
		}
	}
	if why := problems["http://"+h+"/feeds/picture"]; !strings.Contains(why, "content_type") || len(problems) != 1 {
		t.Errorf("snapshot problems %v: want /feeds/picture's, and only it", problems)
	}
	if snap.Totals.Warnings["discovery_yielded_nothing"] != 1 {
		t.Errorf("warnings %v: want discovery_yielded_nothing 1", snap.Totals.Warnings)
	}
}

// A feed that yields nothing says so once, not at every poll.
func TestEmptyFeedSaysWhyOnce(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.raw["/feed"] = static("text/plain; charset=utf-8", `<rss version="2.0"><channel><title>nothing yet</title></channel></rss>`)
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed"></head><body>front</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.Probe = config.ProbeOff
	e := startEngine(t, o)
	waitFor(t, "the feed to be read 4 times", func() bool { return s.requested("/feed") >= 4 })
	e.Close()
	var lines []string
	for _, ev := range e.EventsSince(0, 1<<20) {
		if strings.Contains(ev.Msg, "/feed") && ev.Level >= view.LevelWarn {
			lines = append(lines, ev.Msg)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "yielded nothing: it lists no URLs") {
		t.Errorf("log lines on /feed %q: want one saying it lists no URLs", lines)
	}
}

// A master reads a worker's feed from its raw body (M4) as the worker read it: the
// document's URL resolves its relative links, its Content-Type's charset decodes it.
func TestMasterReparsesAWorkersFeedWithItsURLAndCharset(t *testing.T) {
	t.Parallel()
	e, err := New(robotsOptions(t, "http://a.test/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	body, err := simplifiedchinese.GBK.NewEncoder().String(`<rss version="2.0"><channel><title>新闻</title>` +
		`<item><title>台风</title><link>/news/1.html</link></item></channel></rss>`)
	if err != nil {
		t.Fatal(err)
	}
	res := &fetch.Result{URL: "http://a.test/feed", FinalURL: "http://a.test/rss/feed", Status: 200, ContentType: "text/plain",
		Header: http.Header{"Content-Type": {"text/plain; charset=gb2312"}}, Body: []byte(body), DiscoveredKind: discover.KindFeed}
	doc := e.disc.Read(frontier.Task{URL: res.URL, Host: "a.test"}, res, nil, time.Now())
	if doc == nil || len(doc.Entries) != 1 || doc.Entries[0].Title != "台风" {
		t.Fatalf("re-parsed %+v: want one entry titled 台风", doc)
	}
	if !slices.Equal(res.Links, []string{"http://a.test/news/1.html"}) {
		t.Errorf("links %v, want the relative link resolved against the feed's URL", res.Links)
	}
}

// Bad documents cost bounded work, never hold the crawl, and each is named in a
// warning: a feed whose declared encoding is a lie (read, with the lie said), a
// text sitemap of 200,000 lines (stops at 50,000), binary served as text/plain.
func TestBadDocumentsAreBoundedAndNamed(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.raw["/lie.xml"] = static("application/rss+xml", `<?xml version="1.0" encoding="gb2312"?><rss version="2.0"><channel><title>新闻</title>`+
		`<item><title>台风</title><link>http://`+h+`/lie/1.html</link></item></channel></rss>`)
	var lines strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&lines, "http://elsewhere.test/%d\n", i)
	}
	s.raw["/lines.txt"] = static("text/plain", lines.String())
	binary := make([]byte, 256<<10)
	for i := range binary {
		binary[i] = byte(i*7 + i>>8)
	}
	s.raw["/binary.txt"] = static("text/plain", string(binary))
	s.robots = "Sitemap: http://" + h + "/lines.txt\nSitemap: http://" + h + "/binary.txt\n"
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/lie.xml"></head><body><a href="/ok">ok</a></body></html>`
	s.pages["/ok"] = "<p>ok</p>"
	s.pages["/lie/1.html"] = "<p>lie</p>"
	o := robotsOptions(t, "http://"+h+"/")
	// The lines take seconds to serve on a loaded box, and the adaptive
	// gap after them (five times the response's time) would be most of the test's
	// time; what it asserts is the documents' bounds and names, not the gap.
	o.Politeness = config.FixedPoliteness()
	// The crawl ends (their cost per document is judged in package discover, by
	// what each keeps and allocates, its time by BenchmarkMillionLineTextSitemap;
	// a wall clock here would judge the box).
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	for _, p := range []string{"/ok", "/lie/1.html"} {
		if s.requested(p) != 1 {
			t.Errorf("%s requested %d times, want once", p, s.requested(p))
		}
	}
	for doc, says := range map[string]string{"/lie.xml": "encoding_mismatch", "/lines.txt": "too_many_urls 1", "/binary.txt": "yielded nothing"} {
		if !hasEvent(e, "127.0.0.1", "http://"+h+doc, says) {
			t.Errorf("no warning names %s saying %q", doc, says)
		}
	}
}
