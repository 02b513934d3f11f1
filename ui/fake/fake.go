// Package fake is an in-memory control.Control for the console's tests, goldens and
// benchmark: a deterministic crawl snapshot (fixed times, predictable hosts) that
// records every control call and reacts to it the way the engine would.
package fake

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Epoch is the fixed "now" of the fake crawl; give the console a clock returning it
// and every countdown and uptime is stable.
var Epoch = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

// Config shapes the fake crawl.
type Config struct {
	Lanes    int // lanes alive (default 12)
	LanesMax int // lanes.max (default 16, at least Lanes)
	Egresses int // egress addresses the lanes are dealt over (default 3)
	Events   int // events already in the ring (default 40)
	// Direct makes a crawl without egress rotation (M3): lanes leave "direct",
	// Snapshot.Egress is nil and the rotation controls fail as the engine's do.
	Direct bool
	// NoDNS makes a crawl without the DNS cache (M5): Snapshot.DNS is nil and
	// FlushDNS fails.
	NoDNS bool
	// NoRevisit makes a crawl without revisit state (M2): Snapshot.Revisit is nil
	// and RevisitNow fails.
	NoRevisit bool
	// Workers makes a distributed crawl (M4) with this many workers, named
	// worker-1, worker-2, ...: Snapshot.Nodes lists them and the lanes and groups are
	// dealt over the live ones (Lane.Node, Group.Node). Each worker has its own
	// egresses (Egresses defaults to two per worker). The third worker is paused,
	// the fourth dead, the fifth leaving; the second's heartbeat is late.
	Workers int
	// Sites declares news and social sites: Snapshot.Sites lists them
	// and the Sites pane shows.
	Sites bool
	// Stories gives the crawl articles found under several URLs: Snapshot.Stories
	// lists them and the Stories pane shows.
	Stories bool
	// Skips gives the crawl URLs skipped by choice (robots.txt, scope, content type),
	// which the header counts apart from errors.
	Skips bool
	// Hosts is how many hosts the hosts report has; 0: none yet (no Hosts tab).
	Hosts int
	// Join makes a master no worker has joined yet (M4): Snapshot.Join is this
	// command, and there are no lanes (they run on workers) nor nodes.
	Join string
}

// Control is a fake control.Control. It is safe for concurrent use (SSH sessions).
type Control struct {
	mu     sync.Mutex
	snap   view.Snapshot
	events []view.Event
	calls  []string
	// plan is what PlanRebalance returns; nil means "derive one from the lanes".
	plan *view.RebalancePlan
	// addEgressErr, when set, decides AddEgress's error (see FailAddEgress).
	addEgressErr func(spec string) error
	added        int // egresses added so far, for their default names
	// hostsFlat is the hosts report's rows, changed in place by Tick; hostsDirty,
	// the chunks of it changed since the last snapshot.
	hostsFlat  []view.HostRow
	hostsDirty map[int]bool
}

var _ control.Control = (*Control)(nil)

// New builds a fake crawl from cfg.
func New(cfg Config) *Control {
	if cfg.Lanes == 0 {
		cfg.Lanes = 12
	}
	if cfg.LanesMax < cfg.Lanes {
		cfg.LanesMax = max(16, cfg.Lanes)
	}
	if cfg.Egresses == 0 {
		cfg.Egresses = 3
		if cfg.Workers > 0 {
			cfg.Egresses = 2 * cfg.Workers
		}
	}
	if cfg.Events == 0 {
		cfg.Events = 40
	}
	c := &Control{}
	c.snap = buildSnapshot(cfg)
	if cfg.Join != "" && cfg.Workers == 0 {
		c.snap.Join, c.snap.HeartbeatEvery = cfg.Join, 5*time.Second
		c.snap.Lanes, c.snap.Groups, c.snap.LanesBusy, c.snap.LanesMax, c.snap.PagesPerSec = nil, nil, 0, 0, 0
	}
	if cfg.Workers > 0 {
		buildNodes(&c.snap, cfg)
	}
	if !cfg.NoDNS {
		c.snap.DNS = buildDNS()
	}
	if !cfg.NoRevisit {
		c.snap.Revisit = buildRevisit()
	}
	if cfg.Sites {
		c.snap.Sites = buildSites()
	}
	if cfg.Hosts > 0 {
		c.snap.Hosts, c.hostsFlat = buildHosts(cfg.Hosts, cfg.Egresses)
		c.hostsDirty = map[int]bool{}
	}
	if cfg.Stories {
		c.snap.Stories = buildStories()
	}
	if cfg.Skips {
		c.snap.Totals.Skipped = map[string]int64{"robots_disallowed": 360, "out_of_scope_off_site": 1204, "content_type": 9}
	}
	if !cfg.Direct {
		c.snap.Egress = buildEgress(cfg.Egresses)
		c.snap.Totals.Deferred = 57
	}
	for i := range cfg.Events {
		c.addEvent(view.Level(i%7%4), (i%cfg.Lanes)+1, hostName(i%9), eventText(i))
	}
	c.snap.LastEvent = uint64(len(c.events))
	return c
}

func egressName(i int) string { return fmt.Sprintf("egress-%c", 'a'+rune(i)) }

func hostName(i int) string {
	kinds := []string{"news", "social", "blog"}
	return fmt.Sprintf("%s-%02d.sandbox.test", kinds[i%3], i)
}

func eventText(i int) string {
	msgs := []string{
		"lane opened",
		"fetched page",
		"refused: 429 too many requests",
		"error: connection reset",
		"lane retired: queue empty",
		"robots.txt crawl-delay 2s honoured",
	}
	return msgs[i%len(msgs)]
}

func buildSnapshot(cfg Config) view.Snapshot {
	s := view.Snapshot{
		At:        Epoch,
		State:     view.StateRunning,
		StartedAt: Epoch.Add(-(time.Hour + 2*time.Minute + 3*time.Second)),
		Totals: view.Totals{
			PagesFetched: 123456,
			PagesStored:  120001,
			BytesFetched: 4_321_000_000,
			Refused:      17,
			Errors:       map[string]int64{"timeout": 5, "reset": 3},
			URLsQueued:   250000,
			URLsDone:     123000,
			LanesPeak:    cfg.Lanes,
		},
		PagesPerSec: 42.5,
		QueueDepth:  4567,
		LanesBusy:   cfg.Lanes,
		LanesMax:    cfg.LanesMax,
	}
	for i := range 60 {
		s.RateHistory = append(s.RateHistory, float64(20+(i*7)%30))
	}
	statuses := []view.LaneStatus{view.LaneFetching, view.LaneWaiting, view.LaneWaiting, view.LaneGated, view.LaneIdle}
	for i := range cfg.Lanes {
		id := i + 1
		eg := egressName(i % cfg.Egresses)
		if cfg.Direct {
			eg = "direct"
		}
		hosts := []string{hostName(i % 40)}
		if i%4 == 0 {
			hosts = append(hosts, hostName((i+17)%40+40))
		}
		sort.Strings(hosts)
		st := statuses[i%len(statuses)]
		l := view.Lane{
			ID:      id,
			Egress:  eg,
			Hosts:   hosts,
			Parents: 1 + i%5,
			Current: fmt.Sprintf("http://%s/articles/%d/story-about-item-%d.html", hosts[0], 1000+i, i*7),
			Status:  st,
			Done:    int64(100 + (i*37)%900),
			Queued:  3 + i%11,
		}
		if st == view.LaneWaiting || st == view.LaneGated {
			l.NextFetch = Epoch.Add(time.Duration(500+(i*731)%5500) * time.Millisecond)
		}
		l.Gap, l.GapWhy = fakeGap(i)
		s.Lanes = append(s.Lanes, l)
		g := view.Group{Lane: id, Egress: eg}
		for j, h := range hosts {
			gap, why := fakeGap(i + j)
			g.Hosts = append(g.Hosts, view.HostRef{Host: h, Tasks: 2 + (i+j)%6, Gap: gap, GapWhy: why})
		}
		for p := range l.Parents {
			ref := view.ParentRef{Hash: uint64(0x9e3779b97f4a7c15) * uint64(id*10+p), Tasks: 1 + (p+i)%4}
			if p%3 != 2 {
				ref.URL = fmt.Sprintf("http://%s/section/%d", hosts[0], p)
			}
			g.Parents = append(g.Parents, ref)
		}
		s.Groups = append(s.Groups, g)
	}
	for i := range cfg.Egresses {
		s.Egresses = append(s.Egresses, egressName(i))
	}
	if cfg.Direct {
		s.Egresses = []string{"direct"}
	}
	return s
}

// addEvent appends one event to the ring; the caller holds mu (or is building).
func (c *Control) addEvent(lvl view.Level, lane int, host, msg string) {
	seq := uint64(len(c.events) + 1)
	c.events = append(c.events, view.Event{
		Seq:   seq,
		At:    Epoch.Add(-time.Duration(600-len(c.events)) * time.Second),
		Level: lvl,
		Lane:  lane,
		Host:  host,
		Msg:   msg,
	})
	c.snap.LastEvent = seq
}

// Snapshot returns a copy of the fake crawl's state (deep enough that the console
// cannot alias the fake's slices).
func (c *Control) Snapshot() view.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.snap
	s.Lanes = slices.Clone(c.snap.Lanes)
	s.Groups = slices.Clone(c.snap.Groups)
	s.Nodes = slices.Clone(c.snap.Nodes)
	s.PausedHosts = slices.Clone(c.snap.PausedHosts)
	s.DNS = cloneDNS(c.snap.DNS)
	s.Egress = cloneEgress(c.snap.Egress)
	s.Revisit = cloneRevisit(c.snap.Revisit)
	s.Sites = cloneSites(c.snap.Sites)
	s.Hosts = c.hostsSnapshot()
	s.Stories = cloneStories(c.snap.Stories)
	if s.Egress != nil { // as the engine does: no sites declared, the estimate from the egresses
		s.Sizing = &view.Sizing{}
		s.Sizing.Estimate(s.Egress)
	}
	return s
}

// EventsSince returns up to max events with Seq > after, oldest first.
func (c *Control) EventsSince(after uint64, max int) []view.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	if after >= uint64(len(c.events)) || max <= 0 {
		return nil
	}
	out := c.events[after:]
	if len(out) > max {
		out = out[:max]
	}
	return slices.Clone(out)
}

// Pause stops the fake crawl.
func (c *Control) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "Pause")
	c.snap.State = view.StatePaused
	c.addEvent(view.LevelInfo, 0, "", "crawl paused by operator")
}

// Resume restarts the fake crawl.
func (c *Control) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "Resume")
	c.snap.State = view.StateRunning
	c.addEvent(view.LevelInfo, 0, "", "crawl resumed by operator")
}

// ErrNoLane is returned for a lane ID the fake does not have.
var ErrNoLane = errors.New("no such lane")

// PauseLane pauses or resumes one lane.
func (c *Control) PauseLane(id int, paused bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("PauseLane(%d,%v)", id, paused))
	for i := range c.snap.Lanes {
		if c.snap.Lanes[i].ID == id {
			c.snap.Lanes[i].Paused = paused
			if paused {
				c.snap.Lanes[i].Status = view.LanePaused
			} else {
				c.snap.Lanes[i].Status = view.LaneWaiting
			}
			return nil
		}
	}
	return fmt.Errorf("lane %d: %w", id, ErrNoLane)
}

// ErrNoNode is returned for a worker name the fake does not have.
var ErrNoNode = errors.New("no such worker")

// PauseNode pauses or resumes one worker of the snapshot's Nodes.
func (c *Control) PauseNode(name string, paused bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("PauseNode(%s,%v)", name, paused))
	for i := range c.snap.Nodes {
		if c.snap.Nodes[i].Name == name {
			c.snap.Nodes[i].State = view.NodeActive
			if paused {
				c.snap.Nodes[i].State = view.NodePaused
				c.snap.Nodes[i].PagesPerSec = 0
			}
			// The worker's lanes stop with it (not as operator-paused lanes).
			for j := range c.snap.Lanes {
				if l := &c.snap.Lanes[j]; l.Node == name && !l.Paused {
					l.Status, l.NextFetch = view.LaneWaiting, c.snap.At.Add(time.Second)
					if paused {
						l.Status, l.NextFetch = view.LanePaused, time.Time{}
					}
				}
			}
			return nil
		}
	}
	return fmt.Errorf("worker %s: %w", name, ErrNoNode)
}

// KnowsHost is false: the fake's hosts are those its snapshot shows.
func (c *Control) KnowsHost(string) (bool, error) { return false, nil }

// PauseHost pauses or resumes one host.
func (c *Control) PauseHost(host string, paused bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("PauseHost(%s,%v)", host, paused))
	i, found := slices.BinarySearch(c.snap.PausedHosts, host)
	switch {
	case paused && !found:
		c.snap.PausedHosts = slices.Insert(slices.Clone(c.snap.PausedHosts), i, host)
	case !paused && found:
		c.snap.PausedHosts = slices.Delete(slices.Clone(c.snap.PausedHosts), i, i+1)
	}
	return nil
}

// SetMaxLanes changes lanes.max.
func (c *Control) SetMaxLanes(n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("SetMaxLanes(%d)", n))
	if n < 1 {
		return errors.New("lanes.max must be at least 1")
	}
	c.snap.LanesMax = n
	return nil
}

// SetPlan fixes what PlanRebalance returns.
func (c *Control) SetPlan(p view.RebalancePlan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.plan = &p
}

// PlanRebalance proposes moving the first lane of the busiest egress to the idlest.
func (c *Control) PlanRebalance() view.RebalancePlan {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "PlanRebalance")
	if c.plan != nil {
		return *c.plan
	}
	load := map[string]*view.EgressLoad{}
	for _, e := range c.snap.Egresses {
		load[e] = &view.EgressLoad{Egress: e}
	}
	for _, l := range c.snap.Lanes {
		if el := load[l.Egress]; el != nil {
			el.Lanes++
			el.Cost += float64(l.Queued)
		}
	}
	var p view.RebalancePlan
	for _, e := range c.snap.Egresses {
		p.Before = append(p.Before, *load[e])
	}
	if len(p.Before) < 2 {
		p.After = slices.Clone(p.Before)
		p.Summary = "one egress: nothing to move"
		return p
	}
	hi, lo := 0, 0
	for i, el := range p.Before {
		if el.Cost > p.Before[hi].Cost {
			hi = i
		}
		if el.Cost < p.Before[lo].Cost {
			lo = i
		}
	}
	p.After = slices.Clone(p.Before)
	for _, l := range c.snap.Lanes {
		if l.Egress == p.Before[hi].Egress && hi != lo {
			p.Moves = append(p.Moves, view.LaneMove{Lane: l.ID, From: l.Egress, To: p.Before[lo].Egress, Cost: float64(l.Queued)})
			p.After[hi].Lanes--
			p.After[hi].Cost -= float64(l.Queued)
			p.After[lo].Lanes++
			p.After[lo].Cost += float64(l.Queued)
			break
		}
	}
	p.Summary = fmt.Sprintf("move %d lanes; spread %.1fs -> %.1fs", len(p.Moves),
		spread(p.Before), spread(p.After))
	return p
}

func spread(loads []view.EgressLoad) float64 {
	lo, hi := loads[0].Cost, loads[0].Cost
	for _, l := range loads {
		lo, hi = min(lo, l.Cost), max(hi, l.Cost)
	}
	return hi - lo
}

// ApplyRebalance moves the plan's lanes to their new egress.
func (c *Control) ApplyRebalance(p view.RebalancePlan) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Workers {
		c.calls = append(c.calls, fmt.Sprintf("ApplyRebalance(%d units)", len(p.Units)))
		return nil
	}
	c.calls = append(c.calls, fmt.Sprintf("ApplyRebalance(%d moves)", len(p.Moves)))
	for _, mv := range p.Moves {
		for i := range c.snap.Lanes {
			if c.snap.Lanes[i].ID == mv.Lane {
				c.snap.Lanes[i].Egress = mv.To
			}
		}
		for i := range c.snap.Groups {
			if c.snap.Groups[i].Lane == mv.Lane {
				c.snap.Groups[i].Egress = mv.To
			}
		}
	}
	return nil
}

// Calls lists the control calls received so far, in order ("Pause",
// "PauseLane(3,true)", ...).
func (c *Control) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// Paused reports whether the whole crawl is paused.
func (c *Control) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap.State == view.StatePaused
}

// SetState forces the crawl state (e.g. DONE, to test quitting without a confirm).
func (c *Control) SetState(s view.State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap.State = s
}

// FailStore makes the fake a crawl that stopped itself because its store failed
// with reason, as the engine's snapshot shows it.
func (c *Control) FailStore(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap.State, c.snap.StoreError = view.StateFailed, reason
}

// Idle turns the fake into an idle crawl: no rate, every lane idle, no countdowns.
func (c *Control) Idle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap.PagesPerSec = 0
	for i := range c.snap.RateHistory {
		c.snap.RateHistory[i] = 0
	}
	for i := range c.snap.Lanes {
		c.snap.Lanes[i].Status = view.LaneIdle
		c.snap.Lanes[i].NextFetch = time.Time{}
	}
}

// RunDry turns the fake into a crawl that has run dry: every lane retired, its
// pages fetched kept.
func (c *Control) RunDry() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap.Lanes, c.snap.Groups, c.snap.LanesBusy, c.snap.PagesPerSec = nil, nil, 0, 0
}

// FailAll ends the crawl as one whose every URL failed as kind before a page was
// fetched (every seed refused by the SSRF guard, say): no lane, nothing queued.
func (c *Control) FailAll(kind string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap.Lanes, c.snap.Groups, c.snap.LanesBusy, c.snap.PagesPerSec, c.snap.QueueDepth = nil, nil, 0, 0, 0
	c.snap.Totals.PagesFetched, c.snap.Totals.PagesStored = 0, 0
	c.snap.Totals.Errors = map[string]int64{kind: n}
	c.snap.Totals.Skipped = nil
}

// Log appends an event to the ring, as the engine would for a lane or host.
func (c *Control) Log(lvl view.Level, lane int, host, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addEvent(lvl, lane, host, msg)
}

// Tick advances the fake crawl by one fetch on every non-paused lane, so the
// counters grow like a running crawl's (used by the benchmark's frame loop).
func (c *Control) Tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap.State != view.StateRunning {
		return
	}
	for i := range c.snap.Lanes {
		if !c.snap.Lanes[i].Paused && c.snap.Lanes[i].Status != view.LanePaused {
			c.snap.Lanes[i].Done++
			c.snap.Totals.PagesFetched++
		}
	}
	c.snap.At = c.snap.At.Add(time.Second)
	c.tickNodes()
	c.tickDNS()
	c.tickEgress()
	c.tickRevisit()
	c.tickHosts()
}

// fakeGap is a host's politeness gap and its reason, cycling through the four terms:
// mostly the configured delay, sometimes Crawl-delay, latency or back-off.
func fakeGap(i int) (time.Duration, string) {
	switch i % 7 {
	case 3:
		return 5 * time.Second, "crawl-delay"
	case 5:
		return time.Duration(2200+(i*97)%3000) * time.Millisecond, "latency"
	case 6:
		return time.Duration(60<<(i%3)) * time.Second, "backoff"
	}
	return 2 * time.Second, "delay"
}

// cloned is a copy of the view v (nil for nil) whose slices deep, given the copy,
// replaces with copies of their own: the snapshot handed out must not change while
// the fake's crawl goes on.
func cloned[V any](v *V, deep func(cp *V)) *V {
	if v == nil {
		return nil
	}
	cp := *v
	deep(&cp)
	return &cp
}

// clonedRows is a copy of rows in which deep replaces what each row holds by
// reference with a copy of its own.
func clonedRows[R any](rows []R, deep func(r *R)) []R {
	out := slices.Clone(rows)
	for i := range out {
		deep(&out[i])
	}
	return out
}
