package lanes

import (
	"net/netip"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
)

// FetchConfig is every egress's fetcher under the options; a same-host redirect
// hop waits a lane's pause (M1).
func (r *Runner) FetchConfig() fetch.Config {
	o := r.Opts
	return fetch.Config{
		UserAgent:        o.UserAgent,
		ConnectTimeout:   o.Fetch.ConnectTimeout,
		RequestTimeout:   o.Fetch.Timeout,
		MaxBodyBytes:     o.Fetch.MaxBodyBytes,
		MaxRedirects:     o.Fetch.MaxRedirects,
		ContentTypes:     o.Fetch.ContentTypes,
		Discovery:        o.Discovery.Enabled,
		MaxDocumentBytes: o.Discovery.MaxDocumentBytes,
		KeepParse:        true, // one box signs what it stores; a worker signs before sending
		RedirectPause:    func() time.Duration { return Delay(o.Lanes) },
		Held:             r.hopHeld, // a redirect to a held host stops there
	}
}

// NewGate builds the lanes' politeness gate under the options: delay_min between
// adjacent requests, the host's interval (HostInterval), the adaptive terms and a
// pluggable Pacer.
func (r *Runner) NewGate() *Gate {
	o := r.Opts
	r.Gate = &Gate{MinGap: o.Lanes.DelayMin, Interval: r.HostInterval, Adapt: AdaptiveOf(o.Politeness), Pacer: o.Pacer, Now: o.Now}
	return r.Gate
}

// EgressSetup is what a node's egresses are built from besides the options.
type EgressSetup struct {
	Resolver fetch.Resolver // the resolver of every egress (M5)
	Guard    *fetch.Guard   // the SSRF policy
	Fetch    fetch.Config   // every egress's fetcher
	// Granted are egresses the node has besides --egress (a worker's, granted by
	// its master at join); Claim, when set, claims one more from the master's
	// account table when all of the node's own were refused (M4).
	Granted []egress.Spec
	Claim   func(add func(egress.Spec) error) bool
	// Accounts keeps the account table between runs; nil: in memory.
	Accounts egress.AccountStore
	// Held reports whether a host is paused by the operator (called under Mu): a
	// lane takes another host's queued task before one of its, and a lane that runs
	// dry takes over none of its tasks (board.Held).
	Held func(host string) bool
}

// SetupEgress builds the node's egresses and its board: the direct route when none
// is configured, else the M3 account table, this node's rotation and one transport
// per egress. Called before the crawl starts.
func (r *Runner) SetupEgress(s EgressSetup) error {
	dialer := &fetch.Dialer{Resolver: s.Resolver, Guard: s.Guard, Timeout: r.Opts.Fetch.ConnectTimeout}
	if len(r.Opts.Egress) == 0 && len(s.Granted) == 0 {
		r.Board = NewBoard(r.Opts.Lanes.Max, []string{"direct"})
		r.Board.Held = s.Held
		r.Links = []*route.Link{r.NewLink("direct", fetch.New(r.Ctx, s.Fetch, dialer, nil), nil)}
		r.Judge = egress.NewClassifier(r.Opts.Now) // the direct route: a node with one egress
		return nil
	}
	specs, err := egress.ParseSpecs(r.Opts.Egress)
	if err != nil {
		return err
	}
	specs = append(specs, s.Granted...)
	accounts := s.Accounts
	if accounts == nil {
		accounts = &egress.MemoryStore{}
	}
	table, err := egress.OpenTable(accounts, specs)
	if err != nil {
		return err
	}
	ro := r.Opts.Rotation
	perNode := ro.PerNode
	if perNode <= 0 {
		perNode = len(table.Accounts())
	}
	var master egress.Master
	if s.Claim != nil {
		master = route.RemoteClaims{Table: table, FromMaster: s.Claim}
	}
	pool, err := egress.NewPool(table, egress.PoolConfig{
		Master: master,
		Rotation: egress.RotationConfig{PerNode: perNode, DisableFor: ro.DisableFor,
			PairBanFor: ro.PairBanFor, FaultCooldown: ro.FaultCooldown, Now: r.Opts.Now},
		Transport: egress.TransportConfig{
			Resolve:               s.Resolver.LookupAddrs,
			Guard:                 func(a netip.Addr) error { return s.Guard.Check("", a) },
			DialTimeout:           r.Opts.Fetch.ConnectTimeout,
			ResponseHeaderTimeout: r.Opts.Fetch.Timeout,
			Refuse:                fetch.HeldRefusal(s.Fetch.Held), // each attempt, net/http's own resends included
		},
	})
	if err != nil {
		return err
	}
	r.Pool, r.Judge = pool, pool.Classifier()
	r.fcfg, r.dialer = s.Fetch, dialer
	var names []string
	for _, a := range table.Accounts() {
		names = append(names, a.Name)
	}
	b := NewBoard(r.Opts.Lanes.Max, names)
	b.Allowed = func(i int, host string) bool {
		return pool.Rotation().Serves(b.Egresses()[i], host)
	}
	b.Held = s.Held
	r.Board = b
	r.Links = make([]*route.Link, len(names))
	for _, n := range names {
		if _, err := r.AddLink(n); err != nil {
			return err
		}
	}
	return nil
}
