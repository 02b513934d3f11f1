package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Upstream is a worker's requests to its master: join, heartbeat, claim and leave.
// Each waits at most its own timeout, less once the worker closes (ctx): a request
// to a master that is away must not hold it.
type Upstream struct {
	nc   *nats.Conn
	sub  wire.Subjects
	o    config.WorkerOptions
	inc  string
	ctx  context.Context
	quit <-chan struct{}
}

// NewUpstream is worker o's requests as incarnation inc; ctx and quit end with the
// worker.
func NewUpstream(ctx context.Context, quit <-chan struct{}, o config.WorkerOptions, inc string) *Upstream {
	return &Upstream{nc: o.Conn.NC, sub: wire.Subjects(o.Prefix), o: o, inc: inc, ctx: ctx, quit: quit}
}

func (u *Upstream) request(ctx context.Context, subj string, v any, timeout time.Duration) (*nats.Msg, error) {
	data, err := cluster.Encode(v)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return u.nc.RequestWithContext(ctx, subj, data)
}

// Join introduces the worker to the master, retrying until it answers or
// WorkerOptions.JoinTimeout passes. holding are the tasks a rejoin claims
// (wire.Join.Holding).
func (u *Upstream) Join(holding []frontier.Task) (*wire.JoinReply, error) {
	req := &wire.Join{Node: u.o.Node, Incarnation: u.inc, LanesMax: u.o.LanesMax, Egresses: maskedSpecs(u.o.Egress), Holding: holding}
	deadline := time.Now().Add(u.o.JoinTimeout)
	for {
		msg, err := u.request(u.ctx, u.sub.Join(), req, 2*time.Second)
		if err == nil {
			var reply wire.JoinReply
			if err := cluster.Decode(msg.Data, &reply, wire.MaxMessage); err != nil {
				return nil, fmt.Errorf("worker: the master's join reply: %w", err)
			}
			if reply.Error != "" {
				return nil, fmt.Errorf("worker: the master refused the join: %s", reply.Error)
			}
			return &reply, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("worker: no master answered on %s within %v (is `crawlconsole master` running with this --prefix?): %w",
				u.sub.Join(), u.o.JoinTimeout, err)
		}
		select {
		case <-u.quit:
			return nil, errors.New("worker: closed while joining")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func maskedSpecs(specs []string) []string {
	parsed, _ := egress.ParseSpecs(specs)
	out := make([]string, len(parsed))
	for i, s := range parsed {
		out[i] = s.Masked()
	}
	return out
}

// Heartbeat sends hb (its node and incarnation filled in) and returns the master's
// reply; an error when the master is away or its reply does not decode.
func (u *Upstream) Heartbeat(hb wire.Heartbeat, timeout time.Duration) (*wire.HeartbeatReply, error) {
	hb.Node, hb.Incarnation = u.o.Node, u.inc
	msg, err := u.request(u.ctx, u.sub.Heartbeat(u.o.Node), &hb, timeout)
	if err != nil {
		return nil, err
	}
	var r wire.HeartbeatReply
	if err := cluster.Decode(msg.Data, &r, wire.MaxMessage); err != nil {
		return nil, err
	}
	return &r, nil
}

// claimWait bounds a claim's wait for the master. A grant whose reply comes later
// is lost to the worker while the master counts it as the worker's until the
// worker dies, and a busy master (its lock held, its node table being saved) took
// more than 2 s on a loaded box; the lane that asks has no egress meanwhile anyway.
const claimWait = 5 * time.Second

// Claim asks the master's account table for one more egress; the rotation calls it
// when every egress of the worker was refused. false: none granted.
func (u *Upstream) Claim() (egress.Spec, bool) {
	msg, err := u.request(u.ctx, u.sub.Claim(), &wire.Claim{Node: u.o.Node, Incarnation: u.inc}, claimWait)
	if err != nil {
		return egress.Spec{}, false
	}
	var r wire.ClaimReply
	if cluster.Decode(msg.Data, &r, wire.MaxMessage) != nil || r.Egress == nil {
		return egress.Spec{}, false
	}
	return r.Egress.Spec(), true
}

// Leave sends a leave: the tasks handed back unfetched, and with final, that the
// worker is gone. ctx bounds the wait.
func (u *Upstream) Leave(ctx context.Context, tasks []frontier.Task, final bool) error {
	_, err := u.request(ctx, u.sub.Leave(), &wire.Leave{Node: u.o.Node, Incarnation: u.inc, Tasks: tasks, Final: final}, 5*time.Second)
	return err
}

// Options are the crawl options of a worker: the settings its master gave at join,
// with what the worker's own options say (its resolver, DNS servers, private ranges
// allowed, lanes, egresses). every is its heartbeat period.
func Options(st wire.Settings, o config.WorkerOptions) (opts config.Options, every time.Duration) {
	opts = config.DefaultOptions()
	opts.Lanes, opts.HostRate, opts.Robots, opts.UserAgent = st.Lanes, st.HostRate, st.Robots, st.UserAgent
	opts.Fetch, opts.DNS, opts.DNSServers, opts.Rotation = st.Fetch, st.DNS, st.DNSServers, st.Rotation
	if st.Politeness != nil {
		opts.Politeness = *st.Politeness
	}
	if st.Cookies != nil {
		opts.Cookies = *st.Cookies
	}
	if st.Etiquette != nil { // robots.txt caching and per-site overrides apply on the lanes
		opts.Etiquette = *st.Etiquette
	}
	if st.Render != nil { // the master's render mode, sites and caps; the browser is found here
		opts.Render = *st.Render
		opts.Render.Browser = ""
	}
	opts.Revisit.Enabled = false // the master schedules revisits
	opts.AllowPrivate, opts.Resolver = o.AllowPrivate, o.Resolver
	if len(o.DNSServers) > 0 {
		opts.DNSServers = o.DNSServers
	}
	if o.LanesMax > 0 {
		opts.Lanes.Max = o.LanesMax
	}
	if opts.Rotation.PerNode <= 0 || len(o.Egress) > 0 {
		opts.Rotation.PerNode = 0 // every egress it was given or brought
	}
	every = st.HeartbeatEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	return opts, every
}

// Egresses are a worker's egresses: its own (--egress), named after it (w1-e1,
// w1-vpn) so they never collide with the names of the master's account table (e1,
// e2, ...), then those the master granted.
func Egresses(o config.WorkerOptions, grants []wire.Egress) []egress.Spec {
	own, _ := egress.ParseSpecs(o.Egress)
	out := make([]egress.Spec, 0, len(own)+len(grants))
	for _, sp := range own {
		sp.Name = o.Node + "-" + sp.Name
		out = append(out, sp)
	}
	for _, g := range grants {
		out = append(out, g.Spec())
	}
	return out
}
