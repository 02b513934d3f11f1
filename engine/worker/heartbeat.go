package worker

import (
	"context"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// heartbeat tells the master the worker is alive (seed 003), with its figures; a
// master that does not know it (it restarted) gets a new join.
func (n *Node) heartbeat() {
	defer n.bg.Done()
	t := time.NewTicker(n.hbEvery)
	defer t.Stop()
	late := make(chan lateReply, 1)
	var joined time.Time // when the last rejoin was sent
	for {
		select {
		case <-n.quit:
			return
		case l := <-late:
			joined = n.answered(l.hb, l.sent, l.r, joined)
			continue
		case <-t.C:
		}
		hb := n.beat()
		n.beats.Lock()
		sent := time.Now()
		r, err := n.beatOnce(hb, sent, late)
		n.beats.Unlock()
		if err != nil {
			n.reach.miss(n.lanes, err, sent)
			continue // the master is away; results and hand-backs wait (and requests, once the lease ends)
		}
		n.reach.answer(n.lanes, time.Now())
		joined = n.answered(hb, sent, r, joined)
	}
}

// lateReply is the master's reply to heartbeat hb sent at sent, come after the
// heartbeat loop stopped waiting for it.
type lateReply struct {
	hb   wire.Heartbeat
	sent time.Time
	r    *wire.HeartbeatReply
}

// answered acts on the master's reply r to heartbeat hb sent at sent, in time or
// late alike, and returns when the last rejoin was sent. A busy master's every
// reply can come late: were only the lease taken from those, the hand-backs they
// confirm were sent again for ever (and those past one heartbeat's share never),
// a pause the worker missed as a control was never applied, and a master that
// no longer knew the worker (restarted, or it declared it dead) was never
// rejoined, the worker idle once its lease ran out. A reply to a heartbeat sent
// before the last rejoin speaks of the worker's life before it, and is dropped; a
// pause state older than one recorded since is dropped by its number.
func (n *Node) answered(hb wire.Heartbeat, sent time.Time, r *wire.HeartbeatReply, joined time.Time) time.Time {
	if sent.Before(joined) {
		return joined
	}
	if r.Known {
		n.lease.Grant(sent, r.Lease)
	}
	n.mu.Lock()
	if r.Known {
		n.handedBack = withoutConfirmed(n.handedBack, hb.HandedBack) // the master has them
	} else {
		n.handedBack = nil // the master queued again all it had handed to this worker
	}
	n.mu.Unlock()
	n.setCrawlPaused(r.PauseSeq, r.Paused, false)
	if r.Known && r.NodeSeq != 0 { // 0: the master holds no pause of this worker (wire.JoinReply)
		n.setPaused(r.NodeSeq, r.NodePaused)
	}
	if !r.Known {
		joined = time.Now()
		n.rejoin()
	}
	return joined
}

// withoutConfirmed is list without the tasks a reply confirmed: by hand-out, not
// by place, as a late reply's may no longer be the list's first.
func withoutConfirmed(list, confirmed []frontier.Task) []frontier.Task {
	if len(confirmed) == 0 {
		return list
	}
	done := make(map[uint64]bool, len(confirmed))
	for _, t := range confirmed {
		done[t.Lease] = true
	}
	return slices.DeleteFunc(list, func(t frontier.Task) bool { return done[t.Lease] })
}

// beatOnce sends hb and waits a heartbeat period for the master's reply, as the
// loop's pace asks. A reply that comes later renews the lease at once (Grant from
// sent, which the master counted from when it heard the worker, later): waited up
// to the lease's length in the background, while the next heartbeats go. A busy
// master's replies can take longer than a period (seconds on a loaded box);
// dropping them let the worker's lease run out while the master held the worker's
// hosts for it, and the worker stopped starting requests, and cut those running,
// for nothing. The rest of a late reply goes to late, for the heartbeat loop to
// act on (answered).
func (n *Node) beatOnce(hb wire.Heartbeat, sent time.Time, late chan<- lateReply) (*wire.HeartbeatReply, error) {
	type answer struct {
		r   *wire.HeartbeatReply
		err error
	}
	done := make(chan answer, 1)
	n.bg.Add(1)
	go func() {
		defer n.bg.Done()
		r, err := n.up.Heartbeat(hb, max(n.hbEvery, n.lease.For()))
		done <- answer{r, err}
	}()
	t := time.NewTimer(n.hbEvery)
	defer t.Stop()
	select {
	case a := <-done:
		return a.r, a.err
	case <-t.C:
	}
	n.bg.Add(1)
	go func() {
		defer n.bg.Done()
		a := <-done
		if a.err != nil {
			return
		}
		if a.r.Known {
			n.lease.Grant(sent, a.r.Lease)
		}
		select {
		case late <- lateReply{hb: hb, sent: sent, r: a.r}:
		case <-n.quit:
		}
	}()
	return nil, context.DeadlineExceeded
}

// beat is the heartbeat the worker sends now: its figures, its pause, the tasks it
// handed back unconfirmed, and whether it holds any task at all.
func (n *Node) beat() wire.Heartbeat {
	s := n.lanes.Snapshot()
	hb := wire.Heartbeat{Lanes: s.LanesBusy, LanesMax: s.LanesMax,
		Queue: s.QueueDepth, PagesPerSec: s.PagesPerSec, Egresses: s.Egresses, Rows: s.Lanes,
		Refused: s.Totals.Refused, Egress: s.Egress, DNS: s.DNS}
	n.mu.Lock()
	hb.Paused = n.nodePaused
	hb.HandedBack = slices.Clone(n.handedBack[:min(len(n.handedBack), handBackPerBeat)])
	n.mu.Unlock()
	// The lanes before the outbox: a lane posts its report before it lets go of
	// the task, so a task between the two is seen in one or the other.
	hb.Idle = len(n.lanes.Holding()) == 0 && n.box.Unacked() == 0
	hb.LastReport = n.box.LastReport() // after Unacked: an acknowledged report's sequence is in
	return hb
}

// rejoin joins a master that restarted (or declared this worker dead), claiming
// what the worker still holds, queued on its board or in a lane's hand: the master
// takes back what no other worker holds (the rest it queued again, or gave to
// another worker). The worker goes on with what was taken back, on the lease the
// join grants, and drops the rest unfetched: from the board now, from a lane's hand
// when the lane gets to it (Lease.Wait answers ErrLeaseLost).
func (n *Node) rejoin() {
	// Reports not acknowledged first: fetched already, a claim keeps them from
	// being queued again while they wait to go out (the master restarted).
	holding := n.box.Unsettled()
	reported := len(holding)
	holding = append(holding, n.lanes.Holding()...)
	claimed := make(map[uint64]bool, len(holding)) // in hand or on the board
	for _, t := range holding[reported:] {
		claimed[t.Lease] = true
	}
	if len(holding) > wire.MaxHolding {
		holding = holding[:wire.MaxHolding] // the reports' and the lanes' first; the others are dropped, the master queues them again
	}
	sent := time.Now()
	// The operator's pause goes with the join: a master that restarted knows it
	// from nobody else, and would deal the worker sites until its first heartbeat.
	n.mu.Lock()
	paused := n.nodePaused
	n.mu.Unlock()
	n.parkTasks()
	reply, err := n.up.Join(holding, paused)
	if err != nil {
		n.placeParked()
		n.lanes.Logf(view.LevelWarn, "rejoin: %v", err)
		return
	}
	lost := n.rejoined(sent, reply, claimed)
	n.placeParked()
	if err := n.consumeTasks(); err != nil {
		n.lanes.Logf(view.LevelWarn, "rejoin: %v", err)
	}
	n.lanes.Logf(view.LevelWarn, "rejoined: the master did not know this worker (restarted, or it declared it dead), so it joined again; "+
		"of %d tasks held and %d reports not yet acknowledged, %d taken back, %d dropped unfetched (the master queued them again or gave them to another worker)",
		len(claimed), reported, len(reply.Kept), lost)
}

// rejoined takes the master's reply to a rejoin sent at sent, claiming the tasks
// numbered in claimed: those it did not take back are lost, and so is any task of
// an earlier life (numbered below reply.Since) it did not take back, on the board
// now or reaching it later; the lanes drop them unfetched. It returns how many of
// the claimed were lost.
func (n *Node) rejoined(sent time.Time, reply *wire.JoinReply, claimed map[uint64]bool) int {
	kept := make(map[uint64]bool, len(reply.Kept))
	for _, l := range reply.Kept {
		kept[l] = true
	}
	var lost []uint64
	for l := range claimed {
		if !kept[l] {
			lost = append(lost, l)
		}
	}
	n.lease.Lose(lost)
	n.lease.Begin(reply.Since, reply.Kept)
	n.carry(reply.LastRequest)
	// The board's stale tasks too: a batch placed after the claim was read.
	n.lanes.Drop(func(t frontier.Task) bool { return claimed[t.Lease] && !kept[t.Lease] || n.lease.Stale(t.Lease) })
	n.lease.Grant(sent, reply.Lease)
	n.setCrawlPaused(reply.PauseSeq, reply.Paused, true)
	if reply.NodeSeq != 0 {
		n.setPaused(reply.NodeSeq, reply.NodePaused)
	}
	n.joinLanesMax(reply)
	n.joinHosts(reply)
	return len(lost)
}
