package engine

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// The Sites pane shows what discovery found for a declared site: its sitemap, and
// whether its dates are trusted once discovery has judged them.
func TestSitesViewShowsWhatDiscoveryFound(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.robots = "Sitemap: http://" + h + "/news.xml\n"
	s.raw["/news.xml"] = static("application/xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<url><loc>http://`+h+`/s1</loc></url></urlset>`)
	s.pages["/"] = `<html><body><p>Front page without links.</p></body></html>`
	s.pages["/s1"] = `<html><body><article><p>The flood reached the harbor before dawn.</p></article></body></html>`
	o := robotsOptions(t, "")
	o.Seeds = nil
	o.Keywords = []string{"flood"}
	o.Sites = []config.SiteOptions{{Name: "harbor", Kind: config.SiteNews, Entry: "http://" + h + "/"}}
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	row := sitesByName(e.Snapshot().Sites)["harbor"]
	if row == nil || len(row.Sitemaps) != 1 || row.Sitemaps[0] != "http://"+h+"/news.xml" || row.DatesTrusted == "" {
		t.Fatalf("harbor row %+v: want the sitemap robots.txt declared and a date-trust verdict", row)
	}
	if row.Stored < 2 {
		t.Errorf("harbor stored %d pages, want the entry and /s1 at least", row.Stored)
	}
}
