package engine

import (
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/store"
)

// newLink builds an egress's link with its own cookie jar (none with cookies off).
func (e *Engine) newLink(name string, f *fetch.Fetcher, eg *egress.Egress) *route.Link {
	return route.NewLink(name, f, eg, route.NewJar(e.opts.Cookies, e.opts.Now))
}

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
		e.egress = []*route.Link{e.newLink("direct", fetch.New(e.ctx, fcfg, dialer, nil), nil)}
		e.judge = egress.NewClassifier(e.opts.Now) // the direct route: a node with one egress
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
	e.judge = e.pool.Classifier()
	e.fcfg, e.dialer = fcfg, dialer
	var names []string
	for _, a := range table.Accounts() {
		names = append(names, a.Name)
	}
	e.board = lanes.NewBoard(e.opts.Lanes.Max, names)
	e.board.Allowed = func(i int, host string) bool {
		return e.pool.Rotation().Serves(e.board.Egresses()[i], host)
	}
	e.board.Held = func(host string) bool { return e.pausedHosts[host] } // board calls run under e.mu
	e.egress = make([]*route.Link, len(names))
	for _, n := range names {
		if _, err := e.addEgressLink(n); err != nil {
			return err
		}
	}
	return nil
}

// addEgressLink gives an egress of the table its lane slot and transport; e.egress
// is indexed like the board's egresses. Caller holds e.mu (or is New).
func (e *Engine) addEgressLink(name string) (int, error) {
	i := e.board.AddEgress(name)
	if i < len(e.egress) && e.egress[i] != nil {
		return i, nil
	}
	eg, err := e.pool.Egress(name)
	if err != nil {
		return 0, err
	}
	tr, err := e.pool.Transport(name)
	if err != nil {
		return 0, err
	}
	link := e.newLink(name, fetch.New(e.ctx, e.fcfg, e.dialer, tr), eg)
	if i < len(e.egress) {
		e.egress[i] = link
	} else {
		e.egress = append(e.egress, link)
	}
	return i, nil
}

// judged classifies a fetch outcome and settles a soft refusal (evidence before
// punishment). A soft refusal another URL of the host repeated lately through
// the same egress stands as it is (the site refuses this client); otherwise the URL
// is fetched once more through the same egress, after the politeness gate, and the
// refetch's answer replaces the first: ordinary, it stands; a soft refusal again, it
// condemns this URL only (Verdict.OneURL) until another URL corroborates it; a hard
// refusal, it stands.
func (e *Engine) judged(link *route.Link, egIdx int, t frontier.Task, hdr http.Header, res *fetch.Result, ferr error) (*fetch.Result, error, egress.Verdict) {
	v := route.Verdict(e.judge, link, t.Host, res, ferr)
	if v.Class != egress.SiteBan || !v.Confirm {
		return res, ferr, v
	}
	if other, ok := e.judge.Corroborated(link.Name, t.Host, t.URL); ok {
		v.Confirm = false
		v.Reason += "; as " + other + " did"
		return res, ferr, v
	}
	e.c.confirmFetches.Add(1)
	e.logf(LevelDebug, 0, t.Host, "possible refusal of %s via %s (%s): fetching it once more", t.URL, link.Name, v.Reason)
	tk, err := e.gate.Acquire(e.ctx, egIdx, t.Host, t.ParentHash)
	if err != nil {
		return res, ferr, egress.Verdict{Class: egress.SiteError, Reason: "stopping before the refetch confirming " + v.Reason}
	}
	res2, err2 := link.F.Fetch(t.URL, hdr)
	e.gate.Release(tk)
	if fetch.Kind(err2) == fetch.KindCanceled {
		return res2, err2, egress.Verdict{Class: egress.SiteError, Reason: "stopped"}
	}
	again := route.Verdict(e.judge, link, t.Host, res2, err2)
	soft := again.Class == egress.SiteBan && again.Confirm
	v = egress.Confirmed(v, again)
	if soft {
		e.judge.NoteSoft(link.Name, t.Host, t.URL, v.Reason)
		v.OneURL = true
	}
	return res2, err2, v
}

// maxSoftDeferrals: a URL whose soft refusal repeats (and no other URL of its host
// corroborates it) is set aside and tried again later this many times before it
// fails as refused; it is not lost to one bad moment, nor retried forever.
const maxSoftDeferrals = 2

// oneURLRefusal handles a soft refusal confirmed on one URL only (Verdict.OneURL):
// the host and the egress go unpunished; the URL waits a pair-ban time and is tried
// again ("later"), or fails as refused once it has waited
// maxSoftDeferrals times. moved reports that it was deferred.
func (e *Engine) oneURLRefusal(link *route.Link, t frontier.Task, res *fetch.Result, v egress.Verdict) (moved bool) {
	if t.Attempts > maxSoftDeferrals {
		e.punished(link, t, res, v, "URL refused; host and egress not punished (no other URL repeats it)")
		if e.pool != nil {
			e.c.refused.Add(1) // the direct route's record counts its refusals
		}
		return false
	}
	wait := e.opts.Rotation.PairBanFor
	if wait <= 0 {
		wait = egress.DefaultRotationConfig().PairBanFor
	}
	until := e.now().Add(wait)
	e.punished(link, t, res, v, "URL set aside until "+until.Format(time.TimeOnly)+"; host and egress not punished (no other URL repeats it)")
	e.c.pagesFetched.Add(1) // a response handled here, not delivered
	e.mu.Lock()
	e.deferTask(t, until)
	e.mu.Unlock()
	e.flushDeferred()
	return true
}

// punished logs and stores a refusal the crawl acted on, with its evidence and what
// followed: the log line and `show URL` (store.Refusals) say why.
func (e *Engine) punished(link *route.Link, t frontier.Task, res *fetch.Result, v egress.Verdict, action string) {
	status := 0
	if res != nil {
		status = res.Status
	}
	e.logf(LevelWarn, 0, t.Host, "refusal of %s via %s (%d): %s; %s", t.URL, link.Name, status, v.Reason, action)
	e.front.refused(store.Refusal{URL: t.URL, At: e.now(), Host: t.Host, Egress: link.Name, Status: status,
		Vendor: v.Vendor, Evidence: v.Reason, Action: action})
}

// reroute handles a refusal decision for task t fetched through link: Retry moves
// the task (and the host's other tasks on that egress; every task on it after a
// proxy fault) to lanes on egresses that may serve them; DeferHost sets the host's
// URLs aside until the disable list lets it go (seed 003 step 3-2-4: never lost).
func (e *Engine) reroute(link *route.Link, t frontier.Task, v egress.Verdict, d egress.Decision) {
	e.logf(LevelWarn, 0, t.Host, "%s via %s: %s", v.Class, link.Name, d.Reason)
	e.mu.Lock()
	if d.Claimed != "" {
		if _, err := e.addEgressLink(d.Claimed); err != nil {
			e.logf(LevelError, 0, "", "egress %s: %v", d.Claimed, err)
		}
	}
	idx := e.egressIndex(link.Name)
	if v.Class != egress.ProxyFault {
		// The session belongs to an address the site refused: the host goes on
		// from another egress with that egress's own jar.
		if site := link.DropSession(t.Host); site != "" {
			e.logf(LevelDebug, 0, t.Host, "cookie session for %s on %s dropped: the host moves to another egress", site, link.Name)
		}
	}
	switch d.Action {
	case egress.Retry:
		host := t.Host
		if v.Class == egress.ProxyFault {
			host = "" // the egress is out for every host
		}
		moved := e.offBoard(e.board.Evict(host, idx))
		e.relocate(t)
		for _, m := range moved {
			e.relocate(m)
		}
	case egress.DeferHost:
		e.deferTask(t, d.Until)
		for _, m := range e.offBoard(e.board.DropHost(t.Host)) {
			e.deferTask(m, d.Until)
		}
	}
	e.mu.Unlock()
	e.flushDeferred()
}

func (e *Engine) egressIndex(name string) int {
	for i, l := range e.egress {
		if l != nil && l.Name == name {
			return i
		}
	}
	return -1
}

// relocate places a task again after its egress stopped serving its host. When no
// egress on the node may serve the host, the rotation decides: claim another from
// the table, or disable the host and defer its URLs. Caller holds e.mu.
func (e *Engine) relocate(t frontier.Task) {
	if e.pool != nil && !e.servable(t.Host) {
		d := e.pool.Pick(t.Host)
		if d.Claimed != "" {
			if _, err := e.addEgressLink(d.Claimed); err != nil {
				e.logf(LevelError, 0, "", "egress %s: %v", d.Claimed, err)
			}
		}
		if d.Action == egress.DeferHost {
			e.deferTask(t, d.Until)
			for _, m := range e.offBoard(e.board.DropHost(t.Host)) {
				e.deferTask(m, d.Until)
			}
			return
		}
	}
	e.boardAdd(t)
}

// servable reports whether some egress on the node may serve host now.
func (e *Engine) servable(host string) bool {
	for _, l := range e.egress {
		if e.pool.Rotation().Serves(l.Name, host) {
			return true
		}
	}
	return false
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
	from := e.egress[l.Egress].Name
	to := -1
	if ok && d.Egress != from {
		to = e.egressIndex(d.Egress)
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
	if e.dialer != nil {
		resolver = e.dialer.Resolver
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
	_, err = e.addEgressLink(a.Name)
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
	if i := e.egressIndex(name); i >= 0 {
		for _, t := range e.offBoard(e.board.Evict("", i)) {
			e.relocate(t)
		}
	}
	e.mu.Unlock()
	e.flushDeferred()
	e.logf(LevelInfo, 0, "", "egress %s removed by operator", name)
	return nil
}
