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
	robots, page, raw := s.robots, s.pages[r.URL.Path], s.raw[r.URL.Path]
	s.mu.Unlock()
	switch {
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
	n := 0
	for _, p := range s.log {
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

// Issue 18: the crawl reads the sitemaps robots.txt names (an index, a gzip news
// sitemap), /sitemap.xml when it names none, and the feed an entry page links to; it
// fetches the articles they announce, which no page links to, and refuses URLs of
// other hosts. Before, none of these documents was ever requested.
func TestDiscoveryFindsArticlesOnlyFeedsAndSitemapsAnnounce(t *testing.T) {
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
			probe:  ProbeAll,
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
