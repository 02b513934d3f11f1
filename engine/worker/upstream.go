package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	// wait bounds a claim's wait for the master's reply (claimWait, unless a test
	// shortens it).
	wait time.Duration
	// resend is how long a leave waits for its answer before it is sent again
	// (leaveResend, unless a test shortens it).
	resend time.Duration
	// late are the egresses the master granted after their claim stopped waiting:
	// the next claim takes one of them before it asks the master.
	late chan egress.Spec
	// lateMu guards lateLife, which a join moves on: a late grant is kept only
	// when no join was sent since its claim (dropLate).
	lateMu   sync.Mutex
	lateLife uint64
	// asked counts the claims sent, awaiting those whose reply may still come
	// (waited for, or listened for late), and removed holds, by egress name, the
	// count asked had when the master took that egress off this worker: a grant of
	// it in the reply to a claim sent before is not used (revoked). All under
	// lateMu. replies is done once each claim stopped listening (a test waits).
	asked    uint64
	awaiting int
	removed  map[string]uint64
	replies  sync.WaitGroup
}

// revoked tells whether the grant of egress name in the reply to claim number k
// (asked, when it was sent) was taken off this worker since: the master answered
// the claim before the operator removed the egress, and the reply came after the
// removal (caller holds lateMu).
func (u *Upstream) revoked(name string, k uint64) bool {
	at, ok := u.removed[name]
	return ok && at >= k
}

// dropLate forgets the late grants, and those of claims still waiting for their
// reply, as a join is sent: a rejoin means the master forgot this worker (it
// restarted) or declared it dead, which released every egress granted to it, so
// a grant from before may be another worker's by now.
func (u *Upstream) dropLate() {
	u.lateMu.Lock()
	defer u.lateMu.Unlock()
	u.lateLife++
	for {
		select {
		case <-u.late:
		default:
			return
		}
	}
}

// NewUpstream is worker o's requests as incarnation inc; ctx and quit end with the
// worker.
func NewUpstream(ctx context.Context, quit <-chan struct{}, o config.WorkerOptions, inc string) *Upstream {
	return &Upstream{nc: o.Conn.NC, sub: wire.Subjects(o.Prefix), o: o, inc: inc, ctx: ctx, quit: quit,
		wait: claimWait, resend: leaveResend, late: make(chan egress.Spec, lateGrants)}
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
// (wire.Join.Holding); paused, whether the operator paused the worker (wire.Join.Paused).
func (u *Upstream) Join(holding []frontier.Task, paused bool) (*wire.JoinReply, error) {
	req := &wire.Join{Node: u.o.Node, Incarnation: u.inc, LanesMax: u.o.LanesMax, Egresses: maskedSpecs(u.o.Egress), Holding: holding, Paused: paused}
	u.dropLate()
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

// claimWait bounds a claim's wait for the master: the lane that asks has no egress
// meanwhile. A busy master (its lock held, its node table being saved) took more
// than 2 s on a loaded box.
const claimWait = 5 * time.Second

// claimLate is how long a claim that stopped waiting still listens for the master's
// reply, and lateGrants how many late grants wait for the next claims.
const (
	claimLate  = time.Minute
	lateGrants = 8
)

// Ungranted forgets a late grant of egress name, which the master took off this
// worker (the operator removed it), and one a claim sent before may still bring:
// kept or taken, the next claim would use an egress the master no longer counts as
// this worker's. false: none was kept and no claim's reply is awaited (an egress
// the master granted this worker is then in its rotation, or its grant was lost).
func (u *Upstream) Ungranted(name string) bool {
	u.lateMu.Lock()
	defer u.lateMu.Unlock()
	if u.removed == nil {
		u.removed = map[string]uint64{}
	}
	u.removed[name] = u.asked
	var keep []egress.Spec
	found := false
	for drained := false; !drained; {
		select {
		case sp := <-u.late:
			if sp.Name == name {
				found = true
			} else {
				keep = append(keep, sp)
			}
		default:
			drained = true
		}
	}
	for _, sp := range keep {
		select {
		case u.late <- sp:
		default: // not reached: a grant is put in only under lateMu
		}
	}
	return found || u.awaiting > 0
}

// Claim is ClaimWith, returning the egress granted.
func (u *Upstream) Claim() (egress.Spec, bool) {
	var got egress.Spec
	ok := u.ClaimWith(func(sp egress.Spec) error {
		got = sp
		return nil
	})
	return got, ok
}

// ClaimWith asks the master's account table for one more egress, and hands what
// it grants to add (which puts it in the worker's own table); the rotation calls
// it when every egress of the worker was refused. false: none granted, or add
// failed. A grant the master answered past the wait is not lost: the master
// counts the egress as this worker's until it dies or leaves, so the worker keeps
// it for its next claim, or the account would sit unused in the master's table
// for the worker's life. A join drops what is kept (dropLate). add is called
// under lateMu, as the removal of an egress the master took off this worker is
// noted (Ungranted): the grant is either in the worker's table before the
// removal, which then finds it there, or dropped.
func (u *Upstream) ClaimWith(add func(egress.Spec) error) bool {
	u.lateMu.Lock()
	select {
	case sp := <-u.late:
		err := add(sp)
		u.lateMu.Unlock()
		return err == nil
	default:
	}
	u.lateMu.Unlock()
	data, err := cluster.Encode(&wire.Claim{Node: u.o.Node, Incarnation: u.inc})
	if err != nil {
		return false
	}
	reply, err := u.nc.SubscribeSync(u.nc.NewInbox())
	if err != nil {
		return false
	}
	u.lateMu.Lock()
	life := u.lateLife
	u.asked++
	k := u.asked
	u.awaiting++
	u.replies.Add(1)
	u.lateMu.Unlock()
	// done ends the wait for the reply; the grant it brings, if any, goes to
	// add unless the master took the egress off this worker since the claim was
	// sent. The operator's removal is carried out on the worker as the master
	// asks, and a reply the master sent before it may be read after it: granted
	// then, the egress would be used though the master no longer counts it as
	// this worker's (removed from its table, or granted to another).
	done := func(sp egress.Spec, ok bool) bool {
		u.lateMu.Lock()
		defer u.lateMu.Unlock()
		u.awaiting--
		u.replies.Done()
		return ok && !u.revoked(sp.Name, k) && add(sp) == nil
	}
	if err := u.nc.PublishRequest(u.sub.Claim(), reply.Subject, data); err != nil {
		reply.Unsubscribe()
		return done(egress.Spec{}, false)
	}
	ctx, cancel := context.WithTimeout(u.ctx, u.wait)
	msg, err := reply.NextMsgWithContext(ctx)
	cancel()
	if err == nil || u.ctx.Err() != nil {
		reply.Unsubscribe()
		if err != nil {
			return done(egress.Spec{}, false)
		}
		return done(granted(msg))
	}
	go func() {
		defer reply.Unsubscribe()
		ctx, cancel := context.WithTimeout(u.ctx, claimLate)
		defer cancel()
		msg, err := reply.NextMsgWithContext(ctx)
		var sp egress.Spec
		ok := false
		if err == nil {
			sp, ok = granted(msg)
		}
		u.lateMu.Lock()
		defer u.lateMu.Unlock()
		u.awaiting--
		defer u.replies.Done()
		if !ok || u.revoked(sp.Name, k) || u.lateLife != life {
			return // none granted, taken off this worker since, or a join was sent since the claim
		}
		select {
		case u.late <- sp:
		default: // more late grants than claims to take them: the master keeps counting it
		}
	}()
	return false
}

// granted is the egress a claim's reply grants; false: none (or no master answered).
func granted(msg *nats.Msg) (egress.Spec, bool) {
	var r wire.ClaimReply
	if cluster.Decode(msg.Data, &r, wire.MaxMessage) != nil || r.Egress == nil {
		return egress.Spec{}, false
	}
	return r.Egress.Spec(), true
}

// Leave sends a leave: the tasks handed back unfetched, and with final, that the
// worker is gone. ctx bounds the wait. A busy master (a loaded box) answers late:
// the leave is sent again every leaveResend, for a send the server lost, and the
// first answer to any of the sends is taken, however late. The master takes a
// leave sent twice as once (Table.Leave: what it handed back is requeued once, a
// worker already buried stays so).
func (u *Upstream) Leave(ctx context.Context, tasks []frontier.Task, final bool) error {
	data, err := cluster.Encode(&wire.Leave{Node: u.o.Node, Incarnation: u.inc, Tasks: tasks, Final: final})
	if err != nil {
		return err
	}
	reply, err := u.nc.SubscribeSync(u.nc.NewInbox())
	if err != nil {
		return err
	}
	defer reply.Unsubscribe()
	for {
		if err := u.nc.PublishRequest(u.sub.Leave(), reply.Subject, data); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, u.resend)
		_, err := reply.NextMsgWithContext(wctx)
		cancel()
		switch {
		case err == nil:
			return nil
		case errors.Is(err, nats.ErrNoResponders): // no master listens: none will answer
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
}

// leaveResend is how long a leave waits for its answer before it is sent again.
const leaveResend = 5 * time.Second

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
	opts.Render.Shared = o.Browser
	if d := st.Discovery; d != nil {
		opts.Discovery.Enabled, opts.Discovery.MaxDocumentBytes = d.Enabled, d.MaxDocumentBytes
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
