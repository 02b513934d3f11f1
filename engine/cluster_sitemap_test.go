package engine_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// TestADistributedCrawlReadsASitemapOverTheTransportsCap: a news sitemap over the
// embedded NATS server's message cap (which a worker's result travels under) and
// within discovery.max_document_bytes, named by robots.txt. The worker fetches it
// and the master queues every URL it lists, as one box would. The server's cap is
// set to 1 MiB (the product's is 16 MiB): a sitemap of 3,000 URLs (1.1 MiB) is over
// it as one of 50,000 (17 MiB) is over the default, with a seventeenth of the URLs
// to queue.
func TestADistributedCrawlReadsASitemapOverTheTransportsCap(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	const urls, maxPayload = 3_000, 1 << 20
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` + "\n")
	for i := range urls {
		fmt.Fprintf(&doc, "<url><loc>%s/news/2026/11/%06d-harbour-budget-%d.html</loc><lastmod>2026-11-%02dT%02d:%02d:00Z</lastmod>"+
			"<news:news><news:publication><news:name>Courier</news:name><news:language>en</news:language></news:publication>"+
			"<news:publication_date>2026-11-%02dT%02d:%02d:00Z</news:publication_date><news:title>Council votes on the harbour budget, part %d</news:title></news:news></url>\n",
			base, i, i*7919%100_003, 1+i%28, i%24, i%60, 1+i%28, i%24, i%60, i)
	}
	doc.WriteString("</urlset>\n")
	sitemap := doc.String()
	if len(sitemap) <= maxPayload || len(sitemap) > maxPayload*5/4 {
		t.Fatalf("the sitemap has %d bytes, want 1..1.25 MiB", len(sitemap))
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/news-sitemap.xml\n", base)
		case "/news-sitemap.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, sitemap)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body><p>article</p></body></html>")
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	c := prepareClusterCapped(t, smallWeb(47, 3), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		o.Seeds = []string{base + "/"}
	}, maxPayload)
	c.startMaster()
	c.worker("w1", "127.0.0.2")
	enginetest.WaitFor(t, "the sitemap's URLs queued by the master", func() bool {
		s := c.master.Stats()
		return s.URLsQueued > urls || s.Errors["body_too_large"] > 0
	})
	s := c.master.Stats()
	if n := s.Errors["body_too_large"]; n > 0 {
		t.Errorf("%d body_too_large on the master: the sitemap (%d bytes) was lost", n, len(sitemap))
	}
	if s.URLsQueued <= urls {
		t.Errorf("the master queued %d URLs, want the seed and the sitemap's %d", s.URLsQueued, urls)
	}
	var warns []string
	for _, ev := range c.master.EventsSince(0, 1000) {
		if ev.Level >= view.LevelWarn && strings.Contains(ev.Msg, "sitemap") {
			warns = append(warns, ev.Msg)
		}
	}
	if len(warns) > 0 {
		t.Errorf("the master warned: %q", warns)
	}
	c.master.Close()
}
