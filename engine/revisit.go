package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
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
	"github.com/crawlconsole/crawlconsole/store"
)

// RevisitOptions configures adaptive revisit (M2, seed 001) and page classes with
// their active windows (seed 003). Every stored page is fingerprinted and tracked
// whether or not the scheduler runs, so turning it on later finds the state ready.
type RevisitOptions struct {
	// Enabled runs the scheduler that puts due pages back in the crawl queue
	// (default true). Revisits never keep Done from closing: Done says the discovery
	// crawl ran dry, and revisits go on until the crawl is stopped.
	Enabled bool `yaml:"enabled"`
	// Policy picks how the next due time is learned: "estimator" (default, Cho &
	// Garcia-Molina's change-rate estimate with a fetch budget; measured fresher by
	// `go run ./bench revisit`) or "seed" (seed 001's next = last + t/x).
	Policy string `yaml:"policy"`
	// Every is the scheduler's period (default 1m).
	Every time.Duration `yaml:"every"`
	// Batch is m, the pages the scheduler looks at per tick, by ascending next
	// (default 5000; the seed suggests 1,000..10,000).
	Batch int `yaml:"batch"`
	// Initial is the delay from a page's first fetch to its second (default 1h).
	Initial time.Duration `yaml:"initial"`
	// Threshold is the Hamming distance between two SimHashes above which a page
	// counts as changed (default 5, of 64 bits).
	Threshold int `yaml:"threshold"`
	// SmallEdits is the small-edit policy (issue 19): "count" (default) counts every
	// edit of a page's article text or headline as a change; "ignore" counts a body
	// edit only when it also moves the SimHash past Threshold (a few words do not).
	SmallEdits string `yaml:"small_edits"`
	// MinInterval is the shortest revisit interval (default 1m).
	MinInterval time.Duration `yaml:"min_interval"`
	// Budget is the estimator policy's revisit budget, in fetches per page per day
	// on average (default 0.1: one visit in ten days).
	Budget float64 `yaml:"budget"`
	// Objective is what the estimator spends the budget on (issue 15): "balanced"
	// (default: fresher than Nutch's schedule and younger too, the fastest pages not
	// given up), "freshness" (the most pages fresh; gives up on pages that change
	// faster than the budget follows) or "age" (the least stale time; visits every
	// changing page). See revisit.Objective. The seed policy has no budget and ignores it.
	Objective string `yaml:"objective"`
	// Classes plans page classes apart: a class listed here gets its own objective
	// and budget (per page of the class), spent on its pages alone, e.g. soc wants age
	// at a higher budget, web_gov freshness. Classes left out share the plan above.
	Classes map[string]ClassRevisit `yaml:"classes"`
	// MaxInterval caps the estimator's intervals (0: no cap).
	MaxInterval time.Duration `yaml:"max_interval"`
	// Windows maps a page class (soc, web_com, web_net, web_edu, web_gov) to its
	// active window: a page first fetched longer ago than its class's window is no
	// longer revisited; 0 means no limit. Classes left out keep their defaults
	// (soc 3 days, web_com and web_net 14 days, web_edu and web_gov 60 days).
	Windows map[string]time.Duration `yaml:"windows"`
	// SocialDomains are the registered domains (or hosts) of social sites: their
	// pages are class soc. Other pages are classed by public suffix.
	SocialDomains []string `yaml:"social_domains"`
	// ConditionalGet refetches with If-None-Match / If-Modified-Since from the stored
	// page (default true); a 304 counts as unchanged and costs no body. Turn it off
	// for servers whose validators lie (an ETag that survives a change).
	ConditionalGet bool `yaml:"conditional_get"`
}

// ClassRevisit is one page class's own revisit plan (revisit.classes.CLASS).
type ClassRevisit struct {
	// Objective is the class's objective ("" = revisit.objective).
	Objective string `yaml:"objective"`
	// Budget is the class's fetches per page per day (0 = revisit.budget).
	Budget float64 `yaml:"budget"`
}

// defaultRevisitOptions are the revisit defaults (M2: initial 1h, threshold 5,
// scheduler every minute).
func defaultRevisitOptions() RevisitOptions {
	return RevisitOptions{
		Enabled:        true,
		Policy:         revisit.DefaultPolicy,
		Every:          revisit.DefaultPeriod,
		Batch:          revisit.DefaultBatch,
		Initial:        revisit.DefaultInitial,
		Threshold:      revisit.DefaultThreshold,
		SmallEdits:     revisit.SmallEditsCount,
		MinInterval:    revisit.DefaultMinInterval,
		Budget:         revisit.DefaultBudget,
		Objective:      revisit.DefaultObjective,
		Windows:        revisit.DefaultWindows(),
		ConditionalGet: true,
	}
}

// Scaled returns the options for a web whose clock runs f times faster than real
// time (the sandbox's Scale): every revisit duration divided by f, the budget (per
// day) multiplied by it, so the crawl revisits the scaled web as it would the real
// one.
func (o RevisitOptions) Scaled(f float64) RevisitOptions {
	if !(f > 0) || f == 1 {
		return o
	}
	div := func(d time.Duration) time.Duration {
		if d <= 0 {
			return d
		}
		return max(time.Duration(float64(d)/f), time.Millisecond)
	}
	o.Every, o.Initial, o.MinInterval, o.MaxInterval = div(o.Every), div(o.Initial), div(o.MinInterval), div(o.MaxInterval)
	o.Budget *= f
	classes := make(map[string]ClassRevisit, len(o.Classes))
	for c, p := range o.Classes {
		p.Budget *= f
		classes[c] = p
	}
	if o.Classes != nil {
		o.Classes = classes
	}
	windows := make(map[string]time.Duration, len(o.Windows))
	for c, d := range o.Windows {
		windows[c] = div(d)
	}
	o.Windows = windows
	return o
}

// validate reports the first unusable revisit setting, naming it.
func (o *RevisitOptions) validate() error {
	switch {
	case o.Policy != revisit.PolicySeed && o.Policy != revisit.PolicyEstimator:
		return fmt.Errorf("revisit.policy must be %q or %q, got %q", revisit.PolicyEstimator, revisit.PolicySeed, o.Policy)
	case o.Every <= 0:
		return fmt.Errorf("revisit.every must be positive, got %v", o.Every)
	case o.Batch < 1:
		return fmt.Errorf("revisit.batch must be at least 1, got %d", o.Batch)
	case o.Initial <= 0:
		return fmt.Errorf("revisit.initial must be positive, got %v", o.Initial)
	case o.Threshold < 1 || o.Threshold > 63:
		return fmt.Errorf("revisit.threshold must be 1..63 bits, got %d", o.Threshold)
	case o.SmallEdits != revisit.SmallEditsCount && o.SmallEdits != revisit.SmallEditsIgnore:
		return fmt.Errorf("revisit.small_edits must be %q or %q, got %q", revisit.SmallEditsCount, revisit.SmallEditsIgnore, o.SmallEdits)
	case o.MinInterval <= 0:
		return fmt.Errorf("revisit.min_interval must be positive, got %v", o.MinInterval)
	case o.MaxInterval < 0:
		return fmt.Errorf("revisit.max_interval must be >= 0 (0 = no cap), got %v", o.MaxInterval)
	case o.Policy == revisit.PolicyEstimator && (!(o.Budget > 0) || math.IsInf(o.Budget, 0)):
		return fmt.Errorf("revisit.budget must be positive (fetches per page per day), got %v", o.Budget)
	case !slices.Contains(revisit.Objectives, o.Objective):
		return fmt.Errorf("revisit.objective must be one of %s, got %q", strings.Join(revisit.Objectives, ", "), o.Objective)
	}
	for class, p := range o.Classes {
		switch {
		case !slices.Contains(revisit.Classes, class):
			return fmt.Errorf("revisit.classes: unknown class %q (classes: %s)", class, strings.Join(revisit.Classes, ", "))
		case p.Objective != "" && !slices.Contains(revisit.Objectives, p.Objective):
			return fmt.Errorf("revisit.classes.%s.objective must be one of %s (or empty for revisit.objective), got %q",
				class, strings.Join(revisit.Objectives, ", "), p.Objective)
		case p.Budget < 0 || math.IsNaN(p.Budget) || math.IsInf(p.Budget, 0):
			return fmt.Errorf("revisit.classes.%s.budget must be positive (fetches per page per day; 0 = revisit.budget), got %v", class, p.Budget)
		case o.Policy != revisit.PolicyEstimator:
			return fmt.Errorf("revisit.classes.%s: class plans need revisit.policy %q (the %q policy has no budget), got %q",
				class, revisit.PolicyEstimator, o.Policy, o.Policy)
		}
	}
	for class, d := range o.Windows {
		if !slices.Contains(revisit.Classes, class) {
			return fmt.Errorf("revisit.windows: unknown class %q (classes: %s)", class, strings.Join(revisit.Classes, ", "))
		}
		if d < 0 {
			return fmt.Errorf("revisit.windows.%s must be >= 0 (0 = no limit), got %v", class, d)
		}
	}
	for _, d := range o.SocialDomains {
		if h := strings.TrimSpace(d); h == "" || strings.ContainsAny(h, "/: ") {
			return fmt.Errorf("revisit.social_domains: %q is not a domain name (write e.g. weibo.com)", d)
		}
	}
	return nil
}

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
	return e.classIn(e.sites.Load().siteOf(host), host)
}

// classIn is classOf for a host already looked up in the site book (s may be nil):
// a site's declared class (sites added while the crawl runs included), else the
// classifier's.
func (e *Engine) classIn(s *SiteOptions, host string) string {
	if s != nil {
		if c := s.class(); c != "" {
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

// changeRow is the store row of a page's change signal (issue 19), or nil when this
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
