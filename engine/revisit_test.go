package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Pages are refetched on schedule and only real changes count: a page is compared
// with its last fetch and counted changed exactly when the sandbox changed it, never
// for its churning boilerplate (clock, rotating ad, counters). Conditional GET is off
// so that every refetch is fingerprinted.
func TestRevisitRefetchesOnScheduleAndSeesOnlyRealChanges(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 3) // English, Chinese and Russian sites
	o := revisitOptions(t, sb)
	o.Revisit.ConditionalGet = false
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	// Enough refetches, and among them enough unchanged and changed intervals for the
	// rates below to mean something: on a loaded box each refetch comes later, and
	// more of its intervals hold a change. (The lanes' answers in flight at the close
	// may not be recorded: a margin of one a lane.)
	target := refetchTarget(150, 60)
	const minUnchanged, minChanged = 30, 15
	waitFor(t, "refetches", func() bool {
		if e.Stats().Revisit.Refetches < target {
			return false
		}
		unchanged, changed := scorable(sb)
		return unchanged >= minUnchanged+o.Lanes.Max && changed >= minChanged+o.Lanes.Max
	})
	e.Close()
	st := e.Stats().Revisit
	rows := revisitRows(t, o.DB)
	if len(rows) < 20 {
		t.Fatalf("%d pages with revisit state; the test web should give about 30", len(rows))
	}

	var refetches, changes int64
	truth := truthFetches(sb)
	for u, p := range rows {
		refetches += int64(p.Fetches - 1)
		changes += int64(p.X - 1)
		if p.Class != sb.Web().HostClass(front.HostOf(u)) {
			t.Errorf("%s: class %q, the sandbox says %q", u, p.Class, sb.Web().HostClass(front.HostOf(u)))
		}
		if sb.Web().ChangeRate(u) == 0 && p.X != 1 {
			t.Errorf("%s never changes, but %d changes were counted (boilerplate churn taken for a change)", u, p.X-1)
		}
		// On schedule: never before the interval the state asked for (at least
		// min_interval, the initial delay for the second fetch).
		reqs := truth[u]
		for i := 1; i < len(reqs); i++ {
			least := o.Revisit.MinInterval
			if i == 1 {
				least = o.Revisit.Initial
			}
			if gap := reqs[i].Start.Sub(reqs[i-1].Start); gap < least {
				t.Errorf("%s: fetch %d came %v after the one before, before its due time (>= %v)", u, i+1, gap, least)
				for j, r := range reqs {
					t.Logf("%s: request %d at +%v, status %d", u, j+1, r.Start.Sub(reqs[0].Start), r.Status)
				}
				t.Logf("%s: state of %d fetches, history %+v", u, p.Fetches, p.History)
			}
		}
	}
	if refetches != st.Refetches || changes != st.Changes {
		t.Errorf("stats say %d refetches and %d changes; the stored states add up to %d and %d", st.Refetches, st.Changes, refetches, changes)
	}
	c := compareWithTruth(t, sb, rows)
	t.Logf("%d pages, %d refetches: %d unchanged intervals (%d called changed), %d changed (%d missed), %d ambiguous",
		len(rows), refetches, c.unchanged, c.falseChanges, c.changed, c.missed, c.ambiguous)
	if c.unchanged < minUnchanged || c.changed < minChanged {
		t.Fatalf("too few scored intervals (%d unchanged, %d changed) for the rates to mean anything", c.unchanged, c.changed)
	}
	if rate := float64(c.falseChanges) / float64(c.unchanged); rate > 0.02 {
		t.Errorf("false change rate %.3f (%d of %d unchanged intervals), want <= 0.02", rate, c.falseChanges, c.unchanged)
	}
	if rate := float64(c.missed) / float64(c.changed); rate > 0.1 {
		t.Errorf("missed %d of %d real changes (%.3f), want <= 0.1", c.missed, c.changed, rate)
	}
}

// With conditional GET on, a page that did not change is answered 304 (If-None-Match
// with the stored ETag): unchanged at the cost of a header, the stored page kept.
func TestRevisitConditionalGetTurnsUnchangedPagesInto304s(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 8)
	o := revisitOptions(t, sb)
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	target := refetchTarget(120, 50)
	waitFor(t, "refetches", func() bool { return e.Stats().Revisit.Refetches >= target })
	e.Close()
	st := e.Stats().Revisit
	rows := revisitRows(t, o.DB)
	truth := truthFetches(sb)

	var unchanged, not304, changed, wrong304, answered304 int
	for u, p := range rows {
		reqs := truth[u]
		changes := sb.Truth().Changes(u)
		for i := 1; i < len(reqs); i++ {
			if reqs[i].Status == 304 {
				answered304++
			}
			if i >= p.Fetches {
				break // cut short by the stop: never observed
			}
			switch judgeInterval(changes, reqs[i-1], reqs[i]) {
			case truthUnchanged:
				unchanged++
				if reqs[i].Status != 304 {
					not304++
				}
			case truthChanged:
				changed++
				if reqs[i].Status == 304 {
					wrong304++
				}
			}
		}
	}
	t.Logf("%d refetches: %d unchanged (%d not answered 304), %d changed; stats %+v", st.Refetches, unchanged, not304, changed, *st)
	if unchanged < 30 || changed < 10 {
		t.Fatalf("too few scored intervals (%d unchanged, %d changed)", unchanged, changed)
	}
	if wrong304 > 0 {
		t.Errorf("%d changed pages were answered 304: the conditional GET sent stale validators", wrong304)
	}
	if float64(not304) > 0.02*float64(unchanged) {
		t.Errorf("%d of %d unchanged refetches were not 304: validators missing from the request", not304, unchanged)
	}
	if st.NotModified == 0 || st.NotModified > int64(answered304) || int64(answered304)-st.NotModified > int64(o.Lanes.Max) {
		t.Errorf("stats count %d 304s, the sandbox sent %d", st.NotModified, answered304)
	}
	if st.Changes == 0 || st.Changes+st.NotModified > st.Refetches {
		t.Errorf("stats %+v: changes must be found among the 200s", *st)
	}
	// The stored pages are the last full copies, their SimHash the state's.
	withStore(t, o.DB, func(s2 *store.Store) {
		for u, p := range rows {
			pg, err := s2.Page(u)
			if err != nil || len(pg.Body) == 0 {
				t.Fatalf("%s: stored page %v (%d bytes): a 304 must keep it", u, err, len(pg.Body))
			}
			if p.HasHash && pg.SimHash != p.Hash {
				t.Errorf("%s: page SimHash %016x, revisit hash %016x", u, pg.SimHash, p.Hash)
			}
		}
	})
}

// A page past its class window is never refetched again (M2/M3), while a class
// without a window goes on being revisited.
func TestRevisitClassWindowsStopRevisits(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 3)
	o := revisitOptions(t, sb)
	const window = 1200 * time.Millisecond
	open := sb.Info().Sites[0].Class // this class keeps no window
	for _, c := range revisit.Classes {
		if c != open {
			o.Revisit.Windows[c] = window
		}
	}
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	closedAt := time.Now().Add(window)
	fetches := func() (windowed, unlimited int) {
		for u, rs := range truthFetches(sb) {
			if sb.Web().HostClass(front.HostOf(u)) == open {
				unlimited += len(rs)
			} else {
				windowed += len(rs)
			}
		}
		return
	}
	waitFor(t, "every window to close", func() bool { return time.Now().After(closedAt) })
	// Revisits queued before a window closed are still fetched (a window bounds
	// what is scheduled, not what is already in a lane): the scheduler runs on and
	// the class without a window is revisited until those have gone, however slow
	// the box, before the windowed count is taken.
	ticks := e.rv.Ticks.Load()
	_, unlimited := fetches()
	waitFor(t, "the scheduler to run on after the windows closed", func() bool {
		_, u := fetches()
		return u >= unlimited+10 && e.rv.Ticks.Load() >= ticks+20
	})
	// and no lane holds or fetches a task of a windowed host any more.
	windowedHost := func(h string) bool {
		if i := strings.LastIndex(h, ":"); i > 0 {
			h = h[:i]
		}
		return sb.Web().HostClass(h) != open
	}
	waitFor(t, "the lanes to hand back or finish the windowed hosts' tasks", func() bool {
		s := e.Snapshot()
		for _, g := range s.Groups {
			for _, h := range g.Hosts {
				if h.Tasks > 0 && windowedHost(h.Host) {
					return false
				}
			}
		}
		for _, l := range s.Lanes {
			if l.Status == view.LaneFetching && l.Current != "" && windowedHost(front.HostOf(l.Current)) {
				return false
			}
		}
		return true
	})
	windowed, unlimited := fetches()
	ticks = e.rv.Ticks.Load()
	waitFor(t, "more revisits of the class without a window", func() bool {
		_, u := fetches()
		return u >= unlimited+10 && e.rv.Ticks.Load() >= ticks+20
	})
	if w, _ := fetches(); w != windowed {
		t.Errorf("%d more fetches of pages whose class window had closed", w-windowed)
	}
	e.Close()
	rows := revisitRows(t, o.DB)
	queued := queuedURLs(t, o.DB)
	for u, p := range rows {
		inWindow := p.Class == open
		if !inWindow && !p.Next.Equal(revisit.Never) {
			t.Errorf("%s (%s): next %v after its window closed, want never", u, p.Class, p.Next)
		}
		// A revisit requeued as the crawl closed is never until it is fetched, but it
		// stands in the queue the next run resumes: parked only if it is not queued.
		if inWindow && p.Next.Equal(revisit.Never) && p.Fetches < 3 && !queued[u] {
			t.Errorf("%s (%s, no window): parked after %d fetches", u, p.Class, p.Fetches)
		}
	}
}

// queuedURLs are the URLs the store at path holds queued or in a lane's hands:
// those the next run resumes.
func queuedURLs(t *testing.T, path string) map[string]bool {
	t.Helper()
	st, urls := openPages(t, path)
	defer st.Close()
	states, err := st.URLStates(urls)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, u := range states {
		if u.State == store.Unprocessed || u.State == store.InProgress || u.State == store.Deferred {
			out[u.URL] = true
		}
	}
	return out
}

// :revisit now puts a stored page back in the queue at once, even with the scheduler
// off, and says why when it cannot.
func TestRevisitNow(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 3)
	o := revisitOptions(t, sb)
	o.Revisit.Enabled = false // only the operator revisits
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	if err := e.st.Flush(); err != nil {
		t.Fatal(err)
	}
	urls, err := e.st.PageURLs()
	if err != nil || len(urls) == 0 {
		t.Fatalf("no stored pages: %v", err)
	}
	target := urls[len(urls)/2]
	before := len(truthFetches(sb)[target])
	var disallowed string // crawled, refused by robots.txt: no stored page
	for _, p := range sb.Web().Pages() {
		if u, err := e.st.URLState(p.URL); p.Disallowed && err == nil && u.State == store.Failed {
			disallowed = p.URL
			break
		}
	}
	if disallowed == "" {
		t.Fatal("the crawl met no robots-disallowed page; the test web links /private/ pages")
	}

	tests := []struct {
		name, url, want string
	}{
		{"not a URL", "::nope", "revisit now"},
		{"not in the crawl", "http://elsewhere.example/", "not in this crawl"},
		{"never stored", disallowed, "no stored page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := e.RevisitNow(tc.url); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RevisitNow(%q) = %v, want an error saying %q", tc.url, err, tc.want)
			}
		})
	}
	e.Pause()
	if err := e.RevisitNow(target); err != nil {
		t.Fatal(err)
	}
	if err := e.RevisitNow(target); err == nil || !strings.Contains(err.Error(), "already queued") {
		t.Fatalf("second RevisitNow while the first waits: %v, want \"already queued\"", err)
	}
	if q := e.Snapshot().Revisit.Queued; q != 1 {
		t.Fatalf("revisit pane shows %d queued, want 1", q)
	}
	e.Resume()
	waitFor(t, "the refetch", func() bool { return e.Stats().Revisit.Refetches == 1 })
	if got := len(truthFetches(sb)[target]); got != before+1 {
		t.Fatalf("the sandbox saw %d requests for %s, want %d", got, target, before+1)
	}
	if s := e.Stats().Revisit; s.Requeued != 1 {
		t.Fatalf("stats %+v, want exactly the one requeue", *s)
	}
	waitFor(t, "the page to leave the queue", func() bool { return e.Snapshot().Revisit.Queued == 0 })
	if err := e.RevisitNow(target); err != nil {
		t.Fatalf("RevisitNow after the refetch: %v", err)
	}
}

// Revisit state lives in the store: a crawl stopped and started again goes on from
// every page's t, x, history and first fetch, and the estimator policy's budget
// counts the pages it had (EstimatorPolicy.Restore).
func TestRevisitStateSurvivesARestart(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 3)
	o := revisitOptions(t, sb)
	o.Revisit.Policy = revisit.PolicyEstimator
	o.Revisit.Budget = 86400            // about one visit per page per second
	o.Revisit.MaxInterval = time.Second // the estimator may give a page up; here it may not
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	waitFor(t, "refetches and changes", func() bool {
		s := e.Stats().Revisit
		return s.Refetches >= refetchTarget(60, 40) && s.Changes >= 3
	})
	e.Close()
	before := revisitRows(t, o.DB)
	tracked := 0
	for _, p := range before {
		if p.Freq > 0 {
			tracked++
		}
	}

	e2 := startEngine(t, o)
	v := e2.Snapshot().Revisit
	if v.Tracked != int64(len(before)) {
		t.Fatalf("after the restart the pane counts %d tracked pages, the store holds %d", v.Tracked, len(before))
	}
	var inClasses int64
	for _, w := range v.Windows {
		inClasses += w.Pages
	}
	if inClasses != v.Tracked {
		t.Errorf("class counts add up to %d of %d pages", inClasses, v.Tracked)
	}
	if _, pages := e2.rv.Tracker.Policy().(*revisit.EstimatorPolicy).Demand(); pages != tracked {
		t.Errorf("the estimator counts %d pages after the restart, %d had a budget share", pages, tracked)
	}
	waitFor(t, "refetches after the restart", func() bool { return e2.Stats().Revisit.Refetches >= 30 })
	e2.Close()
	after := revisitRows(t, o.DB)
	went := 0
	for u, p0 := range before {
		p1, ok := after[u]
		switch {
		case !ok:
			t.Fatalf("%s lost its revisit state in the restart", u)
		case !p1.First.Equal(p0.First):
			t.Errorf("%s: first fetch %v became %v", u, p0.First, p1.First)
		case p1.Fetches < p0.Fetches || p1.X < p0.X || p1.T < p0.T:
			t.Errorf("%s went back: %d fetches x=%d t=%v, then %d x=%d t=%v", u, p0.Fetches, p0.X, p0.T, p1.Fetches, p1.X, p1.T)
		case p1.Fetches > p0.Fetches:
			went++
			// The visit history goes on from where it was.
			n := len(p0.History)
			if keep := revisit.DefaultHistoryLen - (p1.Fetches - p0.Fetches); n > keep {
				n = max(keep, 0)
			}
			old := p0.History[len(p0.History)-n:]
			at := len(p1.History) - (p1.Fetches - p0.Fetches) - n
			if at < 0 || !slicesEqualVisits(p1.History[at:at+n], old) {
				t.Errorf("%s: history %v did not continue %v", u, p1.History, p0.History)
			}
		}
	}
	if went == 0 {
		t.Fatal("no page was refetched after the restart")
	}
}

func slicesEqualVisits(a, b []revisit.Visit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Done says the discovery crawl ran dry even while revisits are queued and fetched
// all along (M2: revisits go on until Stop), and revisits do go on after it.
func TestDoneClosesWhileRevisitsGoOn(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 3)
	o := revisitOptions(t, sb)
	o.Revisit.Initial, o.Revisit.MinInterval, o.Revisit.Every = 10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond
	o.Lanes.DelayMin, o.Lanes.DelayMax = 20*time.Millisecond, 40*time.Millisecond // discovery takes a while
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	at := e.Stats().Revisit
	if at.Requeued == 0 {
		t.Fatalf("no revisit was queued during the discovery crawl (%+v); the test must overlap them", *at)
	}
	waitFor(t, "revisits after Done", func() bool { return e.Stats().Revisit.Refetches >= at.Refetches+20 })
	if s := e.Stats(); s.URLsDone != s.URLsQueued || s.PagesStored == 0 {
		t.Errorf("Done with %d of %d URLs done", s.URLsDone, s.URLsQueued)
	}
}

func TestRevisitOptions(t *testing.T) {
	t.Parallel()
	bad := []badRevisit{
		{"unknown policy", func(o *config.RevisitOptions) { o.Policy = "lru" }, "revisit.policy"},
		{"threshold 0", func(o *config.RevisitOptions) { o.Threshold = 0 }, "revisit.threshold"},
		{"threshold 64", func(o *config.RevisitOptions) { o.Threshold = 64 }, "revisit.threshold"},
		{"unknown small-edit policy", func(o *config.RevisitOptions) { o.SmallEdits = "sometimes" }, "revisit.small_edits"},
		{"no period", func(o *config.RevisitOptions) { o.Every = 0 }, "revisit.every"},
		{"no batch", func(o *config.RevisitOptions) { o.Batch = 0 }, "revisit.batch"},
		{"no budget", func(o *config.RevisitOptions) { o.Budget = 0 }, "revisit.budget"},
		{"unknown class", func(o *config.RevisitOptions) { o.Windows["blog"] = time.Hour }, `unknown class "blog"`},
		{"negative window", func(o *config.RevisitOptions) { o.Windows["soc"] = -time.Hour }, "revisit.windows.soc"},
		{"social URL", func(o *config.RevisitOptions) { o.SocialDomains = []string{"https://weibo.com/"} }, "revisit.social_domains"},
	}
	refusesRevisit(t, bad)
	t.Run("seed policy needs no budget", func(t *testing.T) {
		o := testDefaults()
		o.DB = filepath.Join(t.TempDir(), "c.db")
		o.Revisit.Policy, o.Revisit.Budget = revisit.PolicySeed, 0
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
	})
	t.Run("classes", func(t *testing.T) {
		o := testDefaults()
		o.DB = filepath.Join(t.TempDir(), "c.db")
		o.Revisit.SocialDomains = []string{"Weibo.com"}
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		for host, want := range map[string]string{"m.weibo.com": "soc", "weibo.com": "soc", "news.example.com": "web_com",
			"mof.gov.cn": "web_gov", "cs.stanford.edu": "web_edu", "example.net": "web_net"} {
			if got := e.fr.ClassOf(host); got != want {
				t.Errorf("class of %s = %s, want %s", host, got, want)
			}
		}
	})
	t.Run("scaled like the sandbox", func(t *testing.T) {
		d := config.DefaultOptions().Revisit
		o := d.Scaled(20)
		if o.Initial != 3*time.Minute || o.Every != 3*time.Second || o.MinInterval != 3*time.Second ||
			o.Windows["soc"] != 3*24*time.Hour/20 || o.Budget != 2 || o.Threshold != d.Threshold {
			t.Fatalf("scaled by 20: %+v", o)
		}
		if d.Initial != time.Hour || d.Windows["soc"] != 3*24*time.Hour || d.Budget != revisit.DefaultBudget {
			t.Fatalf("Scaled changed the options it was called on: %+v", d)
		}
	})
}

// A config file's revisit section (defaults -> file): durations as Go durations,
// windows per class on top of the defaults.
func TestRevisitOptionsFromYAML(t *testing.T) {
	t.Parallel()
	o := testDefaults()
	dec := yaml.NewDecoder(strings.NewReader(`
revisit:
  policy: seed
  every: 30s
  initial: 2h
  threshold: 7
  windows:
    soc: 36h
    web_gov: 0s
  social_domains: [weibo.com, x.com]
  conditional_get: false
`))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		t.Fatal(err)
	}
	r := o.Revisit
	if r.Policy != "seed" || r.Every != 30*time.Second || r.Initial != 2*time.Hour || r.Threshold != 7 ||
		r.ConditionalGet || !r.Enabled || len(r.SocialDomains) != 2 {
		t.Fatalf("decoded %+v", r)
	}
	want := revisit.DefaultWindows()
	want["soc"], want["web_gov"] = 36*time.Hour, 0
	for c, d := range want {
		if r.Windows[c] != d {
			t.Errorf("window of %s = %v, want %v", c, r.Windows[c], d)
		}
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
}

// badRevisit is revisit options New must refuse: set spoils the defaults, and the
// error contains want.
type badRevisit struct {
	name string
	set  func(o *config.RevisitOptions)
	want string
}

// refusesRevisit runs each of bad as a subtest of its name: New fails with an
// error containing its want.
func refusesRevisit(t *testing.T, bad []badRevisit) {
	t.Helper()
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			o := testDefaults()
			o.DB = filepath.Join(t.TempDir(), "c.db")
			tc.set(&o.Revisit)
			if _, err := New(o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
