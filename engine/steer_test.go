package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

func TestParseSteer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line    string
		want    steer.Change
		wantErr string
	}{
		{line: "seed add http://a.test/", want: steer.Change{Op: steer.SeedAdd, URL: "http://a.test/"}},
		{line: "site add news http://www.a.test/ flood 台风", want: steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: "http://www.a.test/", Keywords: []string{"flood", "台风"}}},
		{line: "site add social chirp http://c.test/s?q={keyword}&page={page}", want: steer.Change{Op: steer.SiteAdd, Kind: config.SiteSocial, Site: "chirp", Search: "http://c.test/s?q={keyword}&page={page}"}},
		{line: "site rm chirp", want: steer.Change{Op: steer.SiteRm, Site: "chirp"}},
		{line: "keyword add chirp storm surge", want: steer.Change{Op: steer.KeywordAdd, Site: "chirp", Keywords: []string{"storm surge"}}},
		{line: "keyword rm chirp flood", want: steer.Change{Op: steer.KeywordRm, Site: "chirp", Keywords: []string{"flood"}}},
		{line: "budget chirp 40", want: steer.Change{Op: steer.Budget, Site: "chirp", N: 40}},
		{line: "window harbor 7", want: steer.Change{Op: steer.Window, Site: "harbor", N: 7}},
		{line: "window harbor 0", want: steer.Change{Op: steer.Window, Site: "harbor"}},
		{line: "budget chirp 40 total", want: steer.Change{Op: steer.Budget, Site: "chirp", N: 40, Per: steer.BudgetTotal}},
		{line: "budget host www.a.test 7", want: steer.Change{Op: steer.Budget, Host: "www.a.test", N: 7}},
		{line: "budget host 127.0.0.9 0 total", want: steer.Change{Op: steer.Budget, Host: "127.0.0.9", N: 0, Per: steer.BudgetTotal}},
		{line: "budget host 5 total", want: steer.Change{Op: steer.Budget, Site: "host", N: 5, Per: steer.BudgetTotal}}, // a site named host
		{line: "budget chirp lots", wantErr: `"lots" is not a page count`},
		{line: "budget chirp 4 weekly", wantErr: `"weekly" after the count must be "round"`},
		{line: "budget chirp 4 total now", wantErr: "usage: budget SITE N [round|total] | budget host HOST N"},
		{line: "budget host www.a.test", wantErr: "the page count is missing; usage: budget host HOST N"},
		{line: "budget host http://www.a.test/ 5", wantErr: "is a URL; give the host name alone"},
		{line: "budget host www.a.test:8080 5", wantErr: `has a port (8080)`},
		{line: "budget host www.a.test many total", wantErr: `"many" is not a page count`},
		{line: "budget", wantErr: "usage: budget SITE N"},
		{line: "budget chirp -1", wantErr: "is not a page count"},
		{line: "site add blog http://a.test/", wantErr: `site kind must be "news" or "social"`},
		{line: "site add social chirp", wantErr: "usage: site add social NAME SEARCH-TEMPLATE"},
		{line: "keyword add chirp", wantErr: "usage: keyword add SITE WORD"},
		{line: "seed add", wantErr: "usage: seed add URL"},
		{line: "frobnicate now", wantErr: "unknown steering command"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			got, err := steer.Parse(strings.Fields(c.line))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != c.want.String() || got.Op != c.want.Op || got.Site != c.want.Site || got.N != c.want.N ||
				got.Host != c.want.Host || got.Per != c.want.Per {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if got.String() != c.line {
				t.Errorf("String() = %q, want the command back: %q", got.String(), c.line)
			}
		})
	}
}

// `:seed add` refuses a malformed URL, a private address (SSRF policy) and a URL
// the crawl already has, each with a message saying what was wrong; nothing is
// queued. A good seed is queued and crawled.
func TestSteerSeedAddBadInput(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 1, 3, 0)
	o := testOptions(t, w)
	o.AllowPrivate = []string{"127.0.0.11/32"} // the web's address, and no other private range
	o.Revisit.Enabled = false
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	other := newMiniWeb(t, 2, 2, 0) // 127.0.0.11 and .12: .12 stays blocked
	cases := []struct {
		url, wantErr string
	}{
		{"http//no-scheme", "is not a URL to crawl"},
		{"ftp://127.0.0.11/x", "is not a URL to crawl"},
		{"http://10.1.2.3/", "loopback/private/link-local targets are blocked"},
		{"http://" + other.hosts[1] + "/p/0", "loopback/private/link-local targets are blocked"},
		{"http://" + w.hosts[0] + "/p/0", "is already in this crawl"},
	}
	before := e.Stats().URLsQueued
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			_, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: c.url})
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "nothing queued") {
				t.Fatalf("seed add %s: %v, want %q and \"nothing queued\"", c.url, err, c.wantErr)
			}
		})
	}
	if got := e.Stats().URLsQueued; got != before {
		t.Errorf("refused seeds queued %d URLs", got-before)
	}
	good := "http://" + other.hosts[0] + "/p/0" // same address as the web, another port
	if msg, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: good}); err != nil || !strings.Contains(msg, "queued") {
		t.Fatalf("good seed: %q %v", msg, err)
	}
	waitFor(t, "the added seed fetched", func() bool { return other.hits.Load() >= 1 })
}

// Steering changes are kept in the store: a restart on the same database, with the
// same config, has the site, the keywords and the budget the operator set, and a
// removed site stays removed.
func TestSteeringSurvivesRestart(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	o.Sites = o.Sites[:1] // harbor only; chirp comes from the console
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	steps := []string{
		"site add social chirp http://" + w.social + "/search?q={keyword}&page={page} flood",
		"keyword add chirp storm surge",
		"keyword rm chirp Storm SURGE", // keywords are named regardless of case
		"keyword add chirp storm surge",
		"keyword add harbor library",
		"keyword rm harbor 台风",
		"budget harbor 40",
		"site add news http://127.0.0.33:9/",
	}
	for _, line := range steps {
		s, err := steer.Parse(strings.Fields(line))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Steer(s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	// The new keyword's searches are fetched at once, not at the next round.
	waitFor(t, "storm surge searched", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.hits["/search?q=storm+surge&page=2"] > 0
	})
	for line, want := range map[string]string{
		"site rm 127.0.0.32":                          `no site named "127.0.0.32"`,
		"site add news http://" + w.social + "/other": `is already crawled as site "chirp"`,
		"keyword add chirp flood":                     `already has keyword "flood"`,
		"keyword add chirp Flood":                     `already has keyword "flood" (keywords match regardless of case)`,
		"keyword rm harbor typhoon":                   `harbor has no keyword "typhoon"`,
	} {
		s, _ := steer.Parse(strings.Fields(line))
		if _, err := e.Steer(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
	// A budget given by a declared site's domain is that site's: one budget, not two
	// counting the same pages under two names.
	socialHost, _, _ := strings.Cut(w.social, ":")
	if msg, err := e.Steer(steer.Change{Op: steer.Budget, Site: socialHost, N: 70}); err != nil || !strings.Contains(msg, "budget of chirp: 70 pages per round") {
		t.Errorf("budget %s 70: %q, %v; want chirp's budget", socialHost, msg, err)
	}
	if msg, err := e.Steer(steer.Change{Op: steer.Budget, Site: "nosuch.example", N: 5}); err != nil || !strings.Contains(msg, "no declared site") {
		t.Errorf("budget nosuch.example 5: %q, %v; want it accepted, saying no site is declared by that name", msg, err)
	}
	// Accepted and refused changes are both kept in the store's event log (the
	// console's status line is gone at the next key).
	waitFor(t, "steering kept in the store's events", func() bool {
		evs, err := e.st.RecentEvents(200)
		if err != nil {
			t.Fatal(err)
		}
		var accepted, refused bool
		for _, ev := range evs {
			accepted = accepted || strings.Contains(ev.Msg, `steering: keyword "library" added to harbor`)
			refused = refused || strings.Contains(ev.Msg, `steering refused: keyword add chirp Flood: keyword add: chirp already has keyword "flood"`)
		}
		return accepted && refused
	})
	// A name with a space could be added but never steered (commands split on
	// spaces): refused.
	spaced := steer.Change{Op: steer.SiteAdd, Kind: config.SiteSocial, Site: "bad name", Search: "http://" + w.social + "/search?q={keyword}&page={page}", Keywords: []string{"x"}}
	if _, err := e.Steer(spaced); err == nil || !strings.Contains(err.Error(), "has a space") {
		t.Errorf("site add social with the name %q: %v, want it refused for its space", spaced.Site, err)
	}
	before := sitesByName(e.Snapshot().Sites)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e2 := startEngine(t, o) // same config: harbor only
	after := sitesByName(e2.Snapshot().Sites)
	for _, name := range []string{"harbor", "chirp"} {
		b, a := before[name], after[name]
		if a == nil {
			t.Fatalf("site %s gone after the restart (sites %v)", name, keys(after))
		}
		if !slices.Equal(a.Keywords, b.Keywords) {
			t.Errorf("%s keywords after restart %v, before %v", name, a.Keywords, b.Keywords)
		}
	}
	if got := after["harbor"].Keywords; !slices.Equal(got, []string{"library", "flood"}) {
		t.Errorf("harbor keywords %v, want [library flood] (台风 removed)", got)
	}
	if got := after["chirp"].Keywords; !slices.Equal(got, []string{"flood", "storm surge"}) {
		t.Errorf("chirp keywords %v", got)
	}
	if after["harbor"].Budget != 40 {
		t.Errorf("harbor budget %d after restart, want 40", after["harbor"].Budget)
	}
	if after["chirp"].Stored == 0 {
		t.Errorf("chirp stored nothing before the restart, or the count was not restored")
	}
	if len(after) != 3 {
		t.Errorf("sites after restart %v, want harbor, chirp and the news site added", keys(after))
	}
}

func sitesByName(v *view.SitesView) map[string]*view.SiteRow {
	out := map[string]*view.SiteRow{}
	if v == nil {
		return out
	}
	for i := range v.Sites {
		out[v.Sites[i].Name] = &v.Sites[i]
	}
	return out
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A page budget holds URLs back, deferred and counted under its reason, never
// dropped; raising the budget brings them back at once.
func TestBudgetHoldsBackAndRaisingBringsBack(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 1, 30, 0)
	o := testOptions(t, w)
	o.Revisit.Enabled = false
	o.Budgets.SiteRound = 5
	site := frontier.Site(strings.Split(w.hosts[0], ":")[0])
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	if n := e.Snapshot().Totals.PagesStored; n > 5 {
		t.Fatalf("%d pages stored under a budget of 5 per round", n)
	}
	if skippedAs(e, front.SkipBudgetSite) == 0 {
		t.Fatalf("nothing counted as held back by the budget: %v", e.Stats().Errors)
	}
	waitFor(t, "held-back URLs deferred (kept in the store)", func() bool { return e.Snapshot().Totals.Deferred > 0 })
	msg, err := e.Steer(steer.Change{Op: steer.Budget, Site: site, N: 0})
	if err != nil || !strings.Contains(msg, "come back") {
		t.Fatalf("raise budget of %s: %q %v", site, msg, err)
	}
	waitFor(t, "every page stored once the budget is lifted", func() bool {
		return e.Snapshot().Totals.PagesStored == 30
	})
}

// A calendar trap (every page links to the next month, without end) stops at the
// guard's window instead of running forever, and the links held back are counted.
func TestTrapGuardEndsCalendarTrap(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.41:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.41: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var y, m int
		if _, err := fmt.Sscanf(r.URL.Path, "/cal/%d/%d/", &y, &m); err != nil {
			y, m = time.Now().Year(), 1
		}
		if m++; m > 12 {
			y, m = y+1, 1
		}
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(rw, `<html><body><p>Events</p><a href="/cal/%04d/%02d/">next month</a></body></html>`, y, m)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Seeds = []string{"http://" + ln.Addr().String() + "/"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	o.Traps.CalendarYears = 2
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	if got := skippedAs(e, frontier.TrapCalendar); got != 1 {
		t.Errorf("trap_calendar counted %d, want 1 (the link past the window)", got)
	}
	if n := e.Snapshot().Totals.PagesStored; n > 12*3+2 {
		t.Errorf("%d calendar pages stored: the guard did not stop the series", n)
	}
}

// skippedAs is how many URLs (links, for the trap guards) were held back under kind:
// skips, counted apart from errors (skips.go).
func skippedAs(e *Engine, kind string) int64 {
	if n := e.Stats().Errors[kind]; n > 0 {
		panic(fmt.Sprintf("%s counted as an error (%d), not a skip", kind, n))
	}
	return e.Stats().Skipped[kind]
}
