package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// miniWeb is a small multi-host web for engine tests: hosts are loopback IPs
// (127.0.0.11, .12, ...), so no DNS is involved. Page /p/N links to /p/2N+1 and
// /p/2N+2 below `pages`, to the same page number on the next host, and to
// /private/N, which robots.txt disallows.
type miniWeb struct {
	hosts   []string // "127.0.0.11:port"
	pages   int
	hits    atomic.Int64
	mu      sync.Mutex
	inHost  map[string]int // requests in flight per host
	hitsIn  map[string]int // page requests per host (robots.txt not counted)
	overlap atomic.Int64   // times two requests to one host were in flight at once
	delay   time.Duration
}

func newMiniWeb(t *testing.T, nHosts, pages int, delay time.Duration) *miniWeb {
	t.Helper()
	w := &miniWeb{pages: pages, inHost: map[string]int{}, delay: delay}
	for i := 0; i < nHosts; i++ {
		w.hosts = append(w.hosts, serveOn(t, fmt.Sprintf("127.0.0.%d", 11+i), w))
	}
	return w
}

// serveOn serves h on a free port of the loopback address ip until the test ends
// and returns its "ip:port"; a box whose loopback /8 is not routed skips the test.
func serveOn(t *testing.T, ip string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s (loopback /8 not routed here): %v", ip, err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func (w *miniWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.inHost[r.Host]++
	if w.inHost[r.Host] > 1 {
		w.overlap.Add(1)
	}
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.inHost[r.Host]--
		w.mu.Unlock()
	}()
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(rw, "User-agent: *\nDisallow: /private/\n")
		return
	}
	w.hits.Add(1)
	w.mu.Lock()
	if w.hitsIn == nil { // a miniWeb built without newMiniWeb
		w.hitsIn = map[string]int{}
	}
	w.hitsIn[r.Host]++
	w.mu.Unlock()
	time.Sleep(w.delay)
	var n int
	if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil {
		http.NotFound(rw, r)
		return
	}
	hi := 0
	for i, h := range w.hosts {
		if h == r.Host {
			hi = i
		}
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<html><body>")
	for _, c := range []int{2*n + 1, 2*n + 2} {
		if c < w.pages {
			fmt.Fprintf(&b, `<a href="/p/%d">child</a>`, c)
		}
	}
	fmt.Fprintf(&b, `<a href="http://%s/p/%d">next host</a><a href="/private/%d">x</a>`, w.hosts[(hi+1)%len(w.hosts)], n, n)
	b.WriteString("</body></html>")
	fmt.Fprint(rw, b.String())
}

// hostLoad is host's page requests so far and those in flight now.
func (w *miniWeb) hostLoad(host string) (hits, inFlight int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hitsIn[host], w.inHost[host]
}

// want is every page the crawl must store.
func (w *miniWeb) want() []string {
	var out []string
	for _, h := range w.hosts {
		for n := 0; n < w.pages; n++ {
			out = append(out, fmt.Sprintf("http://%s/p/%d", h, n))
		}
	}
	sort.Strings(out)
	return out
}

func testOptions(t *testing.T, w *miniWeb) config.Options {
	o := testDefaults()
	o.Seeds = []string{"http://" + w.hosts[0] + "/p/0"}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = false
	o.Lanes.Max = 4
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.HostRate = 0
	// A loopback web's response time is this box's load, not a server's: with the
	// default politeness a loaded box's slow answers read as a sinking host, whose
	// back-off starts at a minute and doubles with each further slow answer (six
	// answers of a second or two: nine minutes). Politeness tests set their own.
	o.Politeness = config.FixedPoliteness()
	return o
}

// testDefaults are enginetest.DefaultOptions (this package's tests cannot import
// it): the Bloom filter sized for 100,000 URLs, not the default's ten million (12 MB
// zeroed again for each of the hundreds of crawls the tests start). Set before the
// test's own changes, so that a size the test sets is the one it gets.
func testDefaults() config.Options {
	o := config.DefaultOptions()
	o.Dedupe.ExpectedURLs = 100_000
	return o
}

// startEngine starts a crawl with o, closed with the test.
func startEngine(t *testing.T, o config.Options) *Engine {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// patience is how long a wait lasts before it fails the test (enginetest.Patience).
const patience = 4 * time.Minute

// crawlPatience is the least waitDone waits (enginetest.CrawlPatience): the time a
// test names is what its crawl takes on an idle box, and a loaded two-core box
// running the whole suite may take several times that; the guard must never be
// what decides a test.
const crawlPatience = 6 * time.Minute

// waitDone waits until e has nothing left to fetch, failing the test after d or
// crawlPatience, whichever is longer.
func waitDone(t *testing.T, e *Engine, d time.Duration) {
	t.Helper()
	d = max(d, crawlPatience)
	select {
	case <-e.Done():
	case <-time.After(d):
		t.Fatalf("crawl not done after %v: %+v\n%s", d, e.Stats(), stuckState(e))
	}
}

// stuckState says what keeps a crawl from ending: the front's and the crew's
// counts the idle check reads, and each lane's status, task and host gap (a task
// in a lane's hand waiting out a back-off, or a queue no lane serves).
func stuckState(e *Engine) string {
	snap := e.Snapshot()
	e.mu.Lock()
	waiting, inHand := e.crew.Counts()
	b := fmt.Sprintf("front busy %v, spilled %v; crew waiting %d, in hand %d; board lanes %d, pending %d; paused %v",
		e.fr.Busy(), e.fr.Spilled(), waiting, inHand, e.lanes.Board.Len(), e.lanes.Board.Pending(), e.paused)
	e.mu.Unlock()
	for _, l := range snap.Lanes {
		b += fmt.Sprintf("\n  lane %d %v hosts %v queued %d current %s next %v gap %v (%s)",
			l.ID, l.Status, l.Hosts, l.Queued, l.Current, l.NextFetch.Format(time.TimeOnly), l.Gap, l.GapWhy)
	}
	return b
}

// withStore opens the store of a closed crawl at path, hands it to f and closes it
// again; a close that fails (what f wrote would be lost) fails the test.
func withStore(t *testing.T, path string, f func(st *store.Store)) {
	t.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed { // f failed the test
			st.Close()
		}
	}()
	f(st)
	closed = true
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// storedURL reads url's row from the store at path, opened for it and closed again.
func storedURL(t *testing.T, path, url string) (u store.URL, err error) {
	t.Helper()
	withStore(t, path, func(st *store.Store) { u, err = st.URLState(url) })
	return u, err
}

func storedPages(t *testing.T, path string) (urls []string) {
	t.Helper()
	withStore(t, path, func(st *store.Store) {
		var err error
		if urls, err = st.PageURLs(); err != nil {
			t.Fatal(err)
		}
		if ok, err := st.IntegrityCheck(); err != nil || ok != "ok" {
			t.Fatalf("integrity_check: %q %v", ok, err)
		}
	})
	return urls
}

func TestCrawlStoresEveryReachablePageOnce(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 3, 40, 0)
	o := testOptions(t, w)
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	got := storedPages(t, o.DB)
	if want := w.want(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stored %d pages, want %d", len(got), len(want))
	}
	st := e.Stats()
	if st.PagesFetched != int64(len(got)) || w.hits.Load() != int64(len(got)) {
		t.Fatalf("fetched %d (server saw %d) for %d pages: every page exactly once", st.PagesFetched, w.hits.Load(), len(got))
	}
	if st.RobotsSkips == 0 || st.Skipped["robots_disallowed"] != st.RobotsSkips || st.Errors["robots_disallowed"] != 0 {
		t.Fatalf("the /private/ links must be skipped by robots.txt without a request: %+v", st)
	}
	if st.LanesPeak > o.Lanes.Max || st.LanesPeak < 2 {
		t.Fatalf("lanes peak %d, want 2..%d", st.LanesPeak, o.Lanes.Max)
	}
	if n := w.overlap.Load(); n != 0 {
		t.Fatalf("%d times two requests to one host overlapped: M1 lanes must fetch a host serially", n)
	}
	if st.Sizing != nil || e.Snapshot().Sizing != nil {
		t.Fatalf("no sites and no rotation: no sizing estimate, got %+v", st.Sizing)
	}
}

func TestQueueSpillsToStoreAndPagesBackIn(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 2, 400, 0)
	o := testOptions(t, w)
	o.QueueMemory = 100 // far fewer than the 800 pages
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, 0
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	e.Close()
	if got := storedPages(t, o.DB); len(got) != 800 {
		t.Fatalf("stored %d pages with a 100-URL queue in memory, want all 800", len(got))
	}
}

// TestBloomFalsePositivesLoseNoPage runs a crawl with a Bloom filter far too small for
// it: the filter claims many new links, the store settles each, and every page is still
// crawled; the stats object says how many the store rescued.
//
// The LRU is the default's (16,384), which holds every URL of this crawl, so that a
// claim is a URL's first sight and the count below is exact. With an LRU too small to
// hold a URL between two pages that link it, its second sight is a claim too, and when
// the claim's batch commits before the first sight's, that one insert is counted
// twice (new and rescued): seen once at load 9 (1,602 counted for 1,600 URLs).
func TestBloomFalsePositivesLoseNoPage(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 2, 400, 0)
	o := testOptions(t, w)
	o.Dedupe = config.DedupeOptions{ExpectedURLs: 1000, FalsePositive: 0.5, LRUSize: 16384}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, 0
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	e.Close()
	if got := storedPages(t, o.DB); len(got) != 800 {
		t.Fatalf("stored %d pages, want all 800", len(got))
	}
	d := e.Stats().Dedupe
	if d == nil || d.Checks == 0 || d.Checks != d.New+d.Recent+d.Maybe {
		t.Fatalf("dedupe stats %+v: checks must be new+recent+maybe", d)
	}
	if d.FalsePositives == 0 || d.StoreChecks < d.FalsePositives || d.StoreChecks != int64(d.Maybe) {
		t.Fatalf("dedupe stats %+v: an overfull filter must send maybes to the store and some must be new", d)
	}
	// Every URL in the store came in as a New verdict (seeds included) or a rescued
	// false positive: the count is exact, not an estimate.
	st, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(d.New) + d.FalsePositives; got != c.URLs {
		t.Fatalf("new %d + rescued %d = %d, but the store holds %d URLs", d.New, d.FalsePositives, got, c.URLs)
	}
	t.Logf("dedupe: %d checks, %d maybe, %d of them new URLs the store let in", d.Checks, d.Maybe, d.FalsePositives)
}

func TestStopAndResumeLosesNothing(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 2, 60, 2*time.Millisecond)
	o := testOptions(t, w)
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(patience)
	for e.Stats().PagesStored < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	e.Close() // graceful stop mid-crawl
	first := e.Stats().PagesStored
	if first >= 120 {
		t.Fatalf("crawl finished before the stop (%d pages); make the web bigger", first)
	}
	o.Seeds = nil // resume from the store alone
	e2 := startEngine(t, o)
	waitDone(t, e2, 30*time.Second)
	e2.Close()
	if got := storedPages(t, o.DB); len(got) != 120 {
		t.Fatalf("after stop+resume %d pages stored, want 120", len(got))
	}
	if w.hits.Load() > 120+int64(o.Lanes.Max) {
		t.Fatalf("server saw %d page requests for 120 pages: resume refetched stored pages", w.hits.Load())
	}
}

// A paused crawl sends nothing, and its rate reads 0 pages/s at once: it read the
// last five seconds' mean (32.8 pages/s beside PAUSED in the header) until the
// window passed.
func TestPauseHoldsEveryLane(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 3, 2000, time.Millisecond)
	o := testOptions(t, w)
	o.Lanes.DelayMin, o.Lanes.DelayMax = 5*time.Millisecond, 10*time.Millisecond
	e := startEngine(t, o)
	waitFor(t, "pages to be fetched at a rate", func() bool { return w.hits.Load() > 10 && e.Snapshot().PagesPerSec > 0 })
	e.Pause()
	if s := e.Snapshot(); s.State != view.StatePaused || s.PagesPerSec != 0 {
		t.Fatalf("state %s, %.2f pages/s after Pause, want PAUSED at 0 pages/s", s.State, s.PagesPerSec)
	}
	waitFor(t, "every lane to reach the pause", func() bool {
		for _, l := range e.Snapshot().Lanes {
			if l.Status != view.LanePaused {
				return false
			}
		}
		return true
	})
	before := w.hits.Load()
	time.Sleep(100 * time.Millisecond) // observe: nothing may leave while paused
	if after := w.hits.Load(); after != before {
		t.Fatalf("%d requests left while paused", after-before)
	}
	e.Resume()
	waitFor(t, "fetching to resume", func() bool { return w.hits.Load() > before })
}

// TestPauseLaneAndHost: a paused host gets no request while the rest of the
// crawl goes on, is listed paused, and its tasks go out once it is resumed; a
// missing lane and lanes 0 are refused.
func TestPauseLaneAndHost(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 2, 100, time.Millisecond)
	o := testOptions(t, w)
	o.Lanes.DelayMin, o.Lanes.DelayMax = 2*time.Millisecond, 4*time.Millisecond
	e := startEngine(t, o)
	waitFor(t, "a lane", func() bool { return len(e.Snapshot().Lanes) >= 1 })
	// The second host: its pages are linked from the seed host's, which the crawl
	// goes on fetching while it is paused.
	held, other := w.hosts[1], w.hosts[0]
	host := strings.Split(held, ":")[0]
	if err := e.PauseHost(host, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "lanes on the paused host to hold", func() bool {
		for _, l := range e.Snapshot().Lanes {
			if strings.Contains(l.Current, held) && l.Status != view.LanePaused {
				return false
			}
		}
		_, inFlight := w.hostLoad(held)
		return inFlight == 0
	})
	// Held, the host gets nothing more while the seed host's whole site (each of
	// its pages linking to the held host's) is fetched: an event, not a span of
	// the clock. A hold that only listed the host let its lane go on fetching.
	before, _ := w.hostLoad(held)
	waitFor(t, "the other host's pages fetched", func() bool {
		n, _ := w.hostLoad(other)
		return n >= w.pages
	})
	if after, _ := w.hostLoad(held); after != before {
		t.Fatalf("%d requests reached the paused host %s while the crawl went on", after-before, host)
	}
	if err := e.PauseLane(9999, true); err == nil {
		t.Fatal("pausing a lane that does not exist must fail")
	}
	if err := e.SetMaxLanes(0); err == nil {
		t.Fatal("lanes 0 must be refused")
	}
	if s := e.Snapshot(); len(s.PausedHosts) != 1 || s.PausedHosts[0] != host {
		t.Fatalf("paused hosts %v", s.PausedHosts)
	}
	e.PauseHost(host, false)
	// A guard, not a pace: the held host's site (a hundred pages, one lane once the
	// host is the only one left) must finish once the host is resumed, and a loaded
	// box with the package's other tests beside it fetched 9 pages a second.
	waitDone(t, e, 3*time.Minute)
	if n, _ := w.hostLoad(held); n < w.pages {
		t.Fatalf("the resumed host got %d page requests, want its %d pages", n, w.pages)
	}
}

func TestBadSeedsAndOptions(t *testing.T) {
	t.Parallel()
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "c.db")
	o.Seeds = []string{"mailto:x@example.com", "::not a url"}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.Start()
	if err == nil || !strings.Contains(err.Error(), "mailto:x@example.com") {
		t.Fatalf("only bad seeds: want an error naming them, got %v", err)
	}
	bad := testDefaults()
	bad.DB = o.DB
	bad.Lanes.Max = 0
	if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "--lanes") {
		t.Fatalf("lanes 0: want an error naming --lanes, got %v", err)
	}
	bad = testDefaults()
	bad.DB = o.DB
	bad.Egress = []string{"carrier-pigeon"}
	if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "carrier-pigeon") {
		t.Fatalf("bad egress: want an error naming it, got %v", err)
	}
}

// waitFor polls cond until it holds, failing after a deadline generous enough for
// a loaded box (enginetest.Patience: the same guard as the tests outside the
// package, which this package's own tests cannot import).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// RFC 9309: an unreachable robots.txt (5xx) disallows the site for now; its URLs are
// deferred until robots.txt is tried again, not failed (nothing crawled is lost).
func TestUnreachableRobotsDefersTheSite(t *testing.T) {
	t.Parallel()
	seed, pages := RobotsDownSite(t)
	o := testDefaults()
	o.Seeds = []string{seed}
	o.DB = filepath.Join(t.TempDir(), "c.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.HostRate = 0
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	e.Close()
	st := e.Stats()
	if pages.Load() != 0 || st.Deferred != 1 || st.Errors["robots_unreachable"] != 1 {
		t.Fatalf("pages fetched %d, deferred %d, robots_unreachable %d: want 0, 1, 1", pages.Load(), st.Deferred, st.Errors["robots_unreachable"])
	}
	// The end-of-crawl summary names the URL, as it does for every other kind.
	if ex := st.Examples["robots_unreachable"]; len(ex) != 1 || ex[0] != seed {
		t.Errorf("robots_unreachable examples %q, want [%s]", ex, seed)
	}
	u, err := storedURL(t, o.DB, seed)
	if err != nil || u.State != store.Deferred {
		t.Fatalf("seed state %v (%v), want deferred", u.State, err)
	}
}
