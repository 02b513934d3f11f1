package engine

import (
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// errNoRotation is the answer of the M3 controls on a crawl without egresses.
var errNoRotation = fmt.Errorf("no egress rotation: the crawl goes direct (give --egress SPEC)")

// RotateLane implements Control: the lane (with what it holds) moves to the least
// recently used other egress that may serve its hosts.
func (e *Engine) RotateLane(id int) (string, error) { return e.crew.RotateLane(id) }

// RotateLane moves one of this process's lanes to another egress.
func (c localCrew) RotateLane(id int) (string, error) {
	e := c.e
	if e.pool == nil {
		return "", errNoRotation
	}
	from, to, err := e.run.RotateLane(id)
	if err != nil {
		return "", err
	}
	e.logf(view.LevelInfo, id, "", "lane %d rotated by operator: %s -> %s", id, from, to)
	return to, nil
}

// SetHostDisabled implements Control.
func (e *Engine) SetHostDisabled(host string, disabled bool) error {
	return e.crew.SetHostDisabled(host, disabled)
}

// SetHostDisabled disables or enables host on this process's egress rotation.
func (c localCrew) SetHostDisabled(host string, disabled bool) error {
	e := c.e
	if e.pool == nil {
		return errNoRotation
	}
	if host == "" {
		return fmt.Errorf("no host given")
	}
	if disabled {
		until := e.run.DisableHost(host)
		e.logf(view.LevelInfo, 0, host, "host %s disabled by operator until %s", host, until.Format(time.TimeOnly))
		return nil
	}
	e.pool.Enable(host)
	e.mu.Lock()
	urls := e.deferred.TakeHost(host)
	e.mu.Unlock()
	e.front.undefer(urls, e.now())
	e.logf(view.LevelInfo, 0, host, "host %s enabled by operator; %d deferred URLs come back", host, len(urls))
	return nil
}

// AddEgress implements Control: the egress joins the table and the node's list at
// once (the operator wants it used), with its own transport. The spec comes from a
// console session: a ${env:}/${file:} password reference is refused, and so is a
// proxy on a loopback/private/link-local address that allow_private does not cover.
func (e *Engine) AddEgress(spec string) (string, error) { return e.crew.AddEgress(spec) }

// checkSessionEgress refuses an egress spec typed in a console session that names a
// password reference or a proxy on an address allow_private does not cover.
func (e *Engine) checkSessionEgress(spec string) error {
	sp, err := egress.ParseSessionSpec(spec)
	if err != nil {
		return err
	}
	var resolver fetch.Resolver
	if d := e.run.Dialer(); d != nil {
		resolver = d.Resolver
	}
	return route.CheckSessionProxy(e.ctx, sp, e.opts.AllowPrivate, resolver)
}

// AddEgress adds an egress to this process's pool and opens lanes on it.
func (c localCrew) AddEgress(spec string) (string, error) {
	e := c.e
	if e.pool == nil {
		return "", errNoRotation
	}
	if err := e.checkSessionEgress(spec); err != nil {
		return "", err
	}
	name, err := e.run.AddEgress(spec)
	if err != nil {
		return "", err
	}
	e.logf(view.LevelInfo, 0, "", "egress %s added by operator", name)
	return name, nil
}

// RemoveEgress implements Control.
func (e *Engine) RemoveEgress(name string) error { return e.crew.RemoveEgress(name) }

// RemoveEgress takes an egress out of this process's pool.
func (c localCrew) RemoveEgress(name string) error {
	e := c.e
	if e.pool == nil {
		return errNoRotation
	}
	if err := e.run.RemoveEgress(name); err != nil {
		return err
	}
	e.logf(view.LevelInfo, 0, "", "egress %s removed by operator", name)
	return nil
}
