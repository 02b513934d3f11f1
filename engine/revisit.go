package engine

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/store"
)

// revisitRuntime is the engine's side of M2: the tracker and policy, the classifier,
// the scheduler, and what the console and the idle check need to know.
type revisitRuntime struct {
	tracker *revisit.Tracker
	classes revisit.Classifier
	windows revisit.Windows
	sched   *revisit.Scheduler
	// recent holds the newest state of recently observed pages: store writes are
	// asynchronous, so a page fetched again at once (:revisit now) must not be
	// compared with the state before its last fetch.
	recent *lru.Cache[string, revisit.Page]

	// Guarded by Engine.mu: URLs requeued as revisits whose fetch has not ended, and
	// how many of them wait on the board or are being fetched (Done ignores them).
	queued  map[string]bool
	onBoard int
	inHand  int

	refetches, changes, notModified, unknown, requeued atomic.Int64
	ticks, lastTick                                    atomic.Int64

	tally revisitTally // class counts and the interval histogram
	view  viewCache

	// Site priors kept in the store (revisit_sites.go): the policy's version at the
	// last write, and when; sitesReadOnly when the stored ones could not be read.
	sitesSaved    int64
	sitesSavedAt  time.Time
	sitesReadOnly bool
}

// The revisit marks' whereabouts, kept by whoever moves a marked task (a lane, the
// master handing it to a worker). Caller holds Engine.mu.

// taken counts a marked task leaving the queue to be fetched.
func (rv *revisitRuntime) taken(url string) {
	if rv.queued[url] {
		rv.onBoard--
		rv.inHand++
	}
}

// handedBack counts a marked task in hand going back to the queue.
func (rv *revisitRuntime) handedBack(url string) {
	if rv.queued[url] {
		rv.inHand--
		rv.onBoard++
	}
}

// leftQueue counts a marked task leaving the queue unfetched (withdrawn).
func (rv *revisitRuntime) leftQueue(url string) {
	if rv.queued[url] {
		rv.onBoard--
	}
}

// ended drops the mark of a task whose fetch ended; it reports whether the task
// was a revisit.
func (rv *revisitRuntime) ended(url string) bool {
	if !rv.queued[url] {
		return false
	}
	rv.inHand--
	delete(rv.queued, url)
	return true
}

// newRevisitRuntime builds M2's parts from opts (already validated).
func newRevisitRuntime(o RevisitOptions, st *store.Store) (*revisitRuntime, error) {
	windows := revisit.DefaultWindows()
	for c, d := range o.Windows {
		windows[c] = d
	}
	policy, err := revisitPolicy(o)
	if err != nil {
		return nil, err
	}
	tr, err := revisit.NewTracker(revisit.Config{Initial: o.Initial, Threshold: o.Threshold,
		SmallEdits: o.SmallEdits, MinInterval: o.MinInterval, Windows: windows}, policy)
	if err != nil {
		return nil, err
	}
	sched, err := revisit.NewScheduler(revisitStore{st}, o.Batch)
	if err != nil {
		return nil, err
	}
	recent, _ := lru.New[string, revisit.Page](8192)
	rv := &revisitRuntime{tracker: tr, windows: windows, sched: sched, recent: recent, queued: map[string]bool{}}
	if len(o.SocialDomains) > 0 {
		rv.classes.Social = map[string]bool{}
		for _, d := range o.SocialDomains {
			rv.classes.Social[strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")] = true
		}
	}
	return rv, nil
}

// revisitPolicy builds the configured policy: the seed rule, one estimator plan,
// or (revisit.classes) a plan per listed class beside the shared one.
func revisitPolicy(o RevisitOptions) (revisit.Policy, error) {
	plan := func(objective string, budget float64) (*revisit.EstimatorPolicy, error) {
		return revisit.NewEstimatorPolicy(revisit.EstimatorOptions{Budget: budget, Objective: objective, MaxInterval: o.MaxInterval})
	}
	if o.Policy == revisit.PolicySeed {
		return revisit.NewPolicy(o.Policy, revisit.EstimatorOptions{})
	}
	base, err := plan(o.Objective, o.Budget)
	if err != nil || len(o.Classes) == 0 {
		return base, err
	}
	plans := map[string]*revisit.EstimatorPolicy{}
	for class, p := range o.Classes {
		objective, budget := cmp.Or(p.Objective, o.Objective), cmp.Or(p.Budget, o.Budget)
		if plans[class], err = plan(objective, budget); err != nil {
			return nil, fmt.Errorf("revisit.classes.%s: %w", class, err)
		}
	}
	return revisit.NewClassPolicy(base, plans), nil
}

// restore sums what the store holds at start: the estimator's budget shares
// (EstimatorPolicy.Restore), and the class counts and interval histogram the console
// shows. It reads a few columns of every page, about a second per million.
func (rv *revisitRuntime) restore(st *store.Store) error {
	est, _ := rv.tracker.Policy().(revisit.Planner)
	return st.EachRevisitSummary(func(s store.RevisitSummary) error {
		if est != nil && s.Freq > 0 {
			est.Restore(&revisit.Page{Class: s.Class, Freq: s.Freq, Price: s.Price, Fresh: s.Fresh, Age: s.Age, Behind: s.Behind})
		}
		rv.tally.add(s.Class, s.T, s.X, 1)
		return nil
	})
}

// classOf tags a host with its page class (M2/M3): declared social sites are soc,
// the rest go by public suffix.
func (e *Engine) classOf(host string) string {
	return e.classIn(e.sites.Load().SiteOf(host), host)
}

// classIn is classOf for a host already looked up in the site book (s may be nil):
// a site's declared class (sites added while the crawl runs included), else the
// classifier's.
func (e *Engine) classIn(s *SiteOptions, host string) string {
	if s != nil {
		if c := sites.Class(s); c != "" {
			return c
		}
	}
	return e.rv.classes.Class(&url.URL{Host: host})
}

// revisitState returns the revisit state of a page about to be fetched: prev is nil
// for a page never fetched (a first fetch). track is false when the state could not
// be read: the fetch then teaches nothing rather than restarting the page's history.
//
// A task that never went to a lane (Attempts 0: just discovered, not loaded from the
// store) and is not a requeued revisit cannot have a stored page, so the store is not
// asked: most fetches of a crawl are first fetches.
func (e *Engine) revisitState(t frontier.Task) (prev *revisit.Page, track bool) {
	e.mu.Lock()
	requeued := e.rv.queued[t.URL]
	e.mu.Unlock()
	return e.revisitStateOf(t, requeued)
}

// revisitStateOf is revisitState for a task the caller knows was (or was not) a
// requeued revisit: a master drops the mark when the result comes in, before it
// records it.
func (e *Engine) revisitStateOf(t frontier.Task, requeued bool) (prev *revisit.Page, track bool) {
	u := t.URL
	if t.Attempts == 0 && !requeued {
		return nil, true
	}
	if p, ok := e.rv.recent.Get(u); ok {
		p.History = slices.Clone(p.History)
		return &p, true
	}
	r, err := e.st.Revisit(u)
	if errors.Is(err, store.ErrNotFound) {
		return nil, true
	}
	if err != nil {
		e.logf(LevelWarn, 0, "", "revisit state of %s: %v", u, err)
		return nil, false
	}
	p := revisit.Page{URL: r.URL, Class: r.Class, T: r.T, X: r.X, Last: r.Last, Next: r.Next, Hash: r.Hash,
		HasHash: r.HasHash, First: r.First, Fetches: r.Fetches, Distance: r.Distance, Freq: r.Freq, Price: r.Price,
		Fresh: r.Fresh, Age: r.Age, Behind: r.Behind}
	p.Change.Distance = -1
	if c := r.Change; c != nil {
		p.Sig = page.Signature{SimHash: r.Hash, Text: c.Text, Title: c.Title, Page: c.Page, Fallback: c.Fallback}
		p.HasDigest, p.Reason = true, revisit.ChangeReason(c.Reason)
		p.Change = revisit.LastChange{At: c.ChangeAt, Distance: c.ChangeDistance, Reason: revisit.ChangeReason(c.ChangeReason)}
	}
	if err := revisit.UnmarshalPolicyState(&p, r.Policy); err != nil {
		e.logf(LevelWarn, 0, "", "revisit state of %s: %v (its visit history starts over)", u, err)
	}
	return &p, true
}

// observeRevisit applies one fetch outcome to a page's state (M2: first fetch t=0, x=1,
// next=now+initial; later t += now-last, x+1 when the Hamming distance exceeds the
// threshold, next from the policy) and returns the state to store. prev is nil for a
// first fetch.
func (e *Engine) observeRevisit(u string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit {
	rv := e.rv
	p := revisit.Page{URL: u}
	if prev != nil {
		p = *prev
	}
	if class := e.classOf(hostOf(u)); class != p.Class { // declared classes may have changed since the last fetch
		if p.Freq > 0 {
			rv.tracker.Policy().Forget(&p) // out of its old class's plan and outlook
		}
		p.Class = class
	}
	v := rv.tracker.Observe(&p, now, o)
	if prev != nil {
		rv.refetches.Add(1)
		switch {
		case v == revisit.VerdictChanged:
			rv.changes.Add(1)
		case o.NotModified:
			rv.notModified.Add(1)
		case v == revisit.VerdictUnknown:
			rv.unknown.Add(1)
		}
		rv.tally.add(prev.Class, prev.T, prev.X, -1)
	}
	rv.tally.add(p.Class, p.T, p.X, 1)
	rv.recent.Add(u, p)
	return &store.Revisit{URL: u, Class: p.Class, First: p.First, T: p.T, X: p.X, Last: p.Last, Next: p.Next,
		Hash: p.Hash, HasHash: p.HasHash, Fetches: p.Fetches, Distance: p.Distance, Freq: p.Freq, Price: p.Price,
		Policy: revisit.MarshalPolicyState(&p), Fresh: outlookFresh(&p), Age: p.Age, Behind: p.Behind,
		Change: changeRow(&p, o, v)}
}

// outlookFresh is the page's expected freshness for the store, -1 when its policy
// keeps no estimate (the seed rule, a page not yet compared, one forgotten).
func outlookFresh(p *revisit.Page) float64 {
	if p.Freq <= 0 {
		return -1
	}
	return p.Fresh
}

// changeRow is the store row of a page's change signal, or nil when this
// fetch brought none (a 304, an unusable body: the stored row stays as it was).
func changeRow(p *revisit.Page, o revisit.Outcome, v revisit.Verdict) *store.RevisitChange {
	if !o.OK || !o.HasDigest {
		return nil
	}
	return &store.RevisitChange{Text: p.Sig.Text, Title: p.Sig.Title, Page: p.Sig.Page, Fallback: p.Sig.Fallback,
		Reason: int(p.Reason), ChangeAt: p.Change.At, ChangeDistance: p.Change.Distance,
		ChangeReason: int(p.Change.Reason), Shift: v == revisit.VerdictChanged}
}

// keepReplacedText sets a change's PrevText to the main text of the stored copy the
// refetch replaces, for `show URL` (page.SummarizeChange). It reads the stored
// page only on a change, which is rare next to fetches; a copy that cannot be read
// leaves the text empty ("no change seen yet" is then all the summary says).
func (e *Engine) keepReplacedText(u string, r *store.Revisit) {
	if r == nil || r.Change == nil || !r.Change.Shift {
		return
	}
	old, err := e.st.Page(u)
	if err != nil {
		return
	}
	if text, ok := page.PageText(old.Body, old.ContentType); ok {
		r.Change.PrevText = text
	}
}

// refetchFailed records a refetch that brought no comparable content (an error, a
// refusal, a redirect elsewhere, a 4xx/5xx): nothing is learned, and the page gets a
// next due time again instead of staying parked (M2).
func (e *Engine) refetchFailed(t frontier.Task, prev *revisit.Page) {
	e.st.SaveRevisit(*e.observeRevisit(t.URL, prev, e.now(), revisit.Outcome{}))
}

// revisitTally counts tracked pages per class and buckets their learned interval t/x
// for the console, kept up to date as pages are observed.
type revisitTally struct {
	mu      sync.Mutex
	classes map[string]int64
	buckets [len(intervalBounds) + 1]int64
	tracked int64
}

// intervalBounds are the histogram's bucket edges: log-spaced from a minute to a week.
var intervalBounds = [...]time.Duration{time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour,
	24 * time.Hour, 7 * 24 * time.Hour}

// add counts (or with n = -1 uncounts) a page of class with seed state t, x.
func (t *revisitTally) add(class string, T time.Duration, x int, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.classes == nil {
		t.classes = map[string]int64{}
	}
	t.classes[class] += n
	t.tracked += n
	if T <= 0 {
		return // fetched once (or never compared): no interval learned yet
	}
	iv := T / time.Duration(max(x, 1))
	t.buckets[sort.Search(len(intervalBounds), func(i int) bool { return iv < intervalBounds[i] })] += n
}
