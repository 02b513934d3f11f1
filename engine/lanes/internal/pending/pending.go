// Package pending is the lanes' board's queue of tasks that found no lane.
package pending

import (
	"slices"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Queue holds tasks that found no lane (all lanes busy and none adjacent, M1:
// "beyond that it waits for one"), in three tiers: the operator's (Board.AddFirst: a
// keyword or site added live), the articles a read has just listed (Board.AddAhead)
// and the rest. Each tier is FIFO; the tiers go out in that order, and a lane opened
// for one task pulls in the tasks adjacent to it from all three, in the same order.
// With every lane busy, as at a crawl's fetch budget, new lanes open only from here,
// so a tier that only the lanes' queues honoured would leave the operator's search
// and the news behind every due read that found no lane.
type Queue struct{ first, ahead, plain pendingFIFO }

// Init makes the queue ready; a Queue must be initialised before use.
func (q *Queue) Init() { q.first.init(); q.ahead.init(); q.plain.init() }

// Len is the number of tasks queued in every tier.
func (q *Queue) Len() int { return q.first.live + q.ahead.live + q.plain.live }

// Push queues t in the ordinary tier, PushAhead in the articles', PushFirst in the
// operator's.
func (q *Queue) Push(t frontier.Task)      { q.plain.push(t) }
func (q *Queue) PushAhead(t frontier.Task) { q.ahead.push(t) }
func (q *Queue) PushFirst(t frontier.Task) { q.first.push(t) }

// HasHost reports whether a task of host is queued.
func (q *Queue) HasHost(host string) bool {
	return q.first.nHost[host] > 0 || q.ahead.nHost[host] > 0 || q.plain.nHost[host] > 0
}

// Pop takes the first task, the operator's tier first, then the articles'.
func (q *Queue) Pop() (frontier.Task, bool) {
	if t, ok := q.first.pop(); ok {
		return t, true
	}
	if t, ok := q.ahead.pop(); ok {
		return t, true
	}
	return q.plain.pop()
}

// TakeAdjacent takes every task of host or (if non-zero) of the parent hash, tier by tier.
func (q *Queue) TakeAdjacent(host string, parent uint64) []frontier.Task {
	out := q.first.takeAdjacent(nil, host, parent)
	out = q.ahead.takeAdjacent(out, host, parent)
	return q.plain.takeAdjacent(out, host, parent)
}

// TakeHost takes every task of host.
func (q *Queue) TakeHost(host string) []frontier.Task {
	return append(append(q.first.takeHost(host), q.ahead.takeHost(host)...), q.plain.takeHost(host)...)
}

// Take takes every task drop reports.
func (q *Queue) Take(drop func(frontier.Task) bool) []frontier.Task {
	return append(append(q.first.take(drop), q.ahead.take(drop)...), q.plain.take(drop)...)
}

// pendingFIFO is one tier: FIFO, and indexed by host and parent hash so that a lane
// opened for one task pulls in all tasks adjacent to it at once. Entries taken
// through an index are tombstoned and skipped by pop.
type pendingFIFO struct {
	items    []pendingItem
	head     int
	live     int
	byHost   map[string][]int // host -> positions in items (may include dead ones)
	byParent map[uint64][]int
	nHost    map[string]int // host -> live tasks
	nParent  map[uint64]int
}

type pendingItem struct {
	t    frontier.Task
	dead bool
}

func (q *pendingFIFO) init() {
	q.byHost = map[string][]int{}
	q.byParent = map[uint64][]int{}
	q.nHost = map[string]int{}
	q.nParent = map[uint64]int{}
}

func (q *pendingFIFO) len() int { return q.live }

func (q *pendingFIFO) push(t frontier.Task) {
	i := len(q.items)
	q.items = append(q.items, pendingItem{t: t})
	q.index(t, i)
	q.live++
}

func (q *pendingFIFO) index(t frontier.Task, i int) {
	q.byHost[t.Host] = append(q.byHost[t.Host], i)
	q.nHost[t.Host]++
	if t.ParentHash != 0 {
		q.byParent[t.ParentHash] = append(q.byParent[t.ParentHash], i)
		q.nParent[t.ParentHash]++
	}
}

func (q *pendingFIFO) pop() (frontier.Task, bool) {
	for q.head < len(q.items) {
		it := &q.items[q.head]
		q.head++
		if it.dead {
			continue
		}
		t := it.t
		q.kill(q.head - 1)
		q.compact()
		return t, true
	}
	return frontier.Task{}, false
}

// kill tombstones position i; an index is dropped when its last live task goes.
func (q *pendingFIFO) kill(i int) {
	it := &q.items[i]
	if it.dead {
		return
	}
	it.dead = true
	q.live--
	if q.nHost[it.t.Host]--; q.nHost[it.t.Host] <= 0 {
		delete(q.nHost, it.t.Host)
		delete(q.byHost, it.t.Host)
	}
	if p := it.t.ParentHash; p != 0 {
		if q.nParent[p]--; q.nParent[p] <= 0 {
			delete(q.nParent, p)
			delete(q.byParent, p)
		}
	}
}

// takeAdjacent removes, oldest first, every pending task with this host or (if
// non-zero) this parent hash, and appends them to out. A lane opens this way for
// most tasks of a busy crawl, so the two index lists (each ascending: positions are
// indexed in order) are merged as they are read, not copied and sorted.
func (q *pendingFIFO) takeAdjacent(out []frontier.Task, host string, parent uint64) []frontier.Task {
	byHost := q.byHost[host]
	var byParent []int
	if parent != 0 {
		byParent = q.byParent[parent]
	}
	if len(byHost) == 0 && len(byParent) == 0 {
		return out
	}
	// kill drops a list from its map when its last task goes, but leaves the list
	// itself as it was: the merge reads it to its end.
	out = slices.Grow(out, q.nHost[host]+q.nParent[parent])
	for len(byHost) > 0 || len(byParent) > 0 {
		var i int
		switch {
		case len(byParent) == 0 || len(byHost) > 0 && byHost[0] < byParent[0]:
			i, byHost = byHost[0], byHost[1:]
		case len(byHost) == 0 || byParent[0] < byHost[0]:
			i, byParent = byParent[0], byParent[1:]
		default: // the same position in both
			i, byHost, byParent = byHost[0], byHost[1:], byParent[1:]
		}
		if i < q.head || q.items[i].dead {
			continue
		}
		out = append(out, q.items[i].t)
		q.kill(i)
	}
	q.compact()
	return out
}

// takeHost removes and returns every pending task of a host.
func (q *pendingFIFO) takeHost(host string) []frontier.Task {
	var out []frontier.Task
	for _, i := range append([]int(nil), q.byHost[host]...) {
		if i < q.head || q.items[i].dead {
			continue
		}
		out = append(out, q.items[i].t)
		q.kill(i)
	}
	q.compact()
	return out
}

// compact reclaims the consumed prefix once it dominates the slice. Positions in the
// indexes are absolute, so compaction rebuilds them. The live tasks move to the
// front of the same array (a write never passes the read ahead of it), which the
// queue then fills again, and the tail is cleared so that it holds no task; only
// an array left far too large by a drained burst is let go for a smaller one.
func (q *pendingFIFO) compact() {
	if q.head < 1024 || q.head < len(q.items)/2 {
		return
	}
	rest := q.items[q.head:]
	live, inPlace := q.items[:0], cap(q.items) <= 4*len(rest)+4096
	if !inPlace {
		live = make([]pendingItem, 0, 2*len(rest))
	}
	for _, it := range rest {
		if !it.dead {
			live = append(live, it)
		}
	}
	if inPlace {
		clear(q.items[len(live):])
		clear(q.byHost)
		clear(q.byParent)
		clear(q.nHost)
		clear(q.nParent)
	} else {
		q.init() // a map keeps the size it grew to: new ones, as for the array
	}
	q.items, q.head = live, 0
	for i, it := range q.items {
		q.index(it.t, i)
	}
}

// take removes and returns, oldest first, every pending task drop selects.
func (q *pendingFIFO) take(drop func(frontier.Task) bool) []frontier.Task {
	var out []frontier.Task
	for i := q.head; i < len(q.items); i++ {
		if it := &q.items[i]; !it.dead && drop(it.t) {
			out = append(out, it.t)
			q.kill(i)
		}
	}
	q.compact()
	return out
}
