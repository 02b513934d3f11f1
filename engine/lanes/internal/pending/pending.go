// Package pending is the lanes' board's queue of tasks that found no lane.
package pending

import "github.com/crawlconsole/crawlconsole/engine/frontier"

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
	out := append(q.first.takeAdjacent(host, parent), q.ahead.takeAdjacent(host, parent)...)
	return append(out, q.plain.takeAdjacent(host, parent)...)
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

// takeAdjacent removes and returns, oldest first, every pending task with this host
// or (if non-zero) this parent hash.
func (q *pendingFIFO) takeAdjacent(host string, parent uint64) []frontier.Task {
	pos := append([]int(nil), q.byHost[host]...)
	if parent != 0 {
		pos = append(pos, q.byParent[parent]...)
	}
	var out []frontier.Task
	for _, i := range sortedUnique(pos) {
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
// indexes are absolute, so compaction rebuilds them.
func (q *pendingFIFO) compact() {
	if q.head < 1024 || q.head < len(q.items)/2 {
		return
	}
	var live []pendingItem
	for _, it := range q.items[q.head:] {
		if !it.dead {
			live = append(live, it)
		}
	}
	q.items, q.head = live, 0
	q.init()
	for i, it := range q.items {
		q.index(it.t, i)
	}
}

func sortedUnique(xs []int) []int {
	if len(xs) < 2 {
		return xs
	}
	seen := make(map[int]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	// insertion sort: index lists are short and nearly sorted
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
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
