package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// DisableListStore persists the host_disable_list, so a restart keeps
// the hosts that were refused off the crawl until their time is up.
// An AccountStore that also implements it gets the list saved and restored by Pool.
type DisableListStore interface {
	LoadDisabled() ([]DisabledHost, error)
	SaveDisabled([]DisabledHost) error
}

// PoolConfig configures a Pool.
type PoolConfig struct {
	Rotation  RotationConfig  // node name, disable duration, cooldowns, clock
	Transport TransportConfig // dial hooks, timeouts, TLS for every egress transport
	// Master hands out egresses; nil: the table itself (one box). A worker of a
	// distributed crawl claims more from its master's table through it (M4).
	Master Master
}

// Pool is M3 for the engine: the account table, this node's rotation, the response
// classifier and one keep-alive transport per egress, kept consistent as egresses are
// added and removed at run time. Safe for concurrent use.
type Pool struct {
	table *Table
	rot   *Rotation
	cls   *Classifier
	tcfg  TransportConfig
	dls   DisableListStore // nil when the store does not keep the disable list

	mu       sync.Mutex
	egresses map[string]*Egress
	savedVer int64
	saveErr  error
}

// NewPool starts the node on table: it takes its initial egresses and restores the
// persisted host_disable_list when the table's store keeps one.
func NewPool(table *Table, cfg PoolConfig) (*Pool, error) {
	p := &Pool{table: table, tcfg: cfg.Transport, egresses: map[string]*Egress{}}
	var master Master = table
	if cfg.Master != nil {
		master = cfg.Master
	}
	p.rot = NewRotation(cfg.Rotation, master)
	p.cls = NewClassifier(p.rot.cfg.Now)
	if dls, ok := table.store.(DisableListStore); ok {
		p.dls = dls
		list, err := dls.LoadDisabled()
		if err != nil {
			return nil, fmt.Errorf("host_disable_list: load: %w", err)
		}
		p.rot.RestoreDisabled(list)
		p.savedVer = p.rot.disabledVersion()
	}
	if err := table.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// Pick chooses the egress for the next request to host (see Rotation.Pick).
func (p *Pool) Pick(host string) Decision {
	d := p.rot.Pick(host)
	p.persistDisabled()
	return d
}

// Egress returns the named egress, or an error if it is not in the table.
func (p *Pool) Egress(name string) (*Egress, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.egresses[name]; ok {
		return e, nil
	}
	a, ok := p.table.Account(name)
	if !ok {
		return nil, fmt.Errorf("egress %s: %w", name, ErrUnknownEgress)
	}
	e := New(a.Spec())
	p.egresses[name] = e
	return e, nil
}

// Transport returns the named egress's keep-alive transport.
func (p *Pool) Transport(name string) (*http.Transport, error) {
	e, err := p.Egress(name)
	if err != nil {
		return nil, err
	}
	return e.Transport(p.tcfg), nil
}

// Observe classifies the response to a request through egress name and reports it
// to the rotation; the decision says whether to retry, go on or defer the host. A
// soft ban (Verdict.Confirm) is reported as it is: the engine confirms it first
// (Classifier, Confirmed, Report).
func (p *Pool) Observe(name string, r Response) (Verdict, Decision) {
	v := p.cls.Classify(r)
	return v, p.Report(name, r.Host, v)
}

// Classifier is the pool's classifier, whose host history the engine shares.
func (p *Pool) Classifier() *Classifier { return p.cls }

// Report tells the rotation the verdict on a request through egress name to host.
func (p *Pool) Report(name, host string, v Verdict) Decision {
	d := p.rot.Report(name, host, v)
	p.persistDisabled()
	return d
}

// Add puts a new egress in the table (`:egress add SPEC`); the node claims it when
// it runs out (seed 3-2-3).
func (p *Pool) Add(spec string) (Account, error) { return p.table.Add(spec) }

// Remove takes an egress out of the table and the node's list and closes its idle
// connections (`:egress rm NAME`).
func (p *Pool) Remove(name string) error {
	if err := p.table.Remove(name); err != nil {
		return err
	}
	p.rot.Remove(name)
	p.mu.Lock()
	e := p.egresses[name]
	delete(p.egresses, name)
	p.mu.Unlock()
	if e != nil {
		e.CloseIdle()
	}
	return nil
}

// BeginRound removes expired host_disable_list entries (see Rotation.BeginRound).
func (p *Pool) BeginRound(now time.Time) []string {
	removed := p.rot.BeginRound(now)
	p.persistDisabled()
	return removed
}

// Disable puts host on the host_disable_list for d (<= 0: the configured default).
func (p *Pool) Disable(host string, d time.Duration) {
	p.rot.Disable(host, d)
	p.persistDisabled()
}

// Enable takes host off the host_disable_list.
func (p *Pool) Enable(host string) {
	p.rot.Enable(host)
	p.persistDisabled()
}

// RotateNow moves the node to its least recently used other egress.
func (p *Pool) RotateNow() (Decision, bool) { return p.rot.RotateNow() }

// Stats returns the figures for --stats-json.
func (p *Pool) Stats() Stats { return p.rot.Stats() }

// Rotation gives the node's rotation (for tests and the engine's stats).
func (p *Pool) Rotation() *Rotation { return p.rot }

// Err is the last error persisting the table or the disable list, nil if none.
func (p *Pool) Err() error {
	p.mu.Lock()
	err := p.saveErr
	p.mu.Unlock()
	if err != nil {
		return err
	}
	return p.table.Err()
}

// View is the Egress pane's data: this node's list, the rest of the account table,
// and the host_disable_list. Addresses are masked.
func (p *Pool) View() View {
	v := p.rot.View()
	onNode := map[string]int{}
	for i, row := range v.Egresses {
		onNode[row.Name] = i
	}
	for _, a := range p.table.Accounts() {
		if i, ok := onNode[a.Name]; ok {
			v.Egresses[i].Kind, v.Egresses[i].Address = a.Kind, a.Spec().Masked()
			continue
		}
		state := "free"
		if a.State == AccountAssigned {
			state = "on " + a.Node
		}
		v.Egresses = append(v.Egresses, EgressRow{Name: a.Name, Kind: a.Kind, Address: a.Spec().Masked(),
			Node: a.Node, RecentlyUsed: "n", SuccessRate: 1, State: state})
	}
	return v
}

// Close closes every egress's idle connections.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.egresses {
		e.CloseIdle()
	}
}

func (p *Pool) persistDisabled() {
	if p.dls == nil {
		return
	}
	ver := p.rot.disabledVersion()
	p.mu.Lock()
	defer p.mu.Unlock()
	if ver == p.savedVer {
		return
	}
	p.savedVer = ver
	p.saveErr = p.dls.SaveDisabled(p.rot.DisabledHosts())
}

// Response builds the classifier's input for a request through e to host: resp
// (nil on error), a prefix of its body, and the transport error. It marks what the
// proxy, not the site, is to blame for: any ProxyError; and, for plain-http
// forwarding through an HTTP proxy (where proxy and site answer on the same
// connection), a transport error other than a timeout or cancellation (e.g. a
// garbage reply) and a 502/504 carrying a proxy's marker header (Proxy-Agent,
// X-Squid-Error). Proxy failures come back as a *ProxyError naming the egress.
func (e *Egress) Response(host string, resp *http.Response, body []byte, err error) Response {
	r := Response{Host: host, Body: body, BodyLen: -1, Err: err}
	if err != nil {
		var pe *ProxyError
		switch {
		case errors.As(err, &pe):
			r.FromProxy, r.Err = true, pe
		case IsProxyError(err) || (e.forwards(requestScheme(resp, err)) && !siteSideError(err)):
			// Name the egress in the error the engine will log.
			r.FromProxy = true
			r.Err = &ProxyError{Egress: e.spec.Name, Proxy: e.spec.Masked(), Op: "forward", Err: err}
		}
		return r
	}
	r.Status, r.Header, r.BodyLen = resp.StatusCode, resp.Header, resp.ContentLength
	if e.forwards(requestScheme(resp, nil)) &&
		(resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout) &&
		(resp.Header.Get("Proxy-Agent") != "" || resp.Header.Get("X-Squid-Error") != "") {
		r.FromProxy = true
	}
	return r
}

// forwards reports whether a request with this URL scheme went through e by
// absolute-URI forwarding.
func (e *Egress) forwards(scheme string) bool { return e.spec.Kind == KindHTTP && scheme == "http" }

func requestScheme(resp *http.Response, err error) string {
	if resp != nil && resp.Request != nil {
		return resp.Request.URL.Scheme
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			return u.Scheme
		}
	}
	return ""
}

// siteSideError: local DNS failures, guard refusals, timeouts and cancellation are
// not the proxy's fault (a slow site looks the same as a slow proxy; give it the
// benefit of the doubt).
func siteSideError(err error) bool {
	var ge *GuardError
	var de *net.DNSError
	var ne net.Error
	return errors.As(err, &ge) || errors.As(err, &de) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
