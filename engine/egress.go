package engine

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/store"
)

// setupEgress builds the egresses: the direct route when none is configured, else
// the M3 account table, this node's rotation and one transport per egress.
//
// A worker's egresses (we, M4) join its --egress specs in an in-memory table, and
// it claims more from its master's table.
func (e *Engine) setupEgress(resolver fetch.Resolver, guard *fetch.Guard, fcfg fetch.Config, we *workerEgress) error {
	dialer := &fetch.Dialer{Resolver: resolver, Guard: guard, Timeout: e.opts.Fetch.ConnectTimeout}
	var granted []egress.Spec
	if we != nil {
		granted = we.granted
	}
	if len(e.opts.Egress) == 0 && len(granted) == 0 {
		e.board = lanes.NewBoard(e.opts.Lanes.Max, []string{"direct"})
		e.run.Board = e.board
		e.run.Links = []*route.Link{e.run.NewLink("direct", fetch.New(e.ctx, fcfg, dialer, nil), nil)}
		e.run.Judge = egress.NewClassifier(e.opts.Now) // the direct route: a node with one egress
		return nil
	}
	specs, err := egress.ParseSpecs(e.opts.Egress)
	if err != nil {
		return err
	}
	specs = append(specs, granted...)
	var accounts egress.AccountStore = &egress.MemoryStore{}
	if e.st != nil {
		e.accounts = route.NewAccounts(e.st, func(msg string) { e.logf(LevelWarn, 0, "", "%s", msg) })
		accounts = e.accounts
	}
	table, err := egress.OpenTable(accounts, specs)
	if err != nil {
		return err
	}
	ro := e.opts.Rotation
	perNode := ro.PerNode
	if perNode <= 0 {
		perNode = len(table.Accounts())
	}
	var master egress.Master
	if we != nil && we.claim != nil {
		master = route.RemoteClaims{Table: table, FromMaster: we.claim}
	}
	e.pool, err = egress.NewPool(table, egress.PoolConfig{
		Master: master,
		Rotation: egress.RotationConfig{PerNode: perNode, DisableFor: ro.DisableFor,
			PairBanFor: ro.PairBanFor, FaultCooldown: ro.FaultCooldown, Now: e.opts.Now},
		Transport: egress.TransportConfig{
			Resolve:               resolver.LookupAddrs,
			Guard:                 func(a netip.Addr) error { return guard.Check("", a) },
			DialTimeout:           e.opts.Fetch.ConnectTimeout,
			ResponseHeaderTimeout: e.opts.Fetch.Timeout,
		},
	})
	if err != nil {
		return err
	}
	e.run.Pool, e.run.Judge = e.pool, e.pool.Classifier()
	e.run.SetTransport(fcfg, dialer)
	var names []string
	for _, a := range table.Accounts() {
		names = append(names, a.Name)
	}
	e.board = lanes.NewBoard(e.opts.Lanes.Max, names)
	e.board.Allowed = func(i int, host string) bool {
		return e.pool.Rotation().Serves(e.board.Egresses()[i], host)
	}
	e.board.Held = func(host string) bool { return e.pausedHosts[host] } // board calls run under e.mu
	e.run.Board = e.board
	e.run.Links = make([]*route.Link, len(names))
	for _, n := range names {
		if _, err := e.run.AddLink(n); err != nil {
			return err
		}
	}
	return nil
}

// deferTask sets a task aside until a time (M3: disabled host). The store write
// happens in flushDeferred, outside e.mu. Caller holds e.mu.
func (e *Engine) deferTask(t frontier.Task, until time.Time) {
	e.deferred = append(e.deferred, deferredTask{url: t.URL, until: until, task: t})
	if e.deferredByHost == nil {
		e.deferredByHost = map[string][]string{}
	}
	e.deferredByHost[t.Host] = append(e.deferredByHost[t.Host], t.URL)
}

type deferredTask struct {
	url   string
	until time.Time
	task  frontier.Task // what a worker reports to its master (M4)
}

// flushDeferred writes pending deferrals to the store.
func (e *Engine) flushDeferred() {
	e.mu.Lock()
	list := e.deferred
	e.deferred = nil
	e.mu.Unlock()
	if len(list) > 0 {
		e.front.deferURLs(list)
	}
	e.flushSteeredOut() // withdrawn on their way to the board, like deferrals
}

// maintainDeferred keeps deferred URLs moving while the crawl runs: deferrals are
// written, expired host_disable_list entries removed (M3), and deferred URLs whose
// time has come (a disabled host, an unreachable robots.txt) are queued again.
func (e *Engine) maintainDeferred() {
	defer e.wg.Done()
	defer e.flushDeferred() // before Done: nothing deferred is left unwritten at Stop
	e.every(time.Second, func(now time.Time) {
		e.flushDeferred()
		if e.pool != nil {
			if removed := e.pool.BeginRound(now); len(removed) > 0 {
				e.logf(LevelInfo, 0, "", "host_disable_list: %d hosts back in the crawl", len(removed))
			}
		}
		e.requeueDeferred()
	})
}

// requeueDeferred brings back deferred URLs whose time has passed.
func (e *Engine) requeueDeferred() {
	if e.st == nil {
		return // a worker: the master requeues what its workers deferred
	}
	rows, err := e.st.DueDeferred(1000)
	if err != nil || len(rows) == 0 {
		return
	}
	for _, r := range rows {
		e.st.SetState(r.URL, store.Unprocessed, 0, "")
	}
	e.mu.Lock()
	for _, r := range rows {
		e.place(taskOf(r))
	}
	e.mu.Unlock()
	e.flushDeferred()
}

// errNoRotation is the answer of the M3 controls on a crawl without egresses.
var errNoRotation = fmt.Errorf("no egress rotation: the crawl goes direct (give --egress SPEC)")

// RotateLane implements Control: the lane (with what it holds) moves to the least
// recently used other egress that may serve its hosts.
func (e *Engine) RotateLane(id int) (string, error) {
	if e.cluster != nil {
		return e.cluster.rotateLane(id)
	}
	if e.pool == nil {
		return "", errNoRotation
	}
	d, ok := e.pool.RotateNow()
	e.mu.Lock()
	l, live := e.board.Lane(id)
	if !live {
		e.mu.Unlock()
		return "", fmt.Errorf("no lane %d", id)
	}
	from := e.run.Links[l.Egress].Name
	to := -1
	if ok && d.Egress != from {
		to = e.run.Index(d.Egress)
	}
	var err error
	if to < 0 {
		err = fmt.Errorf("lane %d: no other egress to rotate to", id)
	} else {
		err = e.board.SetEgress(id, to)
	}
	e.mu.Unlock()
	if err != nil {
		return "", err
	}
	e.logf(LevelInfo, id, "", "lane %d rotated by operator: %s -> %s", id, from, d.Egress)
	return d.Egress, nil
}

// SetHostDisabled implements Control.
func (e *Engine) SetHostDisabled(host string, disabled bool) error {
	if e.cluster != nil {
		return e.cluster.hostControl("disable_host", host, disabled)
	}
	if e.pool == nil {
		return errNoRotation
	}
	if host == "" {
		return fmt.Errorf("no host given")
	}
	if disabled {
		dur := e.opts.Rotation.DisableFor
		e.pool.Disable(host, dur)
		until, _ := e.pool.Rotation().DisabledUntil(host)
		e.mu.Lock()
		for _, t := range e.offBoard(e.board.DropHost(host)) {
			e.deferTask(t, until)
		}
		e.mu.Unlock()
		e.flushDeferred()
		e.logf(LevelInfo, 0, host, "host %s disabled by operator until %s", host, until.Format(time.TimeOnly))
		return nil
	}
	e.pool.Enable(host)
	e.mu.Lock()
	urls := e.deferredByHost[host]
	delete(e.deferredByHost, host)
	e.mu.Unlock()
	for _, u := range urls {
		if e.st != nil {
			e.st.Defer(u, e.now()) // due now: requeueDeferred brings it back
		}
	}
	e.logf(LevelInfo, 0, host, "host %s enabled by operator; %d deferred URLs come back", host, len(urls))
	return nil
}

// AddEgress implements Control: the egress joins the table and the node's list at
// once (the operator wants it used), with its own transport. The spec comes from a
// console session: a ${env:}/${file:} password reference is refused, and so is a
// proxy on a loopback/private/link-local address that allow_private does not cover.
func (e *Engine) AddEgress(spec string) (string, error) {
	if e.cluster == nil && e.pool == nil {
		return "", errNoRotation
	}
	sp, err := egress.ParseSessionSpec(spec)
	if err != nil {
		return "", err
	}
	var resolver fetch.Resolver
	if d := e.run.Dialer(); d != nil {
		resolver = d.Resolver
	}
	if err := route.CheckSessionProxy(e.ctx, sp, e.opts.AllowPrivate, resolver); err != nil {
		return "", err
	}
	if e.cluster != nil {
		return e.cluster.addEgress(spec)
	}
	a, err := e.pool.Add(spec)
	if err != nil {
		return "", err
	}
	e.pool.Rotation().Add(a.Name)
	e.mu.Lock()
	_, err = e.run.AddLink(a.Name)
	opened, _ := e.board.SetMax(e.board.Max()) // new room: pending tasks may open lanes on it
	for _, l := range opened {
		e.startLane(l)
	}
	e.mu.Unlock()
	if err != nil {
		return "", err
	}
	e.logf(LevelInfo, 0, "", "egress %s added by operator", a.Name)
	return a.Name, nil
}

// RemoveEgress implements Control.
func (e *Engine) RemoveEgress(name string) error {
	if e.cluster != nil {
		return e.cluster.removeEgress(name)
	}
	if e.pool == nil {
		return errNoRotation
	}
	if err := e.pool.Remove(name); err != nil {
		return err
	}
	e.mu.Lock()
	if i := e.run.Index(name); i >= 0 {
		for _, t := range e.offBoard(e.board.Evict("", i)) {
			e.run.Relocate(t)
		}
	}
	e.mu.Unlock()
	e.flushDeferred()
	e.logf(LevelInfo, 0, "", "egress %s removed by operator", name)
	return nil
}
