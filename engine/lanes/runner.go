package lanes

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/robots"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Runner runs a crawl's lanes (M1): each takes its next task from the front,
// waits out its pause, fetches through the gate on its egress (robots.txt first,
// retries, the refusal classifier and the rotation's answer to it), and hands the
// outcome to the front.
type Runner struct {
	// Mu is the crawl's lock, shared with the front: the board, the slots, Links
	// and the crawl-delays are guarded by it, and so are the front's Tasks calls
	// marked so.
	Mu    *sync.Mutex
	Ctx   context.Context // ends every lane's run: the crawl is stopping
	Opts  *config.Options // the crawl's options, read only
	Front Front           // the port to the front: tasks, figures, log
	// Record is where a task's end goes: the crawl's record (the store on one box
	// and on a master, the master on a worker), called with no adapter between.
	Record Record
	Board  *Board // binds tasks to lanes (guarded by Mu)
	Gate   *Gate  // keeps adjacent requests apart and caps each host's rate
	// Robots keeps robots.txt rules per origin, at most etiquette.robots_cache_for
	// (RFC 9309).
	Robots *robots.Cache
	Pool   *egress.Pool       // M3 rotation; nil for the direct route
	Judge  *egress.Classifier // one classifier of refusals for every route (the pool's with rotation)
	// Links are the egresses by board egress index; they grow when egresses are
	// claimed (guarded by Mu).
	Links []*route.Link
	// SSRFFix says how to let a host refused by the SSRF guard through, on this
	// node ("%s" is the address's prefix).
	SSRFFix string
	// Lease, if set, is asked right before each request leaves (after the gate's
	// wait): it returns once the worker's lease on its hosts lets the request of
	// the hand-out numbered lease start (0: a robots.txt), or ErrLeaseLost when the
	// hand-out went to another worker (M4, worker.Lease). nil: no lease (one box).
	Lease func(ctx context.Context, lease uint64) error
	// LeaseBound, if set, is a context that ends when the worker's lease runs out
	// unrenewed (nil: none holds): a page's request is cut there and made again
	// once a renewal lets it (Lease), or dropped with its hand-out. nil: one box.
	LeaseBound func() context.Context
	// Render renders the pages that need a browser; nil: none is.
	Render Renderer
	// DeferBehindPaused says a site's tasks held behind a paused host (its
	// robots.txt redirects there) leave the lanes, deferred to robots.txt's first
	// retry (deferBehind), rather than wait set aside in them for the resume. Set
	// where the tasks come from a dealer that holds back only the paused host's own
	// (a master): set aside here, they would fill the window of tasks this node
	// holds for as long as the pause lasts.
	DeferBehindPaused bool

	fcfg   fetch.Config  // for egresses added at run time
	dialer *fetch.Dialer // checks cross-host redirect targets (SSRF)

	crawlDelay map[string]time.Duration // robots.txt Crawl-delay per host (guarded by Mu)
	heldHosts  map[string]bool          // hosts the operator paused (guarded by Mu)
	// pausing is len(heldHosts), read without Mu: HostHeld, asked before every
	// attempt at a request, takes no lock while the operator holds nothing.
	pausing atomic.Int32
	// robotsBehind are the sites whose robots.txt redirected to a host the
	// operator held, to that host (lower-case, through behind and setBehind;
	// guarded by Mu): they wait with it.
	robotsBehind map[string]string
	slots        map[int]*Slot // the lanes running, by id (guarded by Mu)
	// rendering are the tasks whose page is rendering after its lane moved on,
	// by the page's result: still in hand (guarded by Mu).
	rendering map[*fetch.Result]frontier.Task
	runs      sync.WaitGroup // every lane's run, and every render they handed off
	// ssrfWarned are the hosts whose refusal by the SSRF guard was logged (lower-case
	// host -> struct{}): once per host, not per URL.
	ssrfWarned sync.Map
	// sitemapOrigins are the origins whose robots.txt Sitemap lines went out on a
	// response (string -> struct{}, off Mu: every response asks it).
	sitemapOrigins sync.Map
}

// NewRunner is a crawl's lane runner over front, recording its tasks' ends in
// record, before its egresses are set (SetupEgress). mu is the crawl's lock.
func NewRunner(ctx context.Context, mu *sync.Mutex, opts *config.Options, front Front, record Record) *Runner {
	return &Runner{Mu: mu, Ctx: ctx, Opts: opts, Front: front, Record: record,
		Robots:     &robots.Cache{TTL: opts.Etiquette.RobotsCacheFor, Retry: opts.Etiquette.RobotsRetry, Now: opts.Now},
		crawlDelay: map[string]time.Duration{}, heldHosts: map[string]bool{}, robotsBehind: map[string]string{}, slots: map[int]*Slot{}, rendering: map[*fetch.Result]frontier.Task{}}
}

// Start runs a lane the board opened, on its own goroutine. Mu held. A crawl that
// is stopping opens none: a task placed late (a link insert committed by the
// front's last flush) stays queued for the next run.
func (r *Runner) Start(l *Lane) {
	if r.Ctx.Err() != nil {
		return
	}
	s := NewSlot(l)
	r.slots[l.ID] = s
	r.runs.Add(1)
	go func() {
		defer r.runs.Done()
		r.Run(s)
	}()
}

// InHand are the tasks the lanes hold (taken, not released), those whose page is
// rendering included. Mu held.
func (r *Runner) InHand() []frontier.Task {
	var out []frontier.Task
	for _, s := range r.slots {
		if s.Task.URL != "" {
			out = append(out, s.Task)
		}
	}
	for _, t := range r.rendering {
		out = append(out, t)
	}
	return out
}

// leaseHeld is Lease's answer for the hand-out numbered lease: nil when no Lease is
// given (nothing hands tasks out under a lease).
func (r *Runner) leaseHeld(ctx context.Context, lease uint64) error {
	if r.Lease == nil {
		return nil
	}
	return r.Lease(ctx, lease)
}

// Wait returns when every lane's run has ended (Ctx ended them), and every render
// they handed off delivered its page.
func (r *Runner) Wait() { r.runs.Wait() }

// Slot is lane id's slot, nil when it is not running. Mu held.
func (r *Runner) Slot(id int) *Slot { return r.slots[id] }

// Slots are the lanes running (a lane the stop ended is still one). Mu held.
func (r *Runner) Slots() []*Slot {
	out := make([]*Slot, 0, len(r.slots))
	for _, s := range r.slots {
		out = append(out, s)
	}
	return out
}

// Take is lane s's turn at the board (Board.Take), with the runner's side of it:
// the lanes the board opened on the way start, and a lane that ran dry retires
// (its slot is forgotten) unless it is paused, when it waits for work instead.
// retired says it did. Mu held.
func (r *Runner) Take(s *Slot) (turn Turn, retired bool) {
	turn = r.Board.Take(s.Lane)
	for _, l := range turn.Opened {
		r.Start(l)
	}
	if turn.OK || s.Lane.Paused() {
		return turn, false
	}
	delete(r.slots, s.Lane.ID)
	return turn, true
}

// Kick tells lane id that an operator's task joined the head of its queue: a lane
// pausing, or waiting with an ordinary task in hand, takes it first. Mu held.
func (r *Runner) Kick(id int) {
	if s := r.slots[id]; s != nil {
		select {
		case s.Kick <- struct{}{}:
		default: // already told
		}
	}
}

// Dialer is the dialer the rotation's egresses fetch through (nil on the direct
// route).
func (r *Runner) Dialer() *fetch.Dialer { return r.dialer }

// NewLink builds an egress's link with its own cookie jar (none with cookies off).
func (r *Runner) NewLink(name string, f *fetch.Fetcher, eg *egress.Egress) *route.Link {
	return route.NewLink(name, f, eg, route.NewJar(r.Opts.Cookies, r.Opts.Now))
}

// AddLink gives an egress of the rotation's table its lane slot and transport;
// Links is indexed like the board's egresses. Mu held (or the crawl not started).
func (r *Runner) AddLink(name string) (int, error) {
	i := r.Board.AddEgress(name)
	if i < len(r.Links) && r.Links[i] != nil {
		return i, nil
	}
	eg, err := r.Pool.Egress(name)
	if err != nil {
		return 0, err
	}
	tr, err := r.Pool.Transport(name)
	if err != nil {
		return 0, err
	}
	link := r.NewLink(name, fetch.New(r.Ctx, r.fcfg, r.dialer, tr), eg)
	link.Index = i
	if i < len(r.Links) {
		r.Links[i] = link
	} else {
		r.Links = append(r.Links, link)
	}
	return i, nil
}

// Index is the board index of the egress named name, -1 if it has none. Mu held.
func (r *Runner) Index(name string) int {
	for i, l := range r.Links {
		if l != nil && l.Name == name {
			return i
		}
	}
	return -1
}

// Close closes every egress's transport.
func (r *Runner) Close() {
	for _, l := range r.Links {
		if l != nil {
			l.F.Close()
		}
	}
}

// CookieStats sums every egress's cookie sessions; nil with cookies off or on a
// node that fetches nothing (a master).
func (r *Runner) CookieStats() *view.CookieStats {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if !r.Opts.Cookies.Enabled || len(r.Links) == 0 {
		return nil
	}
	cs := route.CookieStats(r.Links)
	return &cs
}

// Holds reports whether a host still has tasks on the board, queued, pending or
// in hand: the DNS cache refreshes an entry near expiry only then (M5).
func (r *Runner) Holds(host string) bool {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	return r.Board == nil || r.Board.Holds(host)
}

// Run is one lane's life (M1): take the next task, fetch it, pause a random
// human-like interval, repeat; it returns when the lane retires (it ran dry and
// found no work to take over) or the crawl stops.
func (r *Runner) Run(s *Slot) {
	l := s.Lane
	r.Mu.Lock()
	name := r.Links[l.Egress].Name // Egress is guarded by Mu (rebalance moves lanes)
	r.Mu.Unlock()
	r.Front.Opened(l.ID, name)
	// next is the earliest start of the lane's next request (M1's random pause);
	// floor is delay_min after the last response, the shortest pause the lane ever
	// draws: an operator's task (steering) waits only until then, and the gate still
	// holds the host's gap (never less than delay_min between adjacent requests on an
	// address).
	var next, floor time.Time
	for {
		r.Mu.Lock()
		t, ok := r.Front.Next(s)
		if !ok {
			r.Mu.Unlock()
			return
		}
		s.Status, s.Current, s.NextFetch = view.LaneFetching, t.URL, time.Time{}
		s.Task = t
		link := r.Links[s.Lane.Egress]
		if s.Urgent && !r.Opts.SteerBaseline {
			next = floor
		}
		r.Mu.Unlock()
		if d := next.Sub(r.now()); d > 0 {
			// The lane ran dry and asked for work before its pause was over; it
			// took over tasks from a busy lane (Board.Next) or a task joined it,
			// and they wait out the pause like any other.
			r.Mu.Lock()
			s.Status, s.NextFetch = view.LaneWaiting, next
			r.Mu.Unlock()
			swapped := r.pauseInHand(s, t, next) // a stop ends it early; Hold then lets the task go
			// The operator may have paused the crawl, this lane or the task's host
			// meanwhile (Next checked before the pause); a rebalance may have
			// moved the lane to another egress.
			r.Mu.Lock()
			if swapped { // the operator's task goes first; it waits until floor only (above)
				s.Task = frontier.Task{}
				r.Front.Release(t, false)
				r.Mu.Unlock()
				continue
			}
			held, aside := r.Front.Hold(s, t)
			if aside { // its host was paused meanwhile: it waits for the resume, off the lane's hand
				s.Task = frontier.Task{}
				r.Mu.Unlock()
				continue
			}
			if held {
				link = r.Links[s.Lane.Egress]
				s.Status, s.Current, s.NextFetch = view.LaneFetching, t.URL, time.Time{}
			}
			r.Mu.Unlock()
			if !held {
				return
			}
		}
		ended, swapped := r.process(s, link, t)
		r.Mu.Lock()
		s.Task = frontier.Task{}
		if s.HandedOff {
			r.Front.CheckIdle() // its render releases the task
		} else {
			r.Front.Release(t, ended) // the front checks whether the crawl ran dry
		}
		s.HandedOff = false
		r.Mu.Unlock()
		if swapped {
			continue // nothing was sent: the lane's pause is already served
		}
		// M1's random pause runs from the end of the response, not from the end of
		// parsing and storing it. A lane with nothing left asks for work at once: it
		// retires without waiting out a pause when there is none, and pauses above
		// before the tasks it took over (the gate still keeps the next adjacent
		// request on its address MinGap away).
		r.Mu.Lock()
		dry := s.Lane.Backlog() == 0
		from := s.FetchEnd
		if from.IsZero() {
			from = r.now()
		}
		next, floor = from.Add(Delay(r.Opts.Lanes)), from.Add(r.Opts.Lanes.DelayMin)
		s.Status, s.NextFetch = view.LaneWaiting, next
		r.Mu.Unlock()
		if dry {
			continue
		}
		if !r.pause(s, next, floor) {
			return
		}
	}
}

// pause waits out the lane's pause until next. An operator's task that joins the
// head of the lane's queue meanwhile (steering: the front kicks the lane) cuts it
// short to floor: the lane takes that task next, and it goes as soon as delay_min
// and the gate's gaps allow rather than at the end of a random pause that was
// drawn for the lane's ordinary work. false: the crawl is stopping.
func (r *Runner) pause(s *Slot, next, floor time.Time) bool {
	if r.Opts.SteerBaseline {
		return r.sleep(next.Sub(r.now()))
	}
	for {
		r.Mu.Lock()
		if floor.Before(next) && r.Board.UrgentAhead(s.Lane) { // one joined now, or before the pause began
			next = floor
			s.NextFetch = next
		}
		r.Mu.Unlock()
		d := next.Sub(r.now())
		if d <= 0 {
			return r.Ctx.Err() == nil
		}
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
			return true
		case <-r.Ctx.Done():
			tm.Stop()
			return false
		case <-s.Kick:
			tm.Stop()
		}
	}
}

// pauseInHand waits until next with task t in hand, as the lane's pause asks; if an
// operator's task joins the head of the lane's queue meanwhile, t goes back behind it
// (SwapForUrgent) and it returns true at once. A stop ends the wait early (false).
func (r *Runner) pauseInHand(s *Slot, t frontier.Task, next time.Time) bool {
	for {
		d := next.Sub(r.now())
		if d <= 0 {
			return false
		}
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
			return false
		case <-r.Ctx.Done():
			tm.Stop()
			return false
		case <-s.Kick:
			tm.Stop()
			r.Mu.Lock()
			swapped, _ := r.Front.SwapForUrgent(s, t) // nothing begun yet: a dropped task needs no undoing
			r.Mu.Unlock()
			if swapped {
				return true
			}
		}
	}
}

// Delay draws a lane's random pause between lanes.delay_min and delay_max (M1:
// longer than a human click interval).
func Delay(o config.LaneOptions) time.Duration {
	lo, hi := o.DelayMin, o.DelayMax
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rand.Int64N(int64(hi-lo)))
}

// sleep waits d or until the crawl stops; false means stop.
func (r *Runner) sleep(d time.Duration) bool {
	if d <= 0 {
		return r.Ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Ctx.Done():
		return false
	}
}

func (r *Runner) now() time.Time { return r.Opts.Now() }

// AdaptiveOf is the politeness options as the gate takes them.
func AdaptiveOf(p config.PolitenessOptions) Adaptive {
	return Adaptive{DelayFactor: p.DelayFactor, MaxDelay: p.MaxDelay, BackoffMin: p.BackoffMin, BackoffMax: p.BackoffMax, ForgiveAfter: p.ForgiveAfter}
}
