package master

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Reclaiming hand-outs nobody holds. The master counts a task handed out until its
// worker reports it or is declared dead; the crawl ends only once none is. A
// hand-out the worker never got, or dropped without a word, would keep the crawl
// waiting for ever (DRAINING, "queue 1", every lane idle), and nothing on either
// side would say why. A bug of that kind must not hang a crawl: a worker's
// heartbeat says whether it holds any task at all (wire.Heartbeat.Idle: none on its
// board, none in a lane's hand, no report its server has not acknowledged) and how
// far the master must have read the results stream to have read all its reports
// (wire.Heartbeat.LastReport). When a worker has said so for a whole lease, the
// master caught up with its reports and none of them come in meanwhile, the tasks
// the master counts handed to it before that stretch began are held by nobody: they
// go back to the queue, named in a warning, and counted (ClusterStats.Reclaimed).
// The stretch lasts a lease and at least the worker's task consumer's redelivery
// wait (wire.TaskAckWait): a batch on its way to the worker may be that late (one
// pulled by the consumption a rejoin replaced comes again only then), and this is a
// guard against a hang, not a clock to race. The cost of a wrong call is one request
// made twice (the first report, late, is dropped).

// readReport records that the master read the report stored at seq in the results
// stream.
func (t *Table) readReport(seq uint64) { t.readSeq = max(t.readSeq, seq) }

// idleFor records what worker name's heartbeat at now said: whether it holds
// nothing, and the stream sequence of its last report. It returns the tasks the
// table counts handed to it that it has held nothing of for a lease (taken out of
// its hand-outs and queued again).
func (t *Table) idleFor(name string, idle bool, lastReport uint64, now time.Time) []frontier.Task {
	n := t.nodes[name]
	// A batch being published for it (Publishing) may reach it as the publish
	// resolves, up to half a minute on: its tasks are on their way, not held by
	// nobody, and the stretch starts once the publish resolved. Counted from
	// before, a batch stored at the publish's last try had its tasks queued again
	// while it reached the worker, which fetched them and then their new hand-out.
	if n == nil || !n.live() || !idle || lastReport > t.readSeq || len(n.held) == 0 || t.LeaseFor <= 0 || t.isPublishing(n) {
		if n != nil {
			n.idleSince = time.Time{}
		}
		return nil
	}
	if n.idleSince.IsZero() {
		n.idleSince, n.idleMark = now, t.lease
		return nil
	}
	if now.Sub(n.idleSince) < max(t.LeaseFor, wire.TaskAckWait) {
		return nil
	}
	var lost []frontier.Task
	for _, task := range heldBack(n) { // newest first: each goes first in line
		if task.Lease <= n.idleMark {
			t.unhand(n, task)
			t.requeue(task)
			lost = append(lost, task)
		}
	}
	n.idleSince = time.Time{}
	t.reclaimed += int64(len(lost))
	return lost
}

// reported notes that a report of worker n reached the master: a stretch of its
// heartbeats saying it holds nothing starts again.
func (n *node) reported() { n.idleSince = time.Time{} }
