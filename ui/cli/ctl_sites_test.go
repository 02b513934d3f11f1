package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// `ctl sites` says what the Sites pane says, for every site at once: per declared
// site its pages, new pages, publish-to-store delay, feeds and sitemaps and the URLs
// they listed (FOUND: shown nowhere before), then each
// feed or sitemap that yielded nothing and why; and the feeds and sitemaps of
// domains no site declares, as the pane's rows below the declared sites. Before, ctl had no way
// to see them: a typo'd feed in the config was visible only in an attached console.
func TestCtlSitesSaysWhatEachSitesFeedsGave(t *testing.T) {
	bad := "http://www.summit.example/fed.xml"
	s := view.Snapshot{
		Sites: &view.SitesView{Sites: []view.SiteRow{
			{Name: "summit", Kind: "news", Class: "web_com", Entry: "http://www.summit.example/", Keywords: []string{"flood"},
				Stored: 120, NewHour: 7, NewDay: 40, PublishDelay: 95 * time.Second,
				Feeds: []string{"http://www.summit.example/feed.xml"}, DatesTrusted: "yes",
				Problems: map[string]string{bad: "HTTP 404 (http_4xx); the config's discovery.feeds names it: check the URL"}},
			{Name: "quiet", Kind: "news", Entry: "http://quiet.example/"},
		}},
		Discovery: []view.SiteDiscovery{
			{Site: "summit", Feeds: []string{"http://www.summit.example/feed.xml"}, DatesTrusted: true, Found: 30},
			{Site: "undeclared.example", Sitemaps: []string{"http://undeclared.example/sitemap.xml"}, Found: 412,
				Why: "lastmod is the serving time in 3 of 3 sitemaps", Warnings: map[string]int{"encoding_mismatch": 1, "bad_date": 2}},
			{Site: "nothing.example"}, // read nothing, nothing failed: no row, as on the pane
		},
	}
	var out strings.Builder
	if code := printSites(s, false, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := [][]string{
		{"SITE", "KIND", "STORED", "1H", "1D", "DELAY", "FEEDS", "SITEMAPS", "DATES", "PROBLEMS", "FOUND", "ROBOTS"},
		{"summit", "news", "120", "7", "40", "1m35s", "1", "0", "yes", "1", "30", "-"},
		{"quiet", "news", "0", "0", "0", "-", "0", "0", "-", "0", "0", "-"},
		{"undeclared.example", "-", "-", "-", "-", "-", "0", "1", "no", "0", "412", "-"},
	}
	if len(lines) < len(want)+2 {
		t.Fatalf("ctl sites:\n%s\nwant a table of 3 sites, then the problem and the untrusted dates", out.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d: %q, want %q", i, lines[i], strings.Join(w, "  "))
		}
	}
	if !strings.Contains(out.String(), "summit: "+bad+" yielded nothing: HTTP 404 (http_4xx); the config's discovery.feeds names it: check the URL") {
		t.Errorf("ctl sites does not name the feed that yielded nothing and why:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "undeclared.example: read with warnings: bad_date 2, encoding_mismatch 1") {
		t.Errorf("ctl sites does not say what its documents were read with:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "undeclared.example: dates not trusted: lastmod is the serving time") {
		t.Errorf("ctl sites does not say why a site's dates are not trusted:\n%s", out.String())
	}
	var js strings.Builder
	printSites(s, true, &js)
	var list []ctlSite
	if err := json.Unmarshal([]byte(js.String()), &list); err != nil || len(list) != 3 ||
		!list[0].Declared || list[0].DelayS != 95 || list[0].Problems[bad] == "" || list[2].Declared || len(list[2].Sitemaps) != 1 ||
		list[0].Found != 30 || list[2].Found != 412 || list[2].Warnings["bad_date"] != 2 {
		t.Errorf("ctl --json sites: %v\n%s", err, js.String())
	}
}

// A delay under a second is shown to the millisecond in text and JSON; rounded to
// whole seconds it read "-" and 0, as if nothing had been stored.
func TestCtlSitesDelayUnderASecond(t *testing.T) {
	s := view.Snapshot{Sites: &view.SitesView{Sites: []view.SiteRow{
		{Name: "fast", Kind: "news", Stored: 3, PublishDelay: 420 * time.Millisecond},
		{Name: "brisk", Kind: "news", Stored: 3, PublishDelay: 3250 * time.Millisecond},
	}}}
	var out strings.Builder
	printSites(s, false, &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || strings.Fields(lines[1])[5] != "420ms" || strings.Fields(lines[2])[5] != "3.2s" {
		t.Errorf("ctl sites:\n%s\nwant DELAY 420ms and 3.2s", out.String())
	}
	var js strings.Builder
	printSites(s, true, &js)
	var list []ctlSite
	if err := json.Unmarshal([]byte(js.String()), &list); err != nil || len(list) != 2 || list[0].DelayS != 0.42 || list[1].DelayS != 3.25 {
		t.Errorf("ctl --json sites: %v\n%s\nwant delay_s 0.42 and 3.25", err, js.String())
	}
}

// Every column of `ctl sites` and `ctl hosts` lines up under its heading on a
// terminal whatever its values: a long host, counts wider than their heading, a site
// named in CJK (two terminal columns a character), warnings. text/tabwriter counts
// runes: the CJK name pushed the rest of its row left of its headings. FOUND, then
// ROBOTS, are the last columns, after DATES and PROBLEMS, where a script read them
// before they came.
func TestCtlTablesLineUpWithWideValues(t *testing.T) {
	long := "a-very-long-host-name.with.many.labels.news.example.co.uk"
	s := view.Snapshot{
		Sites: &view.SitesView{Sites: []view.SiteRow{
			{Name: long, Kind: "news", Stored: 123456789, NewHour: 12345, NewDay: 1234567, PublishDelay: 30 * time.Hour,
				Feeds: []string{"http://a.example/feed"}, DatesTrusted: "yes",
				Problems: map[string]string{"http://a.example/x.xml": "HTTP 404 (http_4xx)"}},
			{Name: "新闻网.中国", Kind: "news", Stored: 3, Waits: "robots → " + long + " held", WaitsBehind: long},
			{Name: "q", Kind: "n"},
		}},
		Discovery: []view.SiteDiscovery{
			{Site: "q", Found: 123456789012, Warnings: map[string]int{"bad_date": 123456}},
			{Site: "undeclared.example", Sitemaps: []string{"http://undeclared.example/sitemap.xml"}, Found: 412},
		},
		Lanes: []view.Lane{
			{ID: 12345, Hosts: []string{long}, Status: view.LaneWaiting, Egress: "a-long-egress-name"},
			{ID: 2, Hosts: []string{"新闻网.中国"}, Status: view.LaneWaiting, Egress: "e"},
		},
	}
	var sites, hosts strings.Builder
	printSites(s, false, &sites)
	printHosts(s, false, &hosts)
	for name, c := range map[string]struct {
		out  string
		rows int
	}{"ctl sites": {sites.String(), 5}, "ctl hosts": {hosts.String(), 3}} {
		lines := strings.Split(c.out, "\n")
		if len(lines) < c.rows {
			t.Fatalf("%s:\n%s", name, c.out)
		}
		heads := columnStarts(lines[0])
		for _, l := range lines[1:c.rows] {
			if got := columnStarts(l); !slices.Equal(got, heads) {
				t.Errorf("%s: row %q has its cells at terminal columns %v, the headings at %v:\n%s", name, l, got, heads, c.out)
			}
		}
	}
	if got := strings.Fields(strings.Split(sites.String(), "\n")[0]); strings.Join(got[len(got)-3:], " ") != "PROBLEMS FOUND ROBOTS" {
		t.Errorf("ctl sites headings %q: want PROBLEMS, FOUND and ROBOTS last", got)
	}
	if !strings.Contains(sites.String(), "q: read with warnings: bad_date 123456") {
		t.Errorf("ctl sites does not name the warnings:\n%s", sites.String())
	}
}

// columnStarts is the terminal column where each space-separated cell of line starts.
func columnStarts(line string) []int {
	var starts []int
	col, prev := 0, ' '
	for _, r := range line {
		if r != ' ' && prev == ' ' {
			starts = append(starts, col)
		}
		col += runewidth.RuneWidth(r)
		prev = r
	}
	return starts
}

// `ctl sites` says which sites wait on their robots.txt and why, as the Sites pane
// does: a ROBOTS column for a script reading the table (held, unreachable or -, a
// word whatever the held host's length), a line per waiting site naming the held
// host, and in JSON the pane's words and the held host. Before, only the pane's
// selected site said it.
func TestCtlSitesSaysWhyASiteWaitsOnRobotsTxt(t *testing.T) {
	long := "a-very-long-cdn-host-name.with.many.labels.example.co.uk"
	s := view.Snapshot{Sites: &view.SitesView{Sites: []view.SiteRow{
		{Name: "harbor", Kind: "news", Waits: "robots → " + long + " held", WaitsBehind: long},
		{Name: "summit", Kind: "news", Waits: "robots.txt unreachable"},
		{Name: "quiet", Kind: "news"},
	}}}
	var out strings.Builder
	printSites(s, false, &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("ctl sites:\n%s\nwant the table of 3 sites, then a line for each of the 2 waiting", out.String())
	}
	for i, want := range []string{"ROBOTS", "held", "unreachable", "-"} {
		if f := strings.Fields(lines[i]); f[len(f)-1] != want || len(f) != 12 {
			t.Errorf("line %d: %q, want 12 columns, ROBOTS %q", i, lines[i], want)
		}
	}
	for _, want := range []string{"harbor: waits robots → " + long + " held", "summit: waits robots.txt unreachable"} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("ctl sites lacks the line %q:\n%s", want, out.String())
		}
	}
	var js strings.Builder
	printSites(s, true, &js)
	var list []ctlSite
	if err := json.Unmarshal([]byte(js.String()), &list); err != nil || len(list) != 3 ||
		list[0].Waits != "robots → "+long+" held" || list[0].WaitsBehind != long ||
		list[1].Waits != "robots.txt unreachable" || list[1].WaitsBehind != "" || list[2].Waits != "" {
		t.Errorf("ctl --json sites: %v\n%s\nwant waits and waits_behind", err, js.String())
	}
	if strings.Count(js.String(), "waits") != 3 {
		t.Errorf("ctl --json sites: %s\nwant waits and waits_behind only where a site waits", js.String())
	}
}
