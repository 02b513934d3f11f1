// Package refresh is the crawl's side of adaptive revisit (M2): keeping what was
// fetched fresh. Its Runtime holds the revisit tracker and policy, the page
// classifier and class windows, and the scheduler over the store; it turns each
// fetch of a page into the page's stored revisit row, and keeps the counts, the
// site priors and the Revisit pane the console reads. Deciding when a page is due
// is package revisit's; putting due pages back in the queue is the engine's.
package refresh

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Logf records an event in the crawl's log.
type Logf func(level view.Level, format string, args ...any)

// Runtime is one crawl's M2: the tracker and policy, the classifier, the scheduler,
// and what the console needs to know.
type Runtime struct {
	Tracker *revisit.Tracker
	Classes revisit.Classifier // page classes by domain: declared sites are added to it
	Windows revisit.Windows    // how long after its first fetch a page of a class is revisited
	// Recent holds the newest state of recently observed pages: store writes are
	// asynchronous, so a page fetched again at once (:revisit now) must not be
	// compared with the state before its last fetch.
	Recent *lru.Cache[string, revisit.Page]

	// Requeued counts the pages put back in the queue as revisits; Ticks the
	// scheduler's ticks.
	Requeued, Ticks atomic.Int64

	opts  config.RevisitOptions
	st    *store.Store // nil on a worker
	logf  Logf
	sched *revisit.Scheduler

	refetches, changes, notModified, unknown atomic.Int64
	lastTick                                 atomic.Int64

	tally tally // class counts and the interval histogram
	view  viewCache

	// Site priors kept in the store (priors.go): the policy's version at the last
	// write, and when; sitesReadOnly when the stored ones could not be read.
	sitesSaved    int64
	sitesSavedAt  time.Time
	sitesReadOnly bool
}

// New builds M2's parts from o (already validated) over st (nil on a worker).
func New(o config.RevisitOptions, st *store.Store, logf Logf) (*Runtime, error) {
	windows := revisit.DefaultWindows()
	for c, d := range o.Windows {
		windows[c] = d
	}
	policy, err := newPolicy(o)
	if err != nil {
		return nil, err
	}
	tr, err := revisit.NewTracker(revisit.Config{Initial: o.Initial, Threshold: o.Threshold,
		SmallEdits: o.SmallEdits, MinInterval: o.MinInterval, Windows: windows}, policy)
	if err != nil {
		return nil, err
	}
	sched, err := revisit.NewScheduler(dueStore{st}, o.Batch)
	if err != nil {
		return nil, err
	}
	recent, _ := lru.New[string, revisit.Page](8192)
	r := &Runtime{Tracker: tr, Windows: windows, Recent: recent, opts: o, st: st, logf: logf, sched: sched}
	if len(o.SocialDomains) > 0 {
		r.Classes.Social = map[string]bool{}
		for _, d := range o.SocialDomains {
			r.Classes.Social[strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")] = true
		}
	}
	return r, nil
}

// newPolicy builds the configured policy: the seed rule, one estimator plan, or
// (revisit.classes) a plan per listed class beside the shared one.
func newPolicy(o config.RevisitOptions) (revisit.Policy, error) {
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

// dueStore is the store as the revisit scheduler sees it (revisit.Store).
type dueStore struct{ st *store.Store }

// Due implements revisit.Store: the first limit pages by ascending next.
func (r dueStore) Due(limit int) ([]revisit.Entry, error) {
	d, err := r.st.DueRevisits(limit)
	out := make([]revisit.Entry, len(d))
	for i, e := range d {
		out[i] = revisit.Entry{URL: e.URL, Next: e.Next}
	}
	return out, err
}

// Tick runs one scheduler tick (M2, seed 001 step 3): the pages due now, each with
// the next it was read at. They are not parked: the engine parks those it queues in
// the store write that queues them (store.QueueRevisits).
func (r *Runtime) Tick(now time.Time) ([]revisit.Entry, error) {
	due, err := r.sched.Due(now)
	r.Ticks.Add(1)
	r.lastTick.Store(now.UnixNano())
	return due, err
}

// Restore sums what the store holds at start: the estimator's budget shares
// (EstimatorPolicy.Restore), and the class counts and interval histogram the console
// shows. It reads a few columns of every page, about a second per million.
func (r *Runtime) Restore() error {
	est, _ := r.Tracker.Policy().(revisit.Planner)
	return r.st.EachRevisitSummary(func(s store.RevisitSummary) error {
		if est != nil && s.Freq > 0 {
			est.Restore(&revisit.Page{Class: s.Class, Freq: s.Freq, Price: s.Price, Fresh: s.Fresh, Age: s.Age, Behind: s.Behind})
		}
		r.tally.add(s.Class, s.T, s.X, 1)
		return nil
	})
}

// State is the revisit state of a page about to be fetched: prev is nil for a page
// never fetched (a first fetch). track is false when the state could not be read:
// the fetch then teaches nothing rather than restarting the page's history.
//
// A task that never went to a lane (Attempts 0: just discovered, not loaded from the
// store) and is not a requeued revisit cannot have a stored page, so the store is not
// asked: most fetches of a crawl are first fetches.
func (r *Runtime) State(t frontier.Task, requeued bool) (prev *revisit.Page, track bool) {
	u := t.URL
	if t.Attempts == 0 && !requeued {
		return nil, true
	}
	if p, ok := r.Recent.Get(u); ok {
		p.History = slices.Clone(p.History)
		return &p, true
	}
	row, err := r.st.Revisit(u)
	if errors.Is(err, store.ErrNotFound) {
		return nil, true
	}
	if err != nil {
		r.logf(view.LevelWarn, "revisit state of %s: %v", u, err)
		return nil, false
	}
	p := revisit.Page{URL: row.URL, Class: row.Class, T: row.T, X: row.X, Last: row.Last, Next: row.Next, Hash: row.Hash,
		HasHash: row.HasHash, First: row.First, Fetches: row.Fetches, Distance: row.Distance, Freq: row.Freq, Price: row.Price,
		Fresh: row.Fresh, Age: row.Age, Behind: row.Behind}
	p.Change.Distance = -1
	if c := row.Change; c != nil {
		p.Sig = page.Signature{SimHash: row.Hash, Text: c.Text, Title: c.Title, Page: c.Page, Fallback: c.Fallback}
		p.HasDigest, p.Reason = true, revisit.ChangeReason(c.Reason)
		p.Change = revisit.LastChange{At: c.ChangeAt, Distance: c.ChangeDistance, Reason: revisit.ChangeReason(c.ChangeReason)}
	}
	if err := revisit.UnmarshalPolicyState(&p, row.Policy); err != nil {
		r.logf(view.LevelWarn, "revisit state of %s: %v (its visit history starts over)", u, err)
	}
	return &p, true
}

// Observe applies one fetch outcome to a page's state (M2: first fetch t=0, x=1,
// next=now+initial; later t += now-last, x+1 when the Hamming distance exceeds the
// threshold, next from the policy) and returns the state to store. prev is nil for a
// first fetch; class is the page's class now.
func (r *Runtime) Observe(u, class string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit {
	p := revisit.Page{URL: u}
	if prev != nil {
		p = *prev
	}
	if class != p.Class { // declared classes may have changed since the last fetch
		if p.Freq > 0 {
			r.Tracker.Policy().Forget(&p) // out of its old class's plan and outlook
		}
		p.Class = class
	}
	v := r.Tracker.Observe(&p, now, o)
	if prev != nil {
		r.refetches.Add(1)
		switch {
		case v == revisit.VerdictChanged:
			r.changes.Add(1)
		case o.NotModified:
			r.notModified.Add(1)
		case v == revisit.VerdictUnknown:
			r.unknown.Add(1)
		}
		r.tally.add(prev.Class, prev.T, prev.X, -1)
	}
	r.tally.add(p.Class, p.T, p.X, 1)
	r.Recent.Add(u, p)
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

// KeepReplacedText sets a change's PrevText to the main text of the stored copy the
// refetch replaces, for `show URL` (change.Summarize). It reads the stored
// page only on a change, which is rare next to fetches; a copy that cannot be read
// leaves the text empty ("no change seen yet" is then all the summary says).
func (r *Runtime) KeepReplacedText(u string, row *store.Revisit) {
	if row == nil || row.Change == nil || !row.Change.Shift {
		return
	}
	old, err := r.st.Page(u)
	if err != nil {
		return
	}
	if text, ok := page.PageText(old.Body, old.ContentType); ok {
		row.Change.PrevText = text
	}
}

// tally counts tracked pages per class and buckets their learned interval t/x for
// the console, kept up to date as pages are observed.
type tally struct {
	mu      sync.Mutex
	classes map[string]int64
	buckets [len(intervalBounds) + 1]int64
	tracked int64
}

// intervalBounds are the histogram's bucket edges: log-spaced from a minute to a week.
var intervalBounds = [...]time.Duration{time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour,
	24 * time.Hour, 7 * 24 * time.Hour}

// add counts (or with n = -1 uncounts) a page of class with seed state t, x.
func (t *tally) add(class string, T time.Duration, x int, n int64) {
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
