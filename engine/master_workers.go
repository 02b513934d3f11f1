package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
)

// The master's side of a worker's life (M4): join, heartbeats, claims, leave, death,
// and the controls the master sends it. Each handler decodes the message, asks the
// table under e.mu, then answers, logs and stores outside it.

// onJoin answers a worker's join: a new name is a new worker and gets units at once;
// a known name with a new incarnation restarted, and what its last life held goes
// back to the queue first.
func (m *masterRuntime) onJoin(msg *nats.Msg) {
	var j wire.Join
	if err := cluster.Decode(msg.Data, &j, wire.MaxMessage); err != nil {
		m.rejects.Add(cluster.Reason(err))
		m.respond(msg, &wire.JoinReply{Error: err.Error()})
		return
	}
	e := m.e
	now := e.now()
	e.mu.Lock()
	grants, moved, release := m.book.Join(&j, now, e.opts.Rotation.PerNode)
	reply := wire.JoinReply{Settings: e.workerSettings(m.o.HeartbeatEvery), Egress: grants, Paused: e.paused, PauseSeq: m.pauseSeq}
	m.saveNodes()
	e.mu.Unlock()
	m.releaseAll(release)
	e.logf(LevelInfo, 0, "", "worker %s joined (%d egresses granted); %d sites or keyword shards move to it", j.Node, len(grants), moved)
	m.respond(msg, &reply)
}

// workerSettings are the crawl settings a worker follows.
func (e *Engine) workerSettings(hb time.Duration) WorkerSettings {
	o := e.opts
	return WorkerSettings{Lanes: o.Lanes, HostRate: o.HostRate, Politeness: &o.Politeness, Cookies: &o.Cookies, Robots: o.Robots, UserAgent: o.UserAgent,
		Fetch: o.Fetch, DNS: o.DNS, DNSServers: o.DNSServers, Rotation: o.Rotation, HeartbeatEvery: hb,
		Etiquette: &o.Etiquette}
}

// releaseAll asks each worker to release units (master.Table's moves), each in its
// own goroutine.
func (m *masterRuntime) releaseAll(release map[string][]string) {
	for name, units := range release {
		go m.release(name, units)
	}
}

// release asks a worker to hand back the tasks of units that move away from it; the
// ones it is fetching report as results, and the units move once all did.
func (m *masterRuntime) release(name string, units []string) {
	m.e.mu.Lock()
	hosts := m.book.HostsOf(units)
	m.e.mu.Unlock()
	var reply wire.ControlReply
	if err := m.control(name, &wire.Control{Op: wire.OpRelease, Hosts: hosts, Units: units}, &reply); err != nil {
		m.e.logf(LevelWarn, 0, "", "worker %s: release of %d units: %v (they move when its tasks report)", name, len(units), err)
		return
	}
	m.e.mu.Lock()
	m.book.TakeBack(name, reply.Tasks)
	m.e.mu.Unlock()
}

// control sends one worker a control request and decodes its reply.
func (m *masterRuntime) control(name string, c *wire.Control, reply *wire.ControlReply) error {
	data, err := cluster.Encode(c)
	if err != nil {
		return err
	}
	msg, err := m.conn.NC.Request(m.sub.Control(name), data, 2*m.o.HeartbeatEvery)
	if err != nil {
		return err
	}
	if err := cluster.Decode(msg.Data, reply, 0); err != nil {
		m.rejects.Add(cluster.Reason(err))
		return err
	}
	if reply.Error != "" {
		return errors.New(reply.Error)
	}
	return nil
}

// onHeartbeat records a worker's sign of life and what it reports.
func (m *masterRuntime) onHeartbeat(msg *nats.Msg) {
	var hb wire.Heartbeat
	if err := cluster.Decode(msg.Data, &hb, wire.MaxMessage); err != nil {
		m.rejects.Add(cluster.Reason(err))
		return
	}
	e := m.e
	e.mu.Lock()
	known := m.book.Heartbeat(hb, e.now())
	paused, seq := e.paused, m.pauseSeq
	e.mu.Unlock()
	m.respond(msg, &wire.HeartbeatReply{Known: known, Paused: paused, PauseSeq: seq})
}

// onLeave takes back what a leaving worker hands back; with Final it is gone.
func (m *masterRuntime) onLeave(msg *nats.Msg) {
	var l wire.Leave
	if err := cluster.Decode(msg.Data, &l, wire.MaxMessage*16); err != nil {
		m.rejects.Add(cluster.Reason(err))
		m.respond(msg, &wire.ControlReply{Error: err.Error()})
		return
	}
	e := m.e
	e.mu.Lock()
	first, back := m.book.Leave(&l)
	m.saveNodes()
	e.mu.Unlock()
	if first {
		e.logf(LevelInfo, 0, "", "worker %s leaving: %d tasks handed back", l.Node, back)
	}
	m.respond(msg, &wire.ControlReply{})
}

// checkNodes declares dead the workers silent past the timeout.
func (m *masterRuntime) checkNodes(now time.Time) {
	e := m.e
	e.mu.Lock()
	dead := m.book.BuryDead(now, m.o.Timeout)
	if len(dead) > 0 {
		m.saveNodes()
	}
	e.mu.Unlock()
	for _, name := range dead {
		e.logf(LevelWarn, 0, "", "worker %s is dead (no heartbeat for %v): its sites, keyword shards and URLs went to others", name, m.o.Timeout)
		m.purge(name)
	}
}

// purge drops task batches a dead worker never took (a new incarnation of it must not
// fetch them: they went to others).
func (m *masterRuntime) purge(name string) {
	ctx, cancel := context.WithTimeout(m.e.ctx, 5*time.Second)
	defer cancel()
	s, err := m.conn.JS.Stream(ctx, m.sub.TaskStream())
	if err == nil {
		err = s.Purge(ctx, jetstream.WithPurgeSubject(m.sub.Tasks(name)))
	}
	if err != nil && m.e.ctx.Err() == nil {
		m.e.logf(LevelWarn, 0, "", "worker %s: purge its task batches: %v", name, err)
	}
}

func (m *masterRuntime) respond(msg *nats.Msg, v any) {
	if msg.Reply == "" {
		return
	}
	if data, err := cluster.Encode(v); err == nil {
		msg.Respond(data)
	}
}

// pauseNode pauses or resumes one worker.
func (m *masterRuntime) pauseNode(name string, paused bool) error {
	m.e.mu.Lock()
	live := m.book.Live(name)
	m.e.mu.Unlock()
	if !live {
		return fmt.Errorf("no live worker %q", name)
	}
	op := wire.OpResume
	if paused {
		op = wire.OpPause
	}
	var reply wire.ControlReply
	if err := m.control(name, &wire.Control{Op: op}, &reply); err != nil {
		return fmt.Errorf("worker %s: %v", name, err)
	}
	m.e.mu.Lock()
	m.book.SetPaused(name, paused)
	m.e.mu.Unlock()
	m.e.logf(LevelInfo, 0, "", "worker %s %sd by operator", name, op)
	return nil
}

// broadcastPause sends the crawl's pause state (the console's global pause) to every
// live worker, numbered: the state and its number are taken together, so of a pause
// and a resume racing here the later-numbered carries the state the master ended in.
func (m *masterRuntime) broadcastPause() {
	m.e.mu.Lock()
	m.pauseSeq++
	paused, seq := m.e.paused, m.pauseSeq
	names := m.book.LiveNames()
	m.e.mu.Unlock()
	op := wire.OpCrawlResume // the crawl's pause, apart from a worker's own (PauseNode)
	if paused {
		op = wire.OpCrawlPause
	}
	for _, name := range names {
		go m.control(name, &wire.Control{Op: op, Seq: seq}, &wire.ControlReply{})
	}
}

// clusterStats is the master's part of the stats object.
func (m *masterRuntime) clusterStats() *ClusterStats {
	m.e.mu.Lock()
	cs := m.book.Stats()
	m.e.mu.Unlock()
	cs.Rejected = m.rejects.Snapshot()
	return cs
}

// onClaim grants a worker whose egresses were all refused one more from the account
// table (seed 003 step 3-2-3), if one is free.
func (m *masterRuntime) onClaim(msg *nats.Msg) {
	var c wire.Claim
	if err := cluster.Decode(msg.Data, &c, wire.MaxMessage); err != nil {
		m.rejects.Add(cluster.Reason(err))
		m.respond(msg, &wire.ClaimReply{Error: err.Error()})
		return
	}
	e := m.e
	e.mu.Lock()
	g, err := m.book.Claim(&c)
	if g != nil {
		m.saveNodes()
	}
	e.mu.Unlock()
	reply := wire.ClaimReply{Egress: g}
	if err != nil {
		reply.Error = err.Error()
	}
	if g != nil {
		e.logf(LevelInfo, 0, "", "worker %s claimed egress %s from the account table", c.Node, g.Name)
	}
	m.respond(msg, &reply)
}
