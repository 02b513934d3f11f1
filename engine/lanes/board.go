// Package lanes is the lane side of a crawl: adjacency lanes (M1), the politeness
// gate, and the Runner that runs each lane over the ports it defines (Front: tasks
// in; Record: outcomes out), with robots.txt, retries, the refusal judge and
// routing over egresses (subpackage route), and the DNS cache's glue (dns.go).
//
// A site flags an IP as a bot when, within a short window, that IP requests many
// "adjacent" pages: pages on the same host, or pages linked from the same parent page.
// The Board binds every task to a lane so that adjacent tasks are fetched serially by
// one lane, with a random human-like pause between requests, while unrelated tasks are
// fetched in parallel by other lanes.
//
// The rule (M1), judged per egress address because that is what a server sees:
//   - a task is adjacent to a lane when its host is a host the lane holds, or its
//     parent hash is a parent hash the lane holds (the hash of the seed's parent, 0,
//     binds nothing);
//   - adjacent: it joins that lane, preferring the host match when the host and the
//     parent point at different lanes;
//   - not adjacent: it opens a new lane, up to Max; beyond that it waits (pending)
//     until a lane retires;
//   - a lane holds the host and parent of every task it has queued, in flight, or just
//     fetched and is still pausing after; lanes that run dry retire.
//
// With several egresses a host may be served by one lane per egress: when every lane a
// task is adjacent to has a backlog, and some egress has no lane adjacent to the task,
// a new lane opens there (the per-host aggregate cap in Gate keeps the site's load
// unchanged); and a lane that runs dry first takes over half the longest backlog on
// another egress that it is not adjacent to on its own (see steal), retiring only
// when there is none. With one egress neither happens and the rule above is exact.
package lanes

import (
	"fmt"
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/internal/pending"
)

// SpreadBacklog is the backlog a lane must have before a host spreads to another
// egress (only when several egresses exist).
const SpreadBacklog = 2

// Lane is one serial fetcher bound to one egress. Its fields are owned by the Board
// and read only under the Board's lock (use Board.View for a copy).
type Lane struct {
	ID      int
	Egress  int // index into the Board's egress list
	queue   []frontier.Task
	holding []frontier.Task // tasks taken by the lane and not yet released
	hosts   map[string]int  // host -> tasks held (queued + taken)
	parents map[uint64]int  // parent hash -> tasks held
	paused  bool
	retired bool
	done    int64

	tookFirst bool // the task taken last was added by AddFirst
}

// TookUrgent reports whether the task the lane took last was added by AddFirst.
func (l *Lane) TookUrgent() bool { return l.tookFirst }

// Backlog is the number of tasks queued in the lane.
func (l *Lane) Backlog() int { return len(l.queue) }

// Paused reports whether the operator paused the lane.
func (l *Lane) Paused() bool { return l.paused }

// Done is the number of tasks the lane has taken.
func (l *Lane) Done() int64 { return l.done }

// Retired reports whether the lane ran dry and gave up its slot.
func (l *Lane) Retired() bool { return l.retired }

// Board assigns tasks to lanes (M1). It is not safe for concurrent use; the engine
// guards it with one mutex.
type Board struct {
	max      int
	egresses []string
	nextID   int
	lanes    map[int]*Lane
	byHost   []map[string]*Lane // per egress: host -> lane holding it
	byParent []map[uint64]*Lane // per egress: parent hash -> lane holding it
	pending  pending.Queue
	peak     int
	first    map[string]bool // URLs added by AddFirst and not yet taken
	ahead    map[string]bool // URLs added by AddAhead and not yet taken

	// Allowed, if set, says whether egress may serve host now (M3: no pair ban, no
	// proxy-fault cooldown). Lanes on other egresses are not joined and no lane opens
	// there for the host.
	Allowed func(egress int, host string) bool
	// Held, if set, says the operator paused host: a lane takes another host's
	// queued task before one of its, and a lane that runs dry does not take over its
	// tasks (it would only sit on them; see steal). Its tasks may still open a lane.
	Held func(host string) bool
}

// NewBoard returns a Board for max lanes over the named egresses (at least one; the
// default egress is the host's own address).
func NewBoard(max int, egresses []string) *Board {
	if len(egresses) == 0 {
		egresses = []string{"direct"}
	}
	b := &Board{max: max, egresses: append([]string(nil), egresses...), lanes: map[int]*Lane{}}
	for range b.egresses {
		b.byHost = append(b.byHost, map[string]*Lane{})
		b.byParent = append(b.byParent, map[uint64]*Lane{})
	}
	b.pending.Init()
	return b
}

// SetMax changes lanes.max; raising it opens lanes for pending tasks (returned).
func (b *Board) SetMax(n int) ([]*Lane, error) {
	if n < 1 {
		return nil, fmt.Errorf("lanes must be at least 1 (got %d)", n)
	}
	b.max = n
	return b.fill(), nil
}

// Max is lanes.max.
func (b *Board) Max() int { return b.max }

// Len is the number of live lanes.
func (b *Board) Len() int { return len(b.lanes) }

// Peak is the most lanes alive at once.
func (b *Board) Peak() int { return b.peak }

// Pending is the number of tasks waiting for a lane.
func (b *Board) Pending() int { return b.pending.Len() }

// Queued is the number of tasks waiting, in lanes or pending.
func (b *Board) Queued() int {
	n := b.pending.Len()
	for _, l := range b.lanes {
		n += len(l.queue)
	}
	return n
}

// Holds reports whether any task of host is queued, pending or in hand.
func (b *Board) Holds(host string) bool {
	for e := range b.egresses {
		if b.byHost[e][host] != nil {
			return true
		}
	}
	return b.pending.HasHost(host)
}

// Lane returns a live lane by ID.
func (b *Board) Lane(id int) (*Lane, bool) {
	l, ok := b.lanes[id]
	return l, ok
}

// SetPaused pauses or resumes one lane. A paused lane keeps its tasks and bindings.
func (b *Board) SetPaused(id int, paused bool) error {
	l, ok := b.lanes[id]
	if !ok {
		return fmt.Errorf("no lane %d", id)
	}
	l.paused = paused
	return nil
}

// Egresses returns the egress names, in order.
func (b *Board) Egresses() []string { return b.egresses }

// SetEgress moves a lane, with everything it holds, to another egress (rebalance).
// It fails if the target egress already has a lane adjacent to what this lane holds.
func (b *Board) SetEgress(id, egress int) error {
	l, ok := b.lanes[id]
	if !ok {
		return fmt.Errorf("no lane %d", id)
	}
	if egress < 0 || egress >= len(b.egresses) {
		return fmt.Errorf("no egress %d", egress)
	}
	if egress == l.Egress {
		return nil
	}
	for h := range l.hosts {
		if o := b.byHost[egress][h]; o != nil && o != l {
			return fmt.Errorf("lane %d: host %s is already bound to lane %d on %s", id, h, o.ID, b.egresses[egress])
		}
	}
	for p := range l.parents {
		if o := b.byParent[egress][p]; o != nil && o != l {
			return fmt.Errorf("lane %d: a parent page is already bound to lane %d on %s", id, o.ID, b.egresses[egress])
		}
	}
	for h := range l.hosts {
		if b.byHost[l.Egress][h] == l {
			delete(b.byHost[l.Egress], h)
		}
		b.byHost[egress][h] = l
	}
	for p := range l.parents {
		if b.byParent[l.Egress][p] == l {
			delete(b.byParent[l.Egress], p)
		}
		b.byParent[egress][p] = l
	}
	l.Egress = egress
	return nil
}

// LaneView is a copy of one lane's bindings for display.
type LaneView struct {
	ID      int
	Egress  string
	Hosts   map[string]int
	Parents map[uint64]int
	Queued  int
	Done    int64
	Paused  bool
}

// View copies every live lane, by ID.
func (b *Board) View() []LaneView {
	out := make([]LaneView, 0, len(b.lanes))
	for _, l := range b.lanes {
		v := LaneView{ID: l.ID, Egress: b.egresses[l.Egress], Queued: len(l.queue), Done: l.done, Paused: l.paused,
			Hosts: make(map[string]int, len(l.hosts)), Parents: make(map[uint64]int, len(l.parents))}
		for h, n := range l.hosts {
			v.Hosts[h] = n
		}
		for p, n := range l.parents {
			v.Parents[p] = n
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
