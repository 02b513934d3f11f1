package local

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Supply is what a worker's egresses come from besides Options.Egress (M4): the
// ones its master granted at join, and a way to claim another from the master's
// account table when all of its own were refused (seed 003 step 3-2-3).
type Supply struct {
	Granted []egress.Spec
	Claim   func(add func(egress.Spec) error) bool
}

// Equip builds this process's fetching side: the resolver (the DNS cache unless
// Options.Resolver is set), the egresses (and a worker's supply, nil on one box),
// the board, the politeness gate and the renderer of pages that need a browser.
// kept is the store the DNS cache starts warm from and the egress accounts and
// render verdicts are kept in: this process's own, nil on a worker.
func (c *Crew) Equip(supply *Supply, kept *store.Store) error {
	o := c.parts.Opts
	var resolver fetch.Resolver = o.Resolver
	if resolver == nil {
		var meta Meta // the cache starts warm with what the last run left in the store
		if kept != nil {
			meta = kept
		}
		var err error
		if c.DNS, err = NewResolver(o.DNS, o.DNSServers, c.Run.Holds, c.Run.HostHeld, o.Now, meta); err != nil {
			return err
		}
		resolver = c.DNS
	}
	s := lanes.EgressSetup{Resolver: resolver, Guard: c.parts.Guard, Fetch: c.Run.FetchConfig(),
		Held: c.Run.HostPaused} // board calls run under Mu
	if supply != nil {
		s.Granted, s.Claim = supply.Granted, supply.Claim
	}
	if kept != nil && (len(o.Egress) > 0 || len(s.Granted) > 0) {
		c.Accounts = route.NewAccounts(kept, func(msg string) { c.crawl.Logf(view.LevelWarn, 0, "", "%s", msg) })
		s.Accounts = c.Accounts
	}
	if err := c.Run.SetupEgress(s); err != nil {
		return err
	}
	c.Board, c.Pool = c.Run.Board, c.Run.Pool
	c.Run.NewGate()
	c.setupRender(kept)
	return nil
}

// EquipBoard gives the crew a board with no egress: a master's, whose workers
// resolve, fetch and rotate egresses.
func (c *Crew) EquipBoard() {
	c.Board = lanes.NewBoard(c.parts.Opts.Lanes.Max, nil)
	c.Run.Board = c.Board
}

// setupRender gives the lanes a renderer when a browser is found and render.mode
// is not off; without a browser the crawl says so once and fetches plainly. The
// verdicts an earlier run kept come from kept (none on a worker).
func (c *Crew) setupRender(kept *store.Store) {
	o := c.parts.Opts.Render
	if strings.EqualFold(o.Mode, "off") {
		return
	}
	pool, err := render.NewPool(render.Config{Browser: o.Browser, Contexts: o.Contexts, Timeout: o.Timeout,
		YieldLimit: o.YieldLimit, StartTimeout: o.StartTimeout, MaxRequests: o.MaxRequests, MemoryMB: o.MemoryMB, Block: o.Block, AllowHosts: o.AllowHosts, Shared: o.Shared,
		Logf: func(format string, args ...any) { c.crawl.Logf(view.LevelWarn, 0, "", format, args...) }})
	if err != nil {
		if o.Browser != "" || !errors.Is(err, render.ErrNoBrowser) {
			c.crawl.Logf(view.LevelWarn, 0, "", "%v; pages are fetched without rendering", err)
		}
		return
	}
	d := &render.Decider{RecheckEvery: o.RecheckEvery, ModeFor: func(host string) render.Mode {
		m, _ := render.ParseMode(o.RenderModeFor(host))
		return m
	}}
	c.Renderer = render.NewService(pool, d)
	c.Renderer.Jar = c.Run.Jar
	c.Renderer.ScrollFor = o.RenderScrollFor
	c.Run.Render = c.Renderer
	if kept != nil {
		if b, err := kept.GetMeta(render.VerdictsKey); err == nil {
			var vs render.Verdicts
			if json.Unmarshal(b, &vs) == nil {
				d.Restore(vs)
			}
		}
	}
}

// RunPrefetch resolves the queued hosts ahead of their lanes (M5) until the crawl
// stops; it returns at once without a DNS cache or with dns.prefetch off.
func (c *Crew) RunPrefetch() {
	if c.DNS != nil && c.parts.Opts.DNS.Prefetch {
		c.prefetch.Run(c.parts.Ctx, c.DNS)
	}
}

// Wait returns once every lane's run has ended (the crawl's context ended them)
// and every render they handed off delivered its page, and ends the browser.
func (c *Crew) Wait() {
	c.Run.Wait()
	if c.Renderer != nil {
		c.Renderer.Pool.Close()
	}
}

// Save keeps what the lanes learned in st, once they stopped: the DNS cache, and
// the lanes still open with the pages they fetched (only a lane that ran dry was
// recorded, so a clean stop left the others open with no pages in the stats' lane
// history, until the next start closed them empty).
func (c *Crew) Save(st *store.Store, at time.Time) {
	if c.DNS != nil {
		SaveResolver(c.DNS, st)
	}
	type open struct {
		id   int
		done int64
	}
	var still []open
	c.parts.Mu.Lock()
	for _, ls := range c.Run.Slots() {
		still = append(still, open{ls.Lane.ID, ls.Lane.Done()})
	}
	c.parts.Mu.Unlock()
	// Recorded without Mu: a full write queue waits for the writer, whose
	// callbacks take Mu (as a lane that ran dry does).
	for _, l := range still {
		c.crawl.LaneRetired(l.id, at, l.done)
	}
}

// Close ends the DNS cache, the egresses' transports and the rotation, once the
// crawl stopped (or was never started).
func (c *Crew) Close() {
	if c.DNS != nil {
		c.DNS.Close()
	}
	c.Run.Close()
	if c.Pool != nil {
		c.Pool.Close()
	}
}

// DNSView is the DNS pane of this process's cache, refreshed at most once a
// second; nil with a custom resolver.
func (c *Crew) DNSView(now time.Time) *view.DNSView {
	if c.DNS == nil {
		return nil
	}
	v := c.dnsView.Get(c.DNS, now)
	return &v
}

// Telemetry adds this process's lanes' figures to t: the DNS cache's waits.
func (c *Crew) Telemetry(t *view.Telemetry) {
	if c.DNS != nil {
		h := histogramOf(c.DNS.WaitHistogram())
		t.DNSWait = &h
	}
}

func histogramOf(c dnscache.Cumulative) view.Histogram {
	return view.Histogram{Count: c.Count, Sum: c.Sum, Buckets: c.Buckets}
}

// RenderTelemetry is the renderer's pool and cost for /metrics and the console;
// nil when pages are not rendered.
func (c *Crew) RenderTelemetry() *view.RenderStats {
	if c.Renderer == nil {
		return nil
	}
	st := c.Renderer.Pool.Stats()
	r := &view.RenderStats{Running: st.Running, Starting: st.Starting, Stopping: st.Stopping, Hung: st.Hung, Contexts: st.Contexts, Busy: st.Busy,
		PSSMB: st.PSSMB, Renders: st.Renders, Failed: st.Failed, Recycled: st.Recycled, Restarts: st.Restarts, Unsettled: st.Unsettled,
		WaitedOut: st.WaitedOut}
	for i, h := range c.Renderer.Hosts() {
		r.Requests += h.Requests
		r.Seconds += h.Time.Seconds()
		if i < view.RenderTopHosts {
			r.Hosts = append(r.Hosts, view.RenderHost{Host: h.Host, Renders: h.Renders, Failed: h.Failed, Requests: h.Requests,
				Seconds: h.Time.Seconds(), Unsettled: h.Unsettled})
		}
	}
	return r
}
