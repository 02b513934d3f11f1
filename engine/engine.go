package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/holds"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/meter"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/stories"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Engine is one crawl: a store, a frontier, lanes and their egresses.
type Engine struct {
	opts   config.Options
	role   role // one box, master or worker (M4), chosen by the constructor
	st     *store.Store
	scope  *frontier.Scope
	dedupe *frontier.Dedupe
	disc   *feeds.Discovery // feeds and sitemaps; nil when discovery is off or on a worker
	// lanes are this process's: their runs and board, egresses, DNS cache,
	// renderer and deferrals (a master's have a board and no egress).
	lanes *local.Crew

	accounts *route.Accounts // egress account table persistence

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	state      view.State
	startedAt  time.Time
	paused     bool
	wake       chan struct{}              // closed (and replaced) whenever something paused may go on
	rv         *refresh.Runtime           // M2: the revisit tracker, policy, classes and scheduler
	sites      atomic.Pointer[sites.Book] // declared news and social sites (M3); swapped whole by live steering
	budget     *front.Budgets             // page budgets per host and site (engine/front)
	hosts      *hostreport.Book           // the hosts report: per host, site and egress (hosts.go)
	traps      *frontier.TrapGuard        // crawler-trap guards on found links; nil when all are off
	variants   *frontier.Canonicals       // URL variants collapsed before the dedupe filter, canonicals remembered
	steer      *steer.Steerer             // live steering: the changes made, their persistence
	holds      *holds.Book                // the operator's host pauses and disables, kept in the store
	held       holds.Restored             // the holds the start set again
	done       chan struct{}
	doneOnce   sync.Once
	stopOnce   sync.Once
	releaseGC  func()                     // puts back the collector's pace Start set (gc.go); nil before Start
	parentURLs *lru.Cache[uint64, string] // for the adjacency-groups pane
	fetchCost  meter.Cost

	c       front.Counters
	rate    meter.Rate
	events  meter.Events
	persist chan view.Event
	resumed int

	fr    *front.Front // the store side of the queue: spill, inserts, steering's marks, budgets (engine/front)
	front frontPort    // where lanes hand their tasks' outcomes: this process's store, or the master
	crew  crew.Crew    // who fetches the tasks: this process's lanes, or a master's workers
}

// New opens the store and builds a crawl from opts (validated): one box, whose
// front and lanes are joined in process. Call Start to begin.
func New(opts config.Options) (*Engine, error) {
	e, err := newEngine(opts, localRole{})
	if err == nil {
		e.restoreHolds()
	}
	return e, err
}

// newEngine builds the parts of a crawl in role r.
func newEngine(opts config.Options, r role) (*Engine, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	guard, err := fetch.NewGuard(opts.AllowPrivate)
	if err != nil {
		return nil, err
	}
	scope, err := frontier.NewScope(opts.Seeds, opts.Scope)
	if err != nil {
		return nil, err
	}
	if _, err := egress.ParseSpecs(opts.Egress); err != nil { // before the store: a typo costs nothing
		return nil, err
	}
	k, err := r.openStore(opts)
	if err != nil {
		return nil, err
	}
	st := k.st
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	parents, _ := lru.New[uint64, string](8192)
	e := &Engine{
		opts:       opts,
		role:       r,
		st:         st,
		resumed:    k.resumed,
		dedupe:     k.dedupe,
		scope:      scope,
		ctx:        ctx,
		cancel:     cancel,
		state:      view.StateStarting,
		wake:       make(chan struct{}),
		done:       make(chan struct{}),
		parentURLs: parents,
		persist:    make(chan view.Event, 1024),
	}
	fail := func(err error) (*Engine, error) {
		if e.lanes != nil {
			e.lanes.Close()
		}
		k.close()
		cancel()
		return nil, err
	}
	if e.rv, err = e.newRevisitRuntime(opts.Revisit, st); err != nil {
		return fail(err)
	}
	e.front = localFront{e}
	e.steer = steer.New(steerPort{e}, opts.Rounds)
	e.sites.Store(sites.FromOptions(&e.opts))
	e.sites.Load().Declare(&e.rv.Classes) // M3: social sites' domains are class soc
	e.budget = front.NewBudgets(opts.Budgets, opts.Rounds.Every)
	e.hosts = hostreport.New()
	if opts.Traps != (frontier.TrapOptions{}) {
		e.traps = frontier.NewTrapGuard(opts.Traps, opts.Now)
	}
	e.variants = frontier.NewCanonicals(opts.URLVariants)
	e.fr = front.New(front.Parts{Mu: &e.mu, Opts: &e.opts, Store: st, Counters: &e.c, Budgets: e.budget, Hosts: e.hosts,
		Scope: scope, Dedupe: e.dedupe, Traps: e.traps, Variants: e.variants,
		Sites: &e.sites, Rounds: sites.NewRounds(k.costs), Tally: &sites.Tally{Since: opts.Now().Add(-sites.DelayGrace)}, Revisit: e.rv, Stories: stories.NewBook()}, frontCrawl{e})
	e.lanes = local.New(local.Parts{Mu: &e.mu, Ctx: ctx, Opts: &e.opts, Record: e.front, Front: e.fr, Counters: &e.c, Budgets: e.budget,
		Cost: &e.fetchCost, Guard: guard, SSRFFix: r.ssrfFix()}, lanesPort{e})
	e.crew = e.lanes
	if err := r.equip(e); err != nil {
		return fail(err)
	}
	return e, nil
}

// Start queues the seeds, resumes what an earlier run left unprocessed, and starts
// the lanes. It returns at once; use Done to wait for the crawl to run dry.
func (e *Engine) Start() error {
	e.mu.Lock()
	e.startedAt = e.now()
	e.state = view.StateRunning
	if e.releaseGC == nil {
		e.releaseGC = holdGC(e.opts.GCPercent)
	}
	e.mu.Unlock()
	for _, w := range append(e.opts.EtiquetteWarnings(), e.opts.SiteWarnings()...) {
		e.logf(view.LevelWarn, 0, "", "%s", w)
	}
	if err := e.front.Start(); err != nil {
		return err
	}
	e.wg.Add(2)
	go e.tick()
	go e.persistEvents()
	e.front.Run()
	e.wg.Add(2)
	go func() { defer e.wg.Done(); e.lanes.RunPrefetch() }()
	go func() { defer e.wg.Done(); e.lanes.KeepDeferred() }()
	if e.accounts != nil {
		e.wg.Add(1)
		go func() { defer e.wg.Done(); e.accounts.Run(e.ctx.Done()) }()
	}
	e.logf(view.LevelInfo, 0, "", "crawl started: %d lanes max, %d egress, delay %v..%v, host cap %.3g/s",
		e.opts.Lanes.Max, len(e.lanes.Run.Links), e.opts.Lanes.DelayMin, e.opts.Lanes.DelayMax, e.opts.HostRate)
	e.role.started(e)
	e.front.Started()
	e.mu.Lock()
	e.checkIdle()
	e.mu.Unlock()
	return nil
}

// tick samples the rate once a second until the engine stops, and keeps the
// discovery state (at most once a minute) and the revisit site priors (every five)
// in the store.
func (e *Engine) tick() {
	defer e.wg.Done()
	e.every(time.Second, func(now time.Time) {
		e.rate.Sample(now, e.c.PagesFetched.Load())
		e.disc.Keep(now)
		e.rv.KeepSitePriors(now)
	})
}

// every calls f every d until the engine stops (on the caller's goroutine).
func (e *Engine) every(d time.Duration, f func(now time.Time)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
			f(e.now())
		}
	}
}

// Done is closed when the discovery crawl has run dry: nothing queued, no lane at
// work, no link insert outstanding. Revisits (M2) do not count: with revisit.enabled
// they go on after Done, until Stop.
func (e *Engine) Done() <-chan struct{} { return e.done }

// checkIdle closes done when nothing is left to discover. Caller holds e.mu.
func (e *Engine) checkIdle() {
	if e.discoveryIdle() && e.state == view.StateRunning {
		if e.fr.Spilled() {
			e.fr.StartRefill()
			return
		}
		if !e.front.EndChecked() {
			return // the store is asked first (front.Front.EndChecked)
		}
		e.doneOnce.Do(func() { close(e.done) })
	}
}

// discoveryIdle reports whether the discovery crawl has run dry: nothing queued, no
// lane at work, no link insert outstanding, revisit tasks aside (they never end: a
// crawl with revisits goes on until stopped). Caller holds e.mu.
func (e *Engine) discoveryIdle() bool {
	if e.fr.Busy() { // a write on its way, or a withdrawn source not ended yet
		return false
	}
	_, inHand := e.crew.Counts()
	if revisits := e.fr.Marks().Pending(); revisits > 0 {
		return e.queuedLen()+inHand == revisits
	}
	return e.lanes.Board.Len() == 0 && e.queuedLen() == 0 && inHand == 0
}

// queuedLen is how many queued tasks wait in memory: on the lane board, or at the
// master for its workers (M4). Caller holds e.mu.
func (e *Engine) queuedLen() int {
	waiting, _ := e.crew.Counts()
	return waiting
}

// Stop ends the crawl gracefully: lanes finish or abandon their current request
// (abandoned URLs go back to the queue), and every write is committed.
func (e *Engine) Stop() {
	e.stopOnce.Do(func() {
		e.mu.Lock()
		e.state = view.StateStopping
		e.broadcast()
		e.mu.Unlock()
		e.crew.Stop()
		e.cancel()
		e.lanes.Wait() // the lanes first, as they may still hand the front what they held
		e.wg.Wait()
		e.front.Stop()
		e.lanes.Close()
		e.mu.Lock()
		e.state = view.StateDone
		if e.releaseGC != nil {
			e.releaseGC()
		}
		e.mu.Unlock()
	})
}

// Close stops the crawl and closes the store.
func (e *Engine) Close() error {
	e.Stop()
	return e.front.Close()
}

// RequeuedBlocked is how many URLs the SSRF guard refused in an earlier run that
// opening the store queued again, to be tried under this run's allow_private.
func (e *Engine) RequeuedBlocked() int { return e.st.RequeuedBlocked() }

// Stats returns the --stats-json object.
func (e *Engine) Stats() view.Stats {
	e.mu.Lock()
	peak := e.lanesPeak()
	started := e.startedAt
	e.mu.Unlock()
	t := e.c.Totals(peak)
	d := e.now().Sub(started).Seconds()
	s := view.Stats{
		PagesFetched: t.PagesFetched, PagesStored: t.PagesStored, BytesFetched: t.BytesFetched,
		Refused: t.Refused, ConfirmFetches: t.ConfirmFetches, Errors: t.Errors, URLsQueued: t.URLsQueued, URLsDone: t.URLsDone,
		LanesPeak: peak, DurationS: d, RobotsSkips: t.Skipped[fetch.KindRobots], Resumed: e.resumed,
		Skipped: t.Skipped, Warnings: t.Warnings, StatusClass: t.ByClass, StoreError: front.ErrorText(e.Failure()),
		Examples: e.c.ExampleURLs(),
	}
	s.State = e.endState()
	var egressView *view.EgressView // for the sizing estimate
	if pool := e.lanes.Pool; pool != nil {
		es := pool.Stats()
		s.Egress = &es
		v := pool.View()
		egressView = &v
	}
	s.Deferred = t.Deferred
	s.Cookies = e.lanes.Run.CookieStats()
	s.Revisit = e.rv.Stats()
	if e.dedupe != nil {
		s.Dedupe = &view.DedupeStats{DedupeStats: e.dedupe.Stats(),
			StoreChecks: e.c.DedupeStoreChecks.Load(), FalsePositives: e.c.DedupeFalsePositives.Load()}
	}
	s.Cluster = e.crew.ClusterStats()
	e.mu.Lock()
	crewEgress, crewDNS, crewRefused := e.crew.Panes(e.now())
	e.mu.Unlock()
	s.Refused += crewRefused
	if ev := crewEgress; ev != nil {
		s.Egress = &view.EgressStats{Rotations: ev.Rotations, HostsDisabled: ev.HostsDisabled}
		egressView = ev
	}
	if dv := crewDNS; dv != nil {
		ds := dv.Stats
		ds.WaitHistogram = nil
		s.DNS = &ds
	}
	if len(e.opts.Sites) > 0 {
		s.Sizing = e.sizing(egressView)
	}
	if r := e.c.RobotsWaiting(disabledHosts(egressView)); r.Waited > 0 {
		s.RobotsWaiting = &r
	}
	if e.lanes.DNS != nil {
		ds := e.lanes.DNS.Stats()
		ds.WaitHistogram = nil // the console shows it; the stats object stays small
		s.DNS = &ds
	}
	if d > 0 {
		s.PagesPerS = float64(t.PagesFetched) / d
	}
	return s
}

// now is the engine's clock (Options.Now).
func (e *Engine) now() time.Time { return e.opts.Now() }

// broadcast wakes everything waiting for a resume. Caller holds e.mu.
func (e *Engine) broadcast() {
	close(e.wake)
	e.wake = make(chan struct{})
}

// logf records an event in the ring; warnings and errors also go to the store's
// event table, through a buffered channel so that logging never blocks (and may be
// called with e.mu held).
func (e *Engine) logf(level view.Level, lane int, host, format string, args ...any) {
	ev := e.events.Add(view.Event{At: e.now(), Level: level, Lane: lane, Host: host, Msg: fmt.Sprintf(format, args...)})
	if level >= view.LevelWarn {
		e.persistEvent(ev)
	}
}

// persistEvent hands ev to the store's event table without blocking.
func (e *Engine) persistEvent(ev view.Event) {
	select {
	case e.persist <- ev:
	default: // the store is behind: the ring still has it
	}
}

// logKept is logf for an event the store keeps whatever its level: an operator's
// steering change, accepted or refused, is the crawl's audit trail.
func (e *Engine) logKept(level view.Level, format string, args ...any) {
	e.persistEvent(e.events.Add(view.Event{At: e.now(), Level: level, Msg: fmt.Sprintf(format, args...)}))
}

// persistEvents writes warnings and errors to the store until the engine stops.
func (e *Engine) persistEvents() {
	defer e.wg.Done()
	for {
		select {
		case ev := <-e.persist:
			e.front.Event(ev)
		case <-e.ctx.Done():
			for {
				select {
				case ev := <-e.persist:
					e.front.Event(ev)
				default:
					return
				}
			}
		}
	}
}

// lanesPeak is the most lanes alive at once: the board's, or on a master its
// workers' (the master's board has none). Caller holds e.mu.
func (e *Engine) lanesPeak() int { return e.crew.LanesPeak() }

// Renderer is the crawl's page renderer, nil when pages are not rendered.
func (e *Engine) Renderer() *render.Service { return e.lanes.Renderer }
