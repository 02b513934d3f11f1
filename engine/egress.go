package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cookies"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/store"
)

// egressLink is one egress address with its keep-alive transport (one per egress).
type egressLink struct {
	name string
	f    *fetch.Fetcher
	eg   *egress.Egress // nil for the direct route
	jar  *cookies.Jar   // this egress's cookie sessions, one per site; nil with cookies off
}

// newEgressLink builds an egress's fetcher and gives it its own cookie jar.
func (e *Engine) newEgressLink(name string, f *fetch.Fetcher, eg *egress.Egress) *egressLink {
	l := &egressLink{name: name, f: f, eg: eg, jar: e.newJar()}
	if l.jar != nil {
		f.SetJar(l.jar)
	}
	return l
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
		e.egress = []*egressLink{e.newEgressLink("direct", fetch.New(e.ctx, fcfg, dialer, nil), nil)}
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
		e.accounts = &metaAccounts{st: e.st, kick: make(chan struct{}, 1),
			warn: func(msg string) { e.logf(LevelWarn, 0, "", "%s", msg) }}
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
		master = remoteClaims{Table: table, claim: we.claim}
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
	e.egress = make([]*egressLink, len(names))
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
	link := e.newEgressLink(name, fetch.New(e.ctx, e.fcfg, e.dialer, tr), eg)
	if i < len(e.egress) {
		e.egress[i] = link
	} else {
		e.egress = append(e.egress, link)
	}
	return i, nil
}

// verdict classifies a fetch outcome on either route with the engine's one
// classifier: through an egress, the egress says which failures are the
// proxy's; the direct route is a node with one egress that never has proxy faults.
func (e *Engine) verdict(link *egressLink, host string, res *fetch.Result, ferr error) egress.Verdict {
	var r egress.Response
	if link.eg != nil {
		var resp *http.Response
		var body []byte
		if res != nil && ferr == nil {
			u, _ := url.Parse(res.FinalURL)
			resp = &http.Response{StatusCode: res.Status, Header: res.Header, ContentLength: int64(len(res.Body)),
				Request: &http.Request{URL: u}}
			body = res.Body // the judge reads what it needs of it (blockpage's bounds)
		}
		r = link.eg.Response(host, resp, body, ferr)
	} else {
		r = egress.Response{Host: host, Err: ferr}
		if res != nil && ferr == nil {
			r = classified(res)
			r.Host = host
		}
	}
	if res != nil && ferr == nil {
		r.BodyLen, r.URL, r.Links = int64(len(res.Body)), res.FinalURL, len(res.Links)
		if res.Parsed != nil {
			r.Text = res.Parsed.PageText // the fetcher's pass: the page is not tokenized again
		}
		if r.URL == "" {
			r.URL = res.URL
		}
	}
	return e.judge.Classify(r)
}

// judged classifies a fetch outcome and settles a soft refusal (evidence before
// punishment). A soft refusal another URL of the host repeated lately through
// the same egress stands as it is (the site refuses this client); otherwise the URL
// is fetched once more through the same egress, after the politeness gate, and the
// refetch's answer replaces the first: ordinary, it stands; a soft refusal again, it
// condemns this URL only (Verdict.OneURL) until another URL corroborates it; a hard
// refusal, it stands.
func (e *Engine) judged(link *egressLink, egIdx int, t frontier.Task, hdr http.Header, res *fetch.Result, ferr error) (*fetch.Result, error, egress.Verdict) {
	v := e.verdict(link, t.Host, res, ferr)
	if v.Class != egress.SiteBan || !v.Confirm {
		return res, ferr, v
	}
	if other, ok := e.judge.Corroborated(link.name, t.Host, t.URL); ok {
		v.Confirm = false
		v.Reason += "; as " + other + " did"
		return res, ferr, v
	}
	e.c.confirmFetches.Add(1)
	e.logf(LevelDebug, 0, t.Host, "possible refusal of %s via %s (%s): fetching it once more", t.URL, link.name, v.Reason)
	tk, err := e.gate.Acquire(e.ctx, egIdx, t.Host, t.ParentHash)
	if err != nil {
		return res, ferr, egress.Verdict{Class: egress.SiteError, Reason: "stopping before the refetch confirming " + v.Reason}
	}
	res2, err2 := link.f.Fetch(t.URL, hdr)
	e.gate.Release(tk)
	if fetch.Kind(err2) == fetch.KindCanceled {
		return res2, err2, egress.Verdict{Class: egress.SiteError, Reason: "stopped"}
	}
	again := e.verdict(link, t.Host, res2, err2)
	soft := again.Class == egress.SiteBan && again.Confirm
	v = egress.Confirmed(v, again)
	if soft {
		e.judge.NoteSoft(link.name, t.Host, t.URL, v.Reason)
		v.OneURL = true
	}
	return res2, err2, v
}

// rotationAction says what the rotation did about a refusal, for punished.
func rotationAction(from string, d egress.Decision) string {
	switch d.Action {
	case egress.Retry:
		return "pair " + from + " banned; retried via " + d.Egress
	case egress.DeferHost:
		return "pair " + from + " banned; every egress refused: host disabled until " + d.Until.Format(time.TimeOnly)
	}
	return "pair " + from + " banned"
}

// maxSoftDeferrals: a URL whose soft refusal repeats (and no other URL of its host
// corroborates it) is set aside and tried again later this many times before it
// fails as refused; it is not lost to one bad moment, nor retried forever.
const maxSoftDeferrals = 2

// oneURLRefusal handles a soft refusal confirmed on one URL only (Verdict.OneURL):
// the host and the egress go unpunished; the URL waits a pair-ban time and is tried
// again ("later"), or fails as refused once it has waited
// maxSoftDeferrals times. moved reports that it was deferred.
func (e *Engine) oneURLRefusal(link *egressLink, t frontier.Task, res *fetch.Result, v egress.Verdict) (moved bool) {
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

// classified is what the classifier reads of a fetched response on the direct
// route: status, headers and body (blockpage.Judge scans the first 32 KiB for
// markers and extracts main text from the first 256 KiB).
func classified(res *fetch.Result) egress.Response {
	return egress.Response{Status: res.Status, Header: res.Header, Body: res.Body, BodyLen: int64(len(res.Body))}
}

// punished logs and stores a refusal the crawl acted on, with its evidence and what
// followed: the log line and `show URL` (store.Refusals) say why.
func (e *Engine) punished(link *egressLink, t frontier.Task, res *fetch.Result, v egress.Verdict, action string) {
	status := 0
	if res != nil {
		status = res.Status
	}
	e.logf(LevelWarn, 0, t.Host, "refusal of %s via %s (%d): %s; %s", t.URL, link.name, status, v.Reason, action)
	e.front.refused(store.Refusal{URL: t.URL, At: e.now(), Host: t.Host, Egress: link.name, Status: status,
		Vendor: v.Vendor, Evidence: v.Reason, Action: action})
}

// reroute handles a refusal decision for task t fetched through link: Retry moves
// the task (and the host's other tasks on that egress; every task on it after a
// proxy fault) to lanes on egresses that may serve them; DeferHost sets the host's
// URLs aside until the disable list lets it go (seed 003 step 3-2-4: never lost).
func (e *Engine) reroute(link *egressLink, t frontier.Task, v egress.Verdict, d egress.Decision) {
	e.logf(LevelWarn, 0, t.Host, "%s via %s: %s", v.Class, link.name, d.Reason)
	e.mu.Lock()
	if d.Claimed != "" {
		if _, err := e.addEgressLink(d.Claimed); err != nil {
			e.logf(LevelError, 0, "", "egress %s: %v", d.Claimed, err)
		}
	}
	idx := e.egressIndex(link.name)
	if v.Class != egress.ProxyFault {
		e.dropSession(link, t.Host)
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
		if l != nil && l.name == name {
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
		if e.pool.Rotation().Serves(l.name, host) {
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

// metaAccounts persists the egress account table and the host_disable_list in the
// store's meta table. Saves are asynchronous (latest value wins) so that rotation,
// which may run under the engine's lock, never waits on the store writer.
type metaAccounts struct {
	st   *store.Store
	kick chan struct{}

	// warn reports a stored egress that Load left out (its secret reference no
	// longer resolves). nil: the warning goes straight to the store's event log.
	warn func(msg string)

	mu       sync.Mutex
	accounts []byte
	disabled []byte
}

const (
	accountsMetaKey = "egress.accounts.v1"
	disabledMetaKey = "egress.disabled.v1"
)

// persistedAccount is an account as stored. A password given as an env/file
// reference is stored as that reference; a literal password is never written to
// disk: the config or flags that gave it give it again on the next run (OpenTable
// merges them by name), and an account without them cannot authenticate.
type persistedAccount struct {
	Name, Kind, Address, User, Secret, Node, State string
}

// Load implements egress.AccountStore.
func (m *metaAccounts) Load() ([]egress.Account, error) {
	b, err := m.st.GetMeta(accountsMetaKey)
	if err != nil || len(b) == 0 {
		return nil, nil
	}
	var ps []persistedAccount
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, fmt.Errorf("stored egress table is unreadable: %v", err)
	}
	out := make([]egress.Account, 0, len(ps))
	for _, p := range ps {
		sec, err := egress.ParseSecret(p.Secret)
		if err != nil {
			// A stored reference that no longer resolves (an unset variable, a
			// missing file) never stops the start: that egress is left out, and
			// said so. The error names the reference, never a password.
			m.warnf("stored egress %s skipped: %v; it is left out of the account table (give it again in the config or flags)", p.Name, err)
			continue
		}
		out = append(out, egress.Account{Name: p.Name, Kind: egress.Kind(p.Kind), Address: p.Address, User: p.User,
			Secret: sec, Node: p.Node, State: egress.AccountState(p.State)})
	}
	return out, nil
}

// warnf reports a warning through warn, or to the store's event log without one.
func (m *metaAccounts) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if m.warn != nil {
		m.warn(msg)
		return
	}
	m.st.AddEvent(time.Now(), int(LevelWarn), 0, "", msg)
}

// Save implements egress.AccountStore.
func (m *metaAccounts) Save(as []egress.Account) error {
	ps := make([]persistedAccount, len(as))
	for i, a := range as {
		ps[i] = persistedAccount{Name: a.Name, Kind: string(a.Kind), Address: a.Address, User: a.User,
			Secret: a.Secret.Ref(), Node: a.Node, State: string(a.State)}
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.accounts = b
	m.mu.Unlock()
	m.signal()
	return nil
}

// LoadDisabled implements egress.DisableListStore.
func (m *metaAccounts) LoadDisabled() ([]egress.DisabledHost, error) {
	b, err := m.st.GetMeta(disabledMetaKey)
	if err != nil || len(b) == 0 {
		return nil, nil
	}
	var list []egress.DisabledHost
	return list, json.Unmarshal(b, &list)
}

// SaveDisabled implements egress.DisableListStore.
func (m *metaAccounts) SaveDisabled(list []egress.DisabledHost) error {
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.disabled = b
	m.mu.Unlock()
	m.signal()
	return nil
}

func (m *metaAccounts) signal() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// write stores whatever changed since the last call.
func (m *metaAccounts) write() {
	m.mu.Lock()
	a, d := m.accounts, m.disabled
	m.accounts, m.disabled = nil, nil
	m.mu.Unlock()
	if a != nil {
		m.st.SetMeta(accountsMetaKey, a)
	}
	if d != nil {
		m.st.SetMeta(disabledMetaKey, d)
	}
}

// run writes saves until stop closes, then the last ones.
func (m *metaAccounts) run(stop <-chan struct{}) {
	for {
		select {
		case <-m.kick:
			m.write()
		case <-stop:
			m.write()
			return
		}
	}
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
	from := e.egress[l.Egress].name
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
	if err := e.checkSessionProxy(sp); err != nil {
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

// checkSessionProxy puts the address of a proxy added from a console session
// through the targets' SSRF policy (fetch.Guard with the start-up allow_private
// ranges): a session must not point the crawl's proxy traffic, credentials
// included, at the server's own network. A host name is resolved now and every
// address must pass. A bind egress names a local source address, not a
// destination, and is not checked.
func (e *Engine) checkSessionProxy(sp egress.Spec) error {
	if sp.Kind == egress.KindBind {
		return nil
	}
	refuse := func(reason string) error {
		return &egress.SpecError{Name: sp.Name, Masked: sp.Masked(), Reason: reason}
	}
	guard, err := fetch.NewGuard(e.opts.AllowPrivate)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(sp.Address)
	if err != nil {
		return refuse("proxy address must be host:port")
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
		defer cancel()
		if e.dialer != nil && e.dialer.Resolver != nil {
			addrs, err = e.dialer.Resolver.LookupAddrs(ctx, host)
		} else {
			addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
		if err != nil {
			return refuse("proxy host does not resolve: " + err.Error())
		}
		if len(addrs) == 0 {
			return refuse("proxy host has no address")
		}
	}
	for _, a := range addrs {
		if guard.Check(host, a) != nil {
			return refuse(fmt.Sprintf("proxy address %s is loopback/private/link-local: refused from a console session unless the start-up allow_private ranges cover it", a.Unmap()))
		}
	}
	return nil
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

// remoteClaims is a worker's egress master (M4): its own table first, then the
// master's account table, whose grant joins the worker's table.
type remoteClaims struct {
	*egress.Table
	claim func() (egress.Spec, bool)
}

// Claim implements egress.Master.
func (r remoteClaims) Claim(node string) (string, bool) {
	if name, ok := r.Table.Claim(node); ok {
		return name, true
	}
	sp, ok := r.claim()
	if !ok {
		return "", false
	}
	if _, err := r.Table.AddSpec(sp); err != nil {
		return "", false
	}
	return r.Table.Claim(node)
}
