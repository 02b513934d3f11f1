package master

import (
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Recalls: a page budget the operator sets or lowers while the crawl runs holds on
// what a worker has in its queue too. The master counts a budget's pages as it hands
// them out (Front.Admit), so a worker's queue of hand-outs made before the budget
// counts against it; recalling them, the master counts only what the workers'
// lanes have in hand, deals the rest again, and holds back what is over.

// Holding names, per live worker, the hosts of the hand-outs it holds that match
// selects (none: no worker holds one).
func (t *Table) Holding(match func(frontier.Task) bool) map[string][]string {
	out := map[string][]string{}
	for _, name := range sortedKeys(t.nodes) {
		n := t.nodes[name]
		if n.state == view.NodeDead {
			continue
		}
		hosts := map[string]bool{}
		for _, task := range n.held {
			if match(task) {
				hosts[task.Host] = true
			}
		}
		if len(hosts) > 0 {
			out[name] = sortedKeys(hosts)
		}
	}
	return out
}

// Recall asks each live worker holding hand-outs that match selects to hand back
// those of their hosts its lanes have not taken, and waits for the answers: what
// comes back is queued at the master again, in front of its unit, and dealt anew
// (through Front.Admit). It returns how many tasks came back.
func (l *Link) Recall(match func(frontier.Task) bool) int {
	l.host.Lock()
	// A batch of those hosts' tasks handed out before may still be on its way
	// to the worker (the task stream and the request keep no order between
	// them): the worker hands those back too, up to the last lease handed out.
	holding, upTo := l.book.Holding(match), l.book.LastLease()
	l.host.Unlock()
	done := make(chan int, len(holding))
	for name, hosts := range holding {
		go func() {
			var reply wire.ControlReply
			if err := l.Control(name, &wire.Control{Op: wire.OpRelease, Hosts: hosts, Lease: upTo}, &reply); err != nil {
				l.host.Logf(view.LevelWarn, "worker %s: recall of its queued tasks on %d hosts: %v (those it queued may be fetched)", name, len(hosts), err)
				done <- 0
				return
			}
			l.host.Lock()
			n := 0
			if nd := l.book.nodes[name]; nd != nil {
				n = l.book.takeBack(nd, reply.Tasks)
			}
			l.host.Unlock()
			done <- n
		}()
	}
	back := 0
	for range holding {
		back += <-done
	}
	return back
}
