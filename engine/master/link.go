package master

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/moves"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Host is what a Link needs from the crawl around it: the lock that guards the table
// (the engine's, which also guards the queue), the event log, the clock, the
// crawl's pause, the settings a worker follows and the store's meta table.
type Host interface {
	sync.Locker
	// Logf adds an event to the crawl's log.
	Logf(level view.Level, format string, args ...any)
	// Now is the crawl's clock.
	Now() time.Time
	// Paused tells whether the operator paused the crawl. Caller holds the lock.
	Paused() bool
	// Settings are the crawl settings a worker follows, given at its join.
	Settings() wire.Settings
	// SetMeta keeps data under key in the store's meta table.
	SetMeta(key string, data []byte)
	// AfterCommit calls f once the store committed what was written before it.
	AfterCommit(f func(error))
	// Held marks urls in progress in the store (a worker holds them); one store
	// write, no lock taken: the caller may hold the lock.
	Held(urls []string)
}

// Link is the master's conversation with its workers over the transport: their
// joins, heartbeats, claims and leaves, the dead ones, and the controls and
// rebalances the operator sends them. What it learns goes into its Table.
type Link struct {
	host     Host
	ctx      context.Context // ends with the crawl
	conn     *cluster.Conn
	sub      wire.Subjects
	o        config.MasterOptions
	balance  config.BalanceOptions
	perNode  int // egresses granted at join (rotation.per_node)
	book     *Table
	accts    *egress.Table
	rejects  cluster.Rejects
	pauseSeq uint64 // numbers the crawl-wide pause states sent (wire.Control.Seq)
	lanesMax int    // the operator's last lanes.max for the workers (0: none), for those joining
	// hostsOn are the hosts the operator paused (wire.OpPauseHost) or disabled
	// (wire.OpDisableHost) and did not let go, by op, for the workers joining;
	// hostsSeq numbers the host controls sent (wire.Control.Seq).
	hostsOn  map[string]map[string]bool
	hostsSeq uint64
	// disabledUntil is when each host of hostsOn[wire.OpDisableHost] comes back
	// (rotation.disable_for after the operator's disable, as on one box): the
	// master and its workers let it go then, all at once.
	disabledUntil map[string]time.Time
	lanesSeq      uint64 // numbers the lanes.max values sent (wire.Control.Seq)
	nodeSeq       uint64 // numbers the pauses and resumes of workers sent (wire.Control.Seq)
}

// NewLink is the master's link over o.Conn, keeping its bookkeeping in book (whose
// egress account table is accts). Pause states are numbered from the wall clock, as
// leases are, so a restarted master's numbers are newer.
func NewLink(ctx context.Context, host Host, o config.MasterOptions, b config.BalanceOptions, perNode int, book *Table, accts *egress.Table) *Link {
	return &Link{host: host, ctx: ctx, conn: o.Conn, sub: wire.Subjects(o.Prefix), o: o, balance: b, perNode: perNode,
		book: book, accts: accts, pauseSeq: uint64(time.Now().UnixNano()), lanesSeq: uint64(time.Now().UnixNano()),
		hostsOn: map[string]map[string]bool{}, disabledUntil: map[string]time.Time{}, hostsSeq: uint64(time.Now().UnixNano()), nodeSeq: uint64(time.Now().UnixNano())}
}

// PauseSeq is the number of the crawl's pause state last sent to the workers (a
// heartbeat reply sent now carries it). Caller holds the lock.
func (l *Link) PauseSeq() uint64 { return l.pauseSeq }

// Rejects counts the workers' messages refused as malformed.
func (l *Link) Rejects() *cluster.Rejects { return &l.rejects }

// The store's meta keys of the node table and the cost table.
const (
	NodesMetaKey = "cluster.nodes.v1"
	CostsMetaKey = "cluster.costs.v1"
)

// SaveNodes persists the node table for `stats --json` (the store's meta table).
// Caller holds the lock.
func (l *Link) SaveNodes() {
	if data, err := l.book.NodesJSON(); err == nil {
		l.host.SetMeta(NodesMetaKey, data)
	}
}

// SaveCosts keeps the cost table in the store (it survives a restart). Caller holds
// the lock.
func (l *Link) SaveCosts() {
	if data, err := l.book.CostsJSON(); err == nil {
		l.host.SetMeta(CostsMetaKey, data)
	}
}

// The master's side of a worker's life (M4): join, heartbeats, claims, leave, death,
// and the controls the master sends it. Each handler decodes the message, asks the
// table under the host's lock, then answers, logs and stores outside it.

// OnJoin answers a worker's join: a new name is a new worker and gets units at once;
// a known name with a new incarnation restarted, and what its last life held goes
// back to the queue first.
func (l *Link) OnJoin(msg *nats.Msg) {
	var j wire.Join
	if err := cluster.Decode(msg.Data, &j, wire.MaxJoin); err != nil {
		l.rejects.Add(cluster.Reason(err))
		l.respond(msg, &wire.JoinReply{Error: err.Error()})
		return
	}
	now := l.host.Now()
	l.host.Lock()
	if l.book.Left(j.Node, j.Incarnation) {
		l.host.Unlock()
		l.respond(msg, &wire.JoinReply{Error: fmt.Sprintf("worker %s left (its final leave was taken); a worker started again joins as new", j.Node)})
		return
	}
	r := l.book.Join(&j, now, l.perNode)
	reply := wire.JoinReply{Settings: l.host.Settings(), Egress: r.Grants, Paused: l.host.Paused(), PauseSeq: l.pauseSeq,
		Lease: l.book.Lease(j.Node), Kept: r.Kept, LastRequest: r.LastRequest, Since: r.Since}
	if l.lanesMax > 0 {
		reply.LanesMax, reply.LanesSeq = l.lanesMax, l.lanesSeq
	}
	reply.PausedHosts, reply.DisabledHosts = l.hostsHeld(wire.OpPauseHost), l.hostsHeld(wire.OpDisableHost)
	for _, h := range reply.DisabledHosts {
		if reply.DisabledFor == nil {
			reply.DisabledFor = map[string]time.Duration{}
		}
		reply.DisabledFor[h] = l.disabledUntil[h].Sub(now)
	}
	reply.HostsSeq = l.hostsSeq
	if paused, held := l.book.NodePaused(j.Node); held {
		reply.NodePaused, reply.NodeSeq = paused, l.nodeSeq
	}
	// The claims taken back are marked in progress (marked), under the lock: a
	// claimed report settled meanwhile commits after the mark, which it ends
	// (settled first, the mark would win: in progress for good).
	kept := keptClaims(j.Holding, r.Kept)
	if len(kept) > 0 {
		urls := make([]string, len(kept))
		for i, c := range kept {
			urls[i] = c.URL
		}
		l.host.Held(urls)
	}
	l.SaveNodes()
	// A restarted master awaits the workers its saved node table names, and finds
	// the URLs handed out in progress in the store: were a worker's hand-outs
	// committed without the table naming it, the restarted master would not await
	// it, end its grace period without it and queue again what it still fetches.
	// So the worker is dealt nothing until the table saved here is committed,
	// whatever order the store commits separate writes in.
	recorded := l.book.Recording(j.Node)
	l.host.AfterCommit(func(err error) {
		if err == nil { // else the store failed, and the crawl stops
			recorded()
		}
	})
	l.host.Unlock()
	if !l.marked(len(kept) > 0) {
		return // stopping, or the store failed: no reply, the worker claims them again
	}
	l.releaseAll(r.Release)
	paused := ""
	if r.Paused {
		paused = "; paused by the operator"
	}
	l.host.Logf(view.LevelInfo, "worker %s joined (%s granted%s); %s", j.Node, plural.Count(len(r.Grants), "egress"), paused, r.Moves.Said(j.Node))
	if len(j.Holding) > 0 {
		l.host.Logf(view.LevelInfo, "worker %s rejoined holding %d tasks: %d taken back, the others are another worker's or done (it drops them unfetched)",
			j.Node, len(j.Holding), len(r.Kept))
	}
	l.respond(msg, &reply)
}

// keptClaims are the tasks of claims whose leases the master kept.
func keptClaims(claims []frontier.Task, kept []uint64) []frontier.Task {
	if len(kept) == 0 {
		return nil
	}
	keep := make(map[uint64]bool, len(kept))
	for _, l := range kept {
		keep[l] = true
	}
	var out []frontier.Task
	for _, c := range claims {
		if keep[c.Lease] {
			out = append(out, c)
		}
	}
	return out
}

// marked returns once the in-progress marks of the tasks a rejoin's claims took
// back (any: false, nothing to wait for) are committed; false: the master is
// stopping, or the store failed. A restarted master's store read them queued (the
// store's open puts every URL in progress back in the queue; the master keeps them
// in limbo, in memory alone), and a claim of one waiting in the queue reads queued
// too: a master killed while the worker fetched them restarted with them queued and
// no limbo, and dealt them again. The join is answered after the commit: a master
// killed before it never answers, and the worker claims them again from the next.
func (l *Link) marked(any bool) bool {
	if !any {
		return true
	}
	done := make(chan error, 1)
	l.host.AfterCommit(func(err error) { done <- err })
	select {
	case err := <-done:
		return err == nil
	case <-l.ctx.Done():
		return false
	}
}

// releaseAll asks each worker to release units (the table's moves), each in its
// own goroutine.
func (l *Link) releaseAll(release map[string][]string) {
	for name, units := range release {
		go l.release(name, units)
	}
}

// release asks a worker to hand back the tasks of units that move away from it; the
// ones it is fetching report as results, and the units move once all did.
func (l *Link) release(name string, units []string) {
	l.host.Lock()
	// The units no longer go to this worker: every task of them it was handed
	// has a lease up to the last one handed out (a batch of them may reach it
	// after the release).
	hosts, upTo := l.book.HostsOf(units), l.book.LastLease()
	l.host.Unlock()
	var reply wire.ControlReply
	if err := l.Control(name, &wire.Control{Op: wire.OpRelease, Hosts: hosts, Units: units, Lease: upTo}, &reply); err != nil {
		l.host.Logf(view.LevelWarn, "worker %s: release of %d units: %v (they move when its tasks report, those it handed back with its next heartbeat)", name, len(units), err)
		return
	}
	l.host.Lock()
	l.book.TakeBack(name, reply.Tasks)
	l.host.Unlock()
}

// controlWaitMin is the least a control request waits for the worker's answer
// (two heartbeat periods otherwise): a worker on a loaded box takes longer than a
// short heartbeat period to answer, and a control given up on is a command that
// failed for the operator (a release given up on is answered with the next
// heartbeat).
const controlWaitMin = 5 * time.Second

// Control sends one worker a control request and decodes its reply.
func (l *Link) Control(name string, c *wire.Control, reply *wire.ControlReply) error {
	data, err := cluster.Encode(c)
	if err != nil {
		return err
	}
	msg, err := l.conn.NC.Request(l.sub.Control(name), data, max(2*l.o.HeartbeatEvery, controlWaitMin))
	if err != nil {
		return err
	}
	if err := cluster.Decode(msg.Data, reply, 0); err != nil {
		l.rejects.Add(cluster.Reason(err))
		return err
	}
	if reply.Error != "" {
		return errors.New(reply.Error)
	}
	return nil
}

// OnHeartbeat records a worker's sign of life and what it reports.
func (l *Link) OnHeartbeat(msg *nats.Msg) {
	var hb wire.Heartbeat
	if err := cluster.Decode(msg.Data, &hb, wire.MaxMessage); err != nil {
		l.rejects.Add(cluster.Reason(err))
		return
	}
	l.host.Lock()
	now := l.host.Now()
	known := l.book.Heartbeat(hb, now)
	var lost []frontier.Task
	if known {
		l.book.TakeBack(hb.Node, hb.HandedBack)
		lost = l.book.idleFor(hb.Node, hb.Idle, hb.LastReport, now)
	}
	reply := wire.HeartbeatReply{Known: known, Paused: l.host.Paused(), PauseSeq: l.pauseSeq}
	if known {
		reply.Lease = l.book.Lease(hb.Node)
		if paused, held := l.book.NodePaused(hb.Node); held {
			reply.NodePaused, reply.NodeSeq = paused, l.nodeSeq
		}
	}
	l.host.Unlock()
	l.respond(msg, &reply)
	if len(lost) > 0 {
		l.host.Logf(view.LevelWarn, "worker %s holds no task, but %d handed to it were not reported for %v: queued again (a hand-out lost between master and worker): %s",
			hb.Node, len(lost), max(l.book.LeaseFor, wire.TaskAckWait), urlList(lost, 5))
	}
}

// urlList names the first max tasks' URLs, and how many more there are.
func urlList(tasks []frontier.Task, max int) string {
	var b strings.Builder
	for i, t := range tasks {
		if i == max {
			fmt.Fprintf(&b, " and %d more", len(tasks)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.URL)
	}
	return b.String()
}

// OnLeave takes back what a leaving worker hands back; with Final it is gone.
func (l *Link) OnLeave(msg *nats.Msg) {
	var lv wire.Leave
	if err := cluster.Decode(msg.Data, &lv, wire.MaxMessage*16); err != nil {
		l.rejects.Add(cluster.Reason(err))
		l.respond(msg, &wire.ControlReply{Error: err.Error()})
		return
	}
	l.host.Lock()
	first, back := l.book.Leave(&lv)
	l.SaveNodes()
	l.host.Unlock()
	if first {
		l.host.Logf(view.LevelInfo, "worker %s leaving: %d tasks handed back", lv.Node, back)
	}
	l.respond(msg, &wire.ControlReply{})
}

// CheckNodes declares dead the workers silent past the timeout and a lease margin
// (LeaseMargin): a worker's lease, the timeout from its last heartbeat's sending,
// has then ended on its own clock, so none of its requests can overlap those of
// the hosts' next holders.
func (l *Link) CheckNodes(now time.Time) {
	l.host.Lock()
	dead := l.book.BuryDead(now, l.o.Timeout+l.LeaseMargin())
	if len(dead) > 0 {
		l.SaveNodes()
	}
	l.host.Unlock()
	for _, d := range dead {
		l.host.Logf(view.LevelWarn, "worker %s is dead (no heartbeat for %v, its lease over): its sites, keyword shards and URLs went to others",
			d.Name, l.o.Timeout+l.LeaseMargin())
		l.purge(d.Name, d.PurgeTo)
	}
}

// LeaseMargin is how long after a worker's lease ends, as the master counts it,
// the master waits before giving its hosts to others: a heartbeat period, for a
// worker's clock running slower than the master's, and the moment between its last
// check of the lease and its request leaving.
func (l *Link) LeaseMargin() time.Duration { return l.o.HeartbeatEvery }

// purge drops the task batches a dead worker never took, those stored up to the
// stream's sequence upTo (Table.BuryDead): they went to others, and the worker,
// rejoining under the same incarnation, must not fetch them. Only up to there: the
// worker may have rejoined since, and a batch of its new life, dropped, would be
// held by nobody while the master counts it handed out, and the crawl would never
// end. A batch of the dead life stored later is dropped as it is sent (unsend).
func (l *Link) purge(name string, upTo uint64) {
	if upTo == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(l.ctx, 5*time.Second)
	defer cancel()
	s, err := l.conn.JS.Stream(ctx, l.sub.TaskStream())
	if err == nil {
		err = s.Purge(ctx, jetstream.WithPurgeSubject(l.sub.Tasks(name)), jetstream.WithPurgeSequence(upTo+1))
	}
	if err != nil && l.ctx.Err() == nil {
		l.host.Logf(view.LevelWarn, "worker %s: purge its task batches: %v", name, err)
	}
}

// unsend drops the task batch stored at seq for a life of a worker that ended while
// it was sent (Table.Sent): its tasks went back to the queue.
func (l *Link) unsend(name string, seq uint64) {
	ctx, cancel := context.WithTimeout(l.ctx, 5*time.Second)
	defer cancel()
	s, err := l.conn.JS.Stream(ctx, l.sub.TaskStream())
	if err == nil {
		err = s.DeleteMsg(ctx, seq)
	}
	// Unsuccessful: the batch is gone, taken by the worker already (it reports its
	// tasks late) or purged.
	if err != nil && !errors.Is(err, jetstream.ErrMsgDeleteUnsuccessful) && l.ctx.Err() == nil {
		l.host.Logf(view.LevelWarn, "worker %s: drop a task batch sent as it was declared dead: %v (it may fetch those tasks again)", name, err)
	}
}

func (l *Link) respond(msg *nats.Msg, v any) {
	if msg.Reply == "" {
		return
	}
	if data, err := cluster.Encode(v); err == nil {
		msg.Respond(data)
	}
}

// PauseNode pauses or resumes one worker. The master records it first, numbered,
// and holds it: a worker the control does not reach, or that restarts or rejoins
// later, gets it with its next heartbeat's or join's reply.
func (l *Link) PauseNode(name string, paused bool) error {
	l.host.Lock()
	live := l.book.Live(name)
	var moved moves.Count
	var release map[string][]string
	if live {
		l.nodeSeq++
		moved, release = l.book.SetPaused(name, paused)
	}
	seq := l.nodeSeq
	l.host.Unlock()
	if !live {
		return fmt.Errorf("no live worker %q", name)
	}
	l.releaseAll(release)
	op := wire.OpResume
	if paused {
		op = wire.OpPause
	}
	if moved.Total() > 0 {
		l.host.Logf(view.LevelInfo, "worker %s %sd by operator; %s", name, op, moved.Said(name))
	} else {
		l.host.Logf(view.LevelInfo, "worker %s %sd by operator", name, op)
	}
	var reply wire.ControlReply
	if err := l.Control(name, &wire.Control{Op: op, Seq: seq}, &reply); err != nil {
		return fmt.Errorf("worker %s: %v (it is %sd when it next answers the master)", name, err, op)
	}
	return nil
}

// BroadcastPause sends the crawl's pause state (the console's global pause) to every
// live worker, numbered: the state and its number are taken together, so of a pause
// and a resume racing here the later-numbered carries the state the master ended in.
func (l *Link) BroadcastPause() {
	l.host.Lock()
	l.pauseSeq++
	paused, seq := l.host.Paused(), l.pauseSeq
	names := l.book.LiveNames()
	l.host.Unlock()
	op := wire.OpCrawlResume // the crawl's pause, apart from a worker's own (PauseNode)
	if paused {
		op = wire.OpCrawlPause
	}
	for _, name := range names {
		go l.Control(name, &wire.Control{Op: op, Seq: seq}, &wire.ControlReply{})
	}
}

// ClusterStats is the master's part of the stats object.
func (l *Link) ClusterStats() *view.ClusterStats {
	l.host.Lock()
	cs := l.book.Stats()
	l.host.Unlock()
	cs.Rejected = l.rejects.Snapshot()
	return cs
}

// OnClaim grants a worker whose egresses were all refused one more from the account
// table (seed 003 step 3-2-3), if one is free.
func (l *Link) OnClaim(msg *nats.Msg) {
	var c wire.Claim
	if err := cluster.Decode(msg.Data, &c, wire.MaxMessage); err != nil {
		l.rejects.Add(cluster.Reason(err))
		l.respond(msg, &wire.ClaimReply{Error: err.Error()})
		return
	}
	l.host.Lock()
	g, err := l.book.Claim(&c)
	if g != nil {
		l.SaveNodes()
	}
	l.host.Unlock()
	reply := wire.ClaimReply{Egress: g}
	if err != nil {
		reply.Error = err.Error()
	}
	if g != nil {
		l.host.Logf(view.LevelInfo, "worker %s claimed egress %s from the account table", c.Node, g.Name)
	}
	l.respond(msg, &reply)
}
