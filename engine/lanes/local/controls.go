package local

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The operator's controls over this process's lanes, egresses and DNS cache
// (crew.Controls), each logged as the operator's.

// errNoRotation is the answer of the M3 controls on a crawl without egresses.
var errNoRotation = errors.New("no egress rotation: the crawl goes direct (give --egress SPEC)")

// onOff names a pause or a resume in the log.
var onOff = map[bool]string{true: "paused", false: "resumed"}

// PauseLane pauses or resumes one of this process's lanes.
func (c *Crew) PauseLane(id int, paused bool) error {
	c.parts.Mu.Lock()
	err := c.Board.SetPaused(id, paused)
	if err == nil && !paused {
		c.crawl.Wake()
	}
	c.parts.Mu.Unlock()
	if err != nil {
		return err
	}
	c.crawl.Logf(view.LevelInfo, id, "", "lane %d %s by operator", id, onOff[paused])
	return nil
}

// keptNote ends the log line of a host hold the store kept from the last run.
const keptNote = " (kept from the last run)"

// PauseHost holds or lets go this process's requests to host.
func (c *Crew) PauseHost(host string, paused bool) error { return c.pauseHost(host, paused, "") }

// PauseHostKept holds this process's requests to host, paused on the last run.
func (c *Crew) PauseHostKept(host string) error { return c.pauseHost(host, true, keptNote) }

// pauseHost is PauseHost whose log line ends with note.
func (c *Crew) pauseHost(host string, paused bool, note string) error {
	if host == "" {
		return errors.New("no host given")
	}
	c.parts.Mu.Lock()
	c.Run.SetHostPaused(host, paused)
	if !paused {
		c.crawl.Wake()
		if c.DNS != nil && c.parts.Opts.DNS.Prefetch && c.Run.Board != nil && c.Run.Board.Holds(host) {
			c.prefetch.Add(host) // not asked while paused (dnscache.Options.Held): due again for its lanes
		}
	}
	c.parts.Mu.Unlock()
	c.crawl.Logf(view.LevelInfo, 0, host, "host %s %s by operator%s", host, onOff[paused], note)
	return nil
}

// SetMaxLanes sets how many lanes this process runs at most.
func (c *Crew) SetMaxLanes(n int) error {
	if err := c.Run.SetMax(n); err != nil {
		return err
	}
	c.crawl.Logf(view.LevelInfo, 0, "", "lanes.max set to %d by operator", n)
	return nil
}

// PlanRebalance re-deals this process's lanes over its egress addresses by their
// observed work (lanes.Runner.PlanRebalance): a task costs the mean fetch time plus
// the mean lane pause.
func (c *Crew) PlanRebalance() view.RebalancePlan {
	o := c.parts.Opts
	return c.Run.PlanRebalance((c.parts.Cost.Mean() + (o.Lanes.DelayMin+o.Lanes.DelayMax)/2).Seconds())
}

// ApplyRebalance carries out a plan over this process's egresses.
func (c *Crew) ApplyRebalance(p view.RebalancePlan) error {
	moved, err := c.Run.ApplyRebalance(p)
	c.crawl.Logf(view.LevelInfo, 0, "", "rebalance applied: %d of %d lanes moved", moved, len(p.Moves))
	return err
}

// RotateLane moves one of this process's lanes (with what it holds) to the least
// recently used other egress that may serve its hosts.
func (c *Crew) RotateLane(id int) (string, error) {
	if c.Pool == nil {
		return "", errNoRotation
	}
	from, to, err := c.Run.RotateLane(id)
	if err != nil {
		return "", err
	}
	c.crawl.Logf(view.LevelInfo, id, "", "lane %d rotated by operator: %s -> %s", id, from, to)
	return to, nil
}

// SetHostDisabled puts host on this process's host_disable_list, or takes it off
// and brings its deferred URLs back at once.
func (c *Crew) SetHostDisabled(host string, disabled bool) error {
	return c.disable(host, disabled, 0, "")
}

// DisableHostFor puts host on this process's host_disable_list for d (<= 0:
// rotation.disable_for): a worker holds its master's disable for what is left of it.
func (c *Crew) DisableHostFor(host string, d time.Duration) error {
	return c.disable(host, true, d, "")
}

// DisableHostKept puts host on this process's host_disable_list for d, what is
// left of a disable the last run kept.
func (c *Crew) DisableHostKept(host string, d time.Duration) error {
	return c.disable(host, true, d, keptNote)
}

// disable is SetHostDisabled for d, its log line ending with note.
func (c *Crew) disable(host string, disabled bool, d time.Duration, note string) error {
	if c.Pool == nil {
		return errNoRotation
	}
	if host == "" {
		return errors.New("no host given")
	}
	if disabled {
		until := c.Run.DisableHost(host, d)
		c.crawl.Logf(view.LevelInfo, 0, host, "host %s disabled by operator until %s%s", host, until.Format(time.TimeOnly), note)
		return nil
	}
	c.Pool.Enable(host)
	c.parts.Mu.Lock()
	urls := c.deferred.TakeHost(host)
	c.parts.Mu.Unlock()
	// The deferrals not written yet (FlushDeferred runs each second) go to the
	// store first: written after the undo, they would set the URLs aside again
	// until the disable's end.
	c.FlushDeferred()
	c.crawl.Undefer(urls, c.crawl.Now())
	c.crawl.Logf(view.LevelInfo, 0, host, "host %s enabled by operator; %d deferred URLs come back", host, len(urls))
	return nil
}

// CheckSessionEgress refuses an egress spec typed in a console session that names
// a password reference or a proxy on an address allow_private does not cover. A
// master asks it too (its egresses are its workers'), so a bind: address is checked
// against this machine only where this process sends from it (AddEgress).
func (c *Crew) CheckSessionEgress(spec string) error {
	sp, err := egress.ParseSessionSpec(spec)
	if err != nil {
		return err
	}
	var resolver fetch.Resolver
	if d := c.Run.Dialer(); d != nil {
		resolver = d.Resolver
	}
	return route.CheckSessionProxy(c.parts.Ctx, sp, c.parts.Opts.AllowPrivate, resolver)
}

// AddEgress adds an egress to this process's pool at once (the operator wants it
// used), with its own transport, and opens lanes on it. The spec comes from a
// console session (CheckSessionEgress).
func (c *Crew) AddEgress(spec string) (string, error) {
	if c.Pool == nil {
		return "", errNoRotation
	}
	if err := c.CheckSessionEgress(spec); err != nil {
		return "", err
	}
	// As the start-up config is checked: a bind: address this machine cannot send from.
	if sp, err := egress.ParseSessionSpec(spec); err == nil {
		if err := sp.CheckBind(); err != nil {
			return "", err
		}
	}
	name, err := c.Run.AddEgress(spec)
	if err != nil {
		return "", err
	}
	c.crawl.Logf(view.LevelInfo, 0, "", "egress %s added by operator", name)
	return name, nil
}

// RemoveEgress takes an egress out of this process's pool; its lanes move to the
// others.
func (c *Crew) RemoveEgress(name string) error {
	if c.Pool == nil {
		return errNoRotation
	}
	if err := c.Run.RemoveEgress(name); err != nil {
		return err
	}
	c.crawl.Logf(view.LevelInfo, 0, "", "egress %s removed by operator", name)
	return nil
}

// FlushDNS empties this process's DNS cache of domain (all of it for "").
func (c *Crew) FlushDNS(domain string) (int, error) {
	if c.DNS == nil {
		return 0, errors.New("no DNS cache: a custom resolver is in use")
	}
	n := c.DNS.Flush(domain)
	what := domain
	if domain == "" {
		what = "all"
	}
	c.crawl.Logf(view.LevelInfo, 0, "", "DNS cache flushed (%s): %d entries", what, n)
	return n, nil
}

// CheckTarget applies the SSRF policy (fetch.Guard) to a URL's host before it is
// queued, so an operator learns at once that a seed on a private address will never
// be fetched. The dialer checks again on every connection.
func (c *Crew) CheckTarget(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return c.parts.Guard.Check(host, a.Unmap())
	}
	var r fetch.Resolver
	switch {
	case c.DNS != nil:
		r = c.DNS
	case c.parts.Opts.Resolver != nil:
		r = c.parts.Opts.Resolver
	case host == "localhost":
		return c.parts.Guard.Check(host, netip.MustParseAddr("127.0.0.1"))
	default:
		// A master resolves nothing itself: its workers' DNS caches (and their
		// dialers' guard, on every connection) do. A name on a private address is
		// then refused at its fetch, counted as ssrf_blocked.
		return nil
	}
	ctx, cancel := context.WithTimeout(c.parts.Ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupAddrs(ctx, host)
	if err != nil {
		return fmt.Errorf("%s does not resolve (%v): check the name", host, err)
	}
	for _, a := range addrs {
		if err := c.parts.Guard.Check(host, a.Unmap()); err != nil {
			return err
		}
	}
	return nil
}
