package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// With no budget set, the BUDGET column says "-", not a used count of 0 that
// nothing keeps (the ledger runs only once some budget is set).
func TestSitesBudgetWithoutACapIsADash(t *testing.T) {
	p := &sitesPane{width: 80}
	now := fake.Epoch
	if c := p.cells(&view.SiteRow{Name: "a", Stored: 500}, now); c[len(c)-1] != "-" {
		t.Errorf("no budget: BUDGET %q, want -", c[len(c)-1])
	}
	if c := p.cells(&view.SiteRow{Name: "a", BudgetUsed: 40, Budget: 200}, now); c[len(c)-1] != "40/200" {
		t.Errorf("a budget: BUDGET %q, want 40/200", c[len(c)-1])
	}
}

// A crawl seeded with home pages declares no site, yet its discovery reads their
// feeds and sitemaps: the Sites tab shows each registered domain it reads, with its
// feeds, sitemaps and dates, and the selected one's documents that yielded nothing,
// why first, and how many URLs its feeds and sitemaps listed. Before, such a crawl
// had no Sites tab: a 404 feed was in the log alone.
// Beside declared sites, the undeclared domains follow them, their figures "-".
func TestSitesPaneShowsTheFeedsOfUndeclaredDomains(t *testing.T) {
	disc := []view.SiteDiscovery{
		{Site: "guardian.example", Feeds: []string{"http://www.guardian.example/world/rss"}, DatesTrusted: true, Found: 1250,
			Problems: map[string]string{"http://www.guardian.example/uk/rss": "HTTP 404 (http_4xx)"}},
		{Site: "nothing.example"}, // discovery knows it, it read nothing and nothing failed: no row
	}
	p := newSitesPane(testCommon()).(*sitesPane)
	p.SetSize(140, 20)
	p.SetSnapshot(&view.Snapshot{Discovery: disc})
	if !p.Shown() {
		t.Fatal("no Sites tab for a crawl whose discovery reads a feed")
	}
	out := p.View()
	if strings.Contains(out, "round 0") {
		t.Errorf("the summary gives rounds with no site declared:\n%s", out)
	}
	for _, want := range []string{"declared 0", "undeclared 1", "guardian.example",
		"yielded nothing http://www.guardian.example/uk/rss: HTTP 404 (http_4xx)", "found 1,250 URLs  feeds http://www.guardian.example/world/rss"} {
		if !strings.Contains(out, want) {
			t.Errorf("Sites pane lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "nothing.example") {
		t.Errorf("a domain with no feed, sitemap or problem has a row:\n%s", out)
	}

	sites := &view.SitesView{Sites: []view.SiteRow{{Name: "harbor", Kind: "news", Entry: "http://harbor.example/", Stored: 12}}}
	p.SetSnapshot(&view.Snapshot{Sites: sites, Discovery: append(disc, view.SiteDiscovery{Site: "harbor", Feeds: []string{"http://harbor.example/feed"}})})
	out = p.View()
	if !strings.Contains(out, "declared 1") || !strings.Contains(out, "undeclared 1") || strings.Index(out, "harbor             news") > strings.Index(out, "guardian.example   -") {
		t.Errorf("declared harbor, then undeclared guardian.example:\n%s", out)
	}
	if len(sites.Sites) != 1 {
		t.Errorf("the snapshot's sites were changed: %d rows", len(sites.Sites))
	}
	c := p.cells(&view.SiteRow{Name: "guardian.example", Feeds: []string{"x"}, DatesTrusted: "yes"}, fake.Epoch)
	if strings.Join(c, " ") != "guardian.example - - - - - - - - - - 1 0 yes" {
		t.Errorf("undeclared row cells %q: want its figures -, its feeds, sitemaps and dates", c)
	}
}

// A delay under a second is shown as it is, not rounded to 0s: news read from a
// feed every minute is stored well under a second after it appears.
func TestSitesDelayUnderASecond(t *testing.T) {
	p := &sitesPane{width: 80}
	for d, want := range map[time.Duration]string{400 * time.Millisecond: "400ms", 2500 * time.Millisecond: "2.5s", 95 * time.Second: "1m35s", 0: "-"} {
		if c := p.cells(&view.SiteRow{Name: "a", PublishDelay: d}, fake.Epoch); c[len(c)-2] != want {
			t.Errorf("publish delay %v: DELAY %q, want %q", d, c[len(c)-2], want)
		}
	}
}

// A site whose URLs wait on its robots.txt says why on its line, before its entry
// and keywords (which the pane's edge cuts first): behind a host the operator
// holds, or not answering.
func TestSitesPaneSaysWhyASiteWaitsOnRobotsTxt(t *testing.T) {
	for _, c := range []struct{ waits, want string }{
		{"robots → www.wire.example held", "▸ harbor  waits robots → www.wire.example held  entry http://harbor.example/"},
		{"robots.txt unreachable", "▸ harbor  waits robots.txt unreachable  entry http://harbor.example/"},
		{"", "▸ harbor  entry http://harbor.example/"},
	} {
		p := newSitesPane(testCommon()).(*sitesPane)
		p.SetSize(80, 12)
		p.SetSnapshot(&view.Snapshot{Sites: &view.SitesView{Sites: []view.SiteRow{
			{Name: "harbor", Kind: "news", Entry: "http://harbor.example/", Keywords: []string{"storm"}, Waits: c.waits}}}})
		line := strings.Split(p.View(), "\n")[1]
		if !strings.Contains(line, c.want) {
			t.Errorf("waits %q: the site's line is %q, want it to hold %q", c.waits, line, c.want)
		}
	}
}

// The table says on each site's row why it waits on its robots.txt, for an operator
// scanning it (a ROBOTS column, there while a site waits): wide, "held" and the held
// host, cut to the column's width whatever its length, or "unreachable"; narrow,
// "held" or "unreachable" (one word for one thing at every width), the column as
// narrow as "held" when no site is unreachable; each under its heading, every line
// within the pane.
func TestSitesTableSaysWhichSitesWaitOnRobotsTxt(t *testing.T) {
	long := "a-very-long-cdn-host-name.with.many.labels.example.co.uk"
	rows := []view.SiteRow{
		{Name: "harbor", Kind: "news", Entry: "http://harbor.example/", Waits: "robots → " + long + " held", WaitsBehind: long},
		{Name: "summit", Kind: "news", Entry: "http://summit.example/", Waits: "robots.txt unreachable"},
		{Name: "quiet", Kind: "news", Entry: "http://quiet.example/", Stored: 12},
	}
	for _, c := range []struct {
		width int
		rows  []view.SiteRow
		colW  int // the column's width: the keywords keep the rest
		cells []string
	}{
		{80, rows, 11, []string{"held       ", "unreachable", "-          "}},
		{140, rows, 24, []string{"held a-very-long-cdn-ho…", "unreachable", "-"}},
		{80, []view.SiteRow{rows[0], rows[2]}, 6, []string{"held ", "-    "}},
	} {
		rows := c.rows
		p := newSitesPane(testCommon()).(*sitesPane)
		p.SetSize(c.width, 12)
		p.SetSnapshot(&view.Snapshot{Sites: &view.SitesView{Sites: rows}})
		lines := strings.Split(ansi.Strip(p.View()), "\n")
		head := []rune(lines[3]) // one cell a rune: "…" and "▸" are one each
		at := strings.Index(string(head), "ROBOTS")
		if at < 0 {
			t.Fatalf("width %d: no ROBOTS column:\n%s", c.width, strings.Join(lines, "\n"))
		}
		at = len([]rune(string(head)[:at]))
		if w := c.width - at - 1; w != c.colW { // the pane's last cell is blank
			t.Errorf("width %d: the ROBOTS column is %d cells wide, want %d:\n%s", c.width, w, c.colW, strings.Join(lines, "\n"))
		}
		for i, want := range c.cells {
			row := []rune(lines[4+i])
			if under := string(row[at:]); !strings.HasPrefix(under, want) {
				t.Errorf("width %d: %s's row %q has %q under ROBOTS, want %q", c.width, rows[i].Name, string(row), under, want)
			}
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > c.width {
				t.Errorf("width %d: a line of %d cells: %q", c.width, w, l)
			}
		}
	}
	p := newSitesPane(testCommon()).(*sitesPane)
	p.SetSize(80, 12)
	p.SetSnapshot(&view.Snapshot{Sites: &view.SitesView{Sites: rows[2:]}})
	if out := p.View(); strings.Contains(out, "ROBOTS") {
		t.Errorf("no site waits, yet a ROBOTS column:\n%s", out)
	}
}
