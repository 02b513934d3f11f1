package engine

import (
	"testing"
	"time"
)

func TestPublishedAt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       time.Time
	}{
		{"open graph", `<head><meta property="article:published_time" content="2026-11-25T08:30:00Z"></head>`, time.Date(2026, 11, 25, 8, 30, 0, 0, time.UTC)},
		{"schema.org time", `<time itemprop="datePublished" datetime="2026-11-24">yesterday</time>`, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)},
		{"offset", `<meta itemprop="datePublished" content="2026-11-25T10:00:00+02:00">`, time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)},
		{"none", `<html><body>no date here</body></html>`, time.Time{}},
		{"garbage date", `<meta property="article:published_time" content="last tuesday">`, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := publishedAt([]byte(c.body)); !got.Equal(c.want) {
				t.Errorf("publishedAt = %v, want %v", got, c.want)
			}
		})
	}
}

// The Sites pane's figures: new pages in the last hour and day from the minute
// ring, the median publish-to-store delay over pages that stated a publish time.
func TestSiteTally(t *testing.T) {
	t.Parallel()
	var tl siteTally
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i, ago := range []time.Duration{time.Minute, 30 * time.Minute, 2 * time.Hour, 23 * time.Hour, 25 * time.Hour} {
		at := now.Add(-ago)
		pub := time.Time{}
		if i < 3 {
			pub = at.Add(-time.Duration(i+1) * 10 * time.Minute) // 10, 20, 30 min late
		}
		tl.stored("harbor", at, pub, false)
	}
	r := SiteRow{Name: "harbor"}
	tl.fill(&r, now)
	if r.Stored != 5 || r.NewHour != 2 || r.NewDay != 4 || r.PublishDelay != 20*time.Minute {
		t.Errorf("row %+v: want stored 5, new 2 in the hour, 4 in the day, median delay 20m", r)
	}
}

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
	o.Sites = []SiteOptions{{Name: "harbor", Kind: SiteNews, Entry: "http://" + h + "/"}}
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
