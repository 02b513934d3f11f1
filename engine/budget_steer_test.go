package engine

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/store"
)

// hubWeb serves hosts whose /p/0 links to /p/1 ... /p/pages-1, so every page of a
// host is found by its first fetch; any /p/N is served, and pages served are
// counted per host (robots.txt apart).
type hubWeb struct {
	hosts  []string // host:port
	pages  int
	mu     sync.Mutex
	served map[string]int // host (no port) -> pages served
	// hold, when set, keeps every request for a page past /p/0 waiting until it is
	// closed (counted as served when it arrives); arrived hears of each.
	hold    chan struct{}
	arrived chan string
}

func newHubWeb(t *testing.T, nHosts, pages int) *hubWeb {
	t.Helper()
	w := &hubWeb{pages: pages, served: map[string]int{}}
	for i := 0; i < nHosts; i++ {
		w.hosts = append(w.hosts, serveOn(t, fmt.Sprintf("127.0.0.%d", 51+i), w))
	}
	return w
}

func (w *hubWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(rw, "User-agent: *\nAllow: /\n")
		return
	}
	var n int
	if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil {
		http.NotFound(rw, r)
		return
	}
	host, _, _ := net.SplitHostPort(r.Host)
	w.mu.Lock()
	w.served[host]++
	w.mu.Unlock()
	if w.hold != nil && n > 0 {
		select {
		case w.arrived <- host:
		default:
		}
		<-w.hold
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<html><body><p>page %d of %s</p>", n, host)
	if n == 0 {
		for i := 1; i < w.pages; i++ {
			fmt.Fprintf(&b, `<a href="/p/%d">p%d</a>`, i, i)
		}
	}
	b.WriteString("</body></html>")
	fmt.Fprint(rw, b.String())
}

func (w *hubWeb) count(i int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.served[w.host(i)]
}

// servedOn is the pages served for a host name (a name resolved to one of the
// web's addresses).
func (w *hubWeb) servedOn(host string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.served[host]
}

// host is the i-th host's name, without its port.
func (w *hubWeb) host(i int) string { return strings.Split(w.hosts[i], ":")[0] }

func hubOptions(t *testing.T, w *hubWeb) config.Options {
	o := testDefaults()
	for _, h := range w.hosts {
		o.Seeds = append(o.Seeds, "http://"+h+"/p/0")
	}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = false
	o.Lanes.Max = 4
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	return o
}

// presetSteering writes steering changes into a new store, as an earlier run's
// console would have left them.
func presetSteering(t *testing.T, db string, changes ...string) {
	t.Helper()
	var log []steer.Change
	for _, line := range changes {
		s, err := steer.Parse(strings.Fields(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		log = append(log, s)
	}
	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	withStore(t, db, func(st *store.Store) { st.SetMeta(steer.Meta, data) })
}

// Each form of :budget caps what it names — a site's or a host's pages, per round
// or in total — holding the rest back as skipped under its own reason while the
// other host is crawled in full; the budget is kept in the store (replayed here from
// an earlier run's list), and lifting it brings the held URLs back.
func TestSteerBudgetForms(t *testing.T) {
	t.Parallel()
	const pages, cap = 12, 3
	cases := []struct {
		set, lift string // %s: the capped host
		kind      string
	}{
		{"budget %s 3", "budget %s 0", front.SkipBudgetSite},
		{"budget %s 3 total", "budget %s 0 total", front.SkipBudgetSite},
		{"budget host %s 3", "budget host %s 0", front.SkipBudgetHost},
		{"budget host %s 3 total", "budget host %s 0 total", front.SkipBudgetHost},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.set, "%s", "HOST"), func(t *testing.T) {
			w := newHubWeb(t, 2, pages)
			o := hubOptions(t, w)
			capped := w.host(0)
			presetSteering(t, o.DB, fmt.Sprintf(c.set, capped))
			e := startEngine(t, o)
			waitDone(t, e, 30*time.Second)
			if got := w.count(0); got != cap {
				t.Errorf("%s served %d pages under a budget of %d", capped, got, cap)
			}
			if got := w.count(1); got != pages {
				t.Errorf("the other host served %d pages, want all %d (the budget is %s's alone)", got, pages, capped)
			}
			other := map[string]string{front.SkipBudgetSite: front.SkipBudgetHost, front.SkipBudgetHost: front.SkipBudgetSite}[c.kind]
			if n := skippedAs(e, c.kind); n < pages-cap {
				t.Errorf("%d URLs skipped as %s, want at least %d", n, c.kind, pages-cap)
			}
			if n := skippedAs(e, other); n != 0 {
				t.Errorf("%d URLs skipped as %s: the wrong budget held them", n, other)
			}
			s, err := steer.Parse(strings.Fields(fmt.Sprintf(c.lift, capped)))
			if err != nil {
				t.Fatal(err)
			}
			msg, err := e.Steer(s)
			if err != nil || !strings.Contains(msg, fmt.Sprintf("%d held-back URLs come back", pages-cap)) {
				t.Fatalf("%s: %q %v", s, msg, err)
			}
			waitFor(t, "every held page fetched once the budget is lifted", func() bool { return w.count(0) == pages })
		})
	}
}

// A round budget admits its pages again each round; a total budget holds the rest
// back for good. The test moves the crawl's clock a round ahead at a time, so each
// round holds what it should whatever the load: the first holds 4 of each host's 7
// pages, the host under a round budget of 3 gets all its pages over the rounds
// while the one under a total budget of 3 stays at 3.
func TestBudgetRoundAgainTotalNot(t *testing.T) {
	t.Parallel()
	const pages, every = 7, time.Hour
	w := newHubWeb(t, 2, pages)
	o := hubOptions(t, w)
	o.Rounds.Every = every // never ends by itself in the test: the clock below ends it
	var ahead atomic.Int64
	o.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	presetSteering(t, o.DB, "budget host "+w.host(0)+" 3", "budget host "+w.host(1)+" 3 total")
	e := startEngine(t, o)
	first := int64(2 * (pages - 3)) // each host's hub and 2 links fetched, 4 links held
	waitFor(t, "each host's first round of 3 pages and 4 held", func() bool {
		return w.count(0) == 3 && w.count(1) == 3 && skippedAs(e, front.SkipBudgetHost) == first
	})
	for round := 2; w.count(0) < pages; round++ {
		if round > 4 {
			t.Fatalf("after %d rounds the round-budgeted host served %d of %d pages", round-1, w.count(0), pages)
		}
		want := min(3*round, pages)
		ahead.Add(int64(every))
		waitFor(t, fmt.Sprintf("round %d's pages of the round-budgeted host", round), func() bool { return w.count(0) == want })
	}
	if got := w.count(1); got > 3 {
		t.Errorf("host under a total budget of 3 served %d pages", got)
	}
	if n := skippedAs(e, front.SkipBudgetHost); n < first {
		t.Errorf("%d URLs counted as held back by a host budget, want at least %d (each host's first hold)", n, first)
	}
}

// A total budget set live counts what the crawl fetched before it was set (earlier
// runs and this one, from the store): a host that has had its 12 pages gets no
// thirteenth under a total of 5, while the uncapped host still does; so does the
// restarted crawl that replays the budget.
func TestBudgetTotalSetLiveCountsWhatWasFetched(t *testing.T) {
	t.Parallel()
	const pages = 12
	w := newHubWeb(t, 2, pages)
	o := hubOptions(t, w)
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	s, _ := steer.Parse(strings.Fields("budget host " + w.host(0) + " 5 total"))
	if msg, err := e.Steer(s); err != nil || !strings.Contains(msg, "5 pages in total") {
		t.Fatalf("%s: %q %v", s, msg, err)
	}
	for i := range w.hosts {
		s := steer.Change{Op: steer.SeedAdd, URL: fmt.Sprintf("http://%s/p/500", w.hosts[i])}
		if _, err := e.Steer(s); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the uncapped host's new seed fetched", func() bool { return w.count(1) == pages+1 })
	waitFor(t, "the capped host's new seed held back", func() bool { return skippedAs(e, front.SkipBudgetHost) == 1 })
	if got := w.count(0); got != pages {
		t.Errorf("capped host served %d pages, want %d: its total budget forgot what it had fetched", got, pages)
	}
	// The restarted crawl replays the budget and counts the earlier run's pages.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2 := startEngine(t, o)
	waitDone(t, e2, 30*time.Second)
	for i := range w.hosts {
		if _, err := e2.Steer(steer.Change{Op: steer.SeedAdd, URL: fmt.Sprintf("http://%s/p/501", w.hosts[i])}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the uncapped host's seed fetched after the restart", func() bool { return w.count(1) == pages+2 })
	waitFor(t, "the capped host's seed held back after the restart", func() bool { return skippedAs(e2, front.SkipBudgetHost) == 1 })
	if got := w.count(0); got != pages {
		t.Errorf("after the restart the capped host served %d pages, want %d", got, pages)
	}
}

// URLs a total budget parked stay parked across a restart (the budget is replayed),
// and lifting it in the restarted crawl brings them back: they are read from the
// store, not only from what this run held back.
func TestBudgetTotalLiftedAfterRestart(t *testing.T) {
	t.Parallel()
	const pages, cap = 8, 3
	w := newHubWeb(t, 2, pages)
	o := hubOptions(t, w)
	presetSteering(t, o.DB, fmt.Sprintf("budget host %s %d total", w.host(0), cap))
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.count(0); got != cap {
		t.Fatalf("%d pages served under a total of %d", got, cap)
	}
	e2 := startEngine(t, o)
	waitDone(t, e2, 30*time.Second)
	if got := w.count(0); got != cap {
		t.Fatalf("the restart fetched %d pages past the total budget it replayed", got-cap)
	}
	s, _ := steer.Parse(strings.Fields("budget host " + w.host(0) + " 0 total"))
	msg, err := e2.Steer(s)
	if err != nil || !strings.Contains(msg, fmt.Sprintf("%d held-back URLs come back", pages-cap)) {
		t.Fatalf("%s: %q %v", s, msg, err)
	}
	waitFor(t, "the pages parked by the first run fetched", func() bool { return w.count(0) == pages })
}

// A host budget for a host the crawl has not seen is taken (a budget waits for a
// host discovery may reach later, unlike a pause, which is refused), and its answer
// names the host and says no URL of it was seen, so a typo does not pass for a cap.
func TestBudgetOfAnUnseenHostSaysSo(t *testing.T) {
	t.Parallel()
	w := newHubWeb(t, 1, 2)
	e := startEngine(t, hubOptions(t, w))
	for host, unseen := range map[string]bool{"nosuch.example": true, w.host(0): false} {
		s, err := steer.Parse(strings.Fields("budget host " + host + " 5"))
		if err != nil {
			t.Fatal(err)
		}
		msg, err := e.Steer(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := strings.Contains(msg, "no URL of host "+host+" seen yet"); got != unseen {
			t.Errorf("%s answered %q; says the host is unseen: %v, want %v", s, msg, got, unseen)
		}
	}
	waitDone(t, e, 30*time.Second)
}
