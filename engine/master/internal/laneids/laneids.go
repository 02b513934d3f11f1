// Package laneids is a master console's numbering of its workers' lanes: each
// worker numbers its own lanes, and the master's Lanes pane and lane controls name
// a lane by one ID over all workers.
package laneids

import "fmt"

// ref is a worker's lane, under the ID the master's console shows.
type ref struct {
	node string
	lane int
}

// IDs maps the workers' lanes to console IDs and back. The zero value is not
// usable: make it with New. Not safe for concurrent use (the master's Table holds
// it under its lock).
type IDs struct {
	ids  map[ref]int
	refs map[int]ref
	next int
}

// New is a numbering with no lane yet.
func New() *IDs { return &IDs{ids: map[ref]int{}, refs: map[int]ref{}} }

// ID returns the console ID of a worker's lane, giving it one on first sight.
func (l *IDs) ID(node string, lane int) int {
	r := ref{node, lane}
	if id, ok := l.ids[r]; ok {
		return id
	}
	l.next++
	l.ids[r] = l.next
	l.refs[l.next] = r
	return l.next
}

// Forget drops the IDs of a worker's lanes that its last heartbeat no longer
// lists.
func (l *IDs) Forget(node string, live map[int]bool) {
	for r, id := range l.ids {
		if r.node == node && !live[r.lane] {
			delete(l.ids, r)
			delete(l.refs, id)
		}
	}
}

// Lane is the worker and its own lane number behind a console lane ID.
func (l *IDs) Lane(id int) (node string, lane int, err error) {
	r, ok := l.refs[id]
	if !ok {
		return "", 0, fmt.Errorf("no lane %d", id)
	}
	return r.node, r.lane, nil
}
