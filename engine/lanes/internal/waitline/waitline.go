// Package waitline keeps the requests waiting at the lanes' gate for one key (a
// host, an egress's parent page), in the order they came.
package waitline

import "slices"

// Waiter is one request waiting at the gate, in the line of each key it needs.
type Waiter struct {
	Urgent bool
	// HostHeld: at its last look, its own host held it (a slot in flight, the
	// host's gap, requests to the host that came first). Such a waiter keeps its
	// place in its parent's line but does not hold it up: the line spans hosts,
	// and another host's request need not wait out this host's delay.
	HostHeld bool
}

// Line are the requests waiting for one key, in the order they came. Every
// waiter joins the lines of all its keys at once, under the gate's lock, so the
// lines agree on the order: the first of all waiters is first in each of its
// lines, and the lines never hold each other up in a circle.
type Line struct {
	Waiting []*Waiter
	moved   chan struct{} // closed when a waiter leaves; nil while none waits on it
}

// Ahead returns a channel that closes when the line moves, if a request that
// came before w waits still (for an urgent w, an urgent one); nil: it is w's turn.
// w nil is a request that has not joined yet: every waiter came before it.
// skipHostHeld passes over waiters their own host holds (a parent's line).
func (l *Line) Ahead(w *Waiter, urgent, skipHostHeld bool) chan struct{} {
	for _, v := range l.Waiting {
		if v == w {
			return nil
		}
		if skipHostHeld && v.HostHeld {
			continue
		}
		if v.Urgent || !urgent {
			if l.moved == nil {
				l.moved = make(chan struct{})
			}
			return l.moved
		}
	}
	return nil
}

// Join puts w at the end of the line.
func (l *Line) Join(w *Waiter) { l.Waiting = append(l.Waiting, w) }

// Nudge wakes the line's waiters to look again (one ahead of them stopped
// holding the line up).
func (l *Line) Nudge() {
	if l.moved != nil {
		close(l.moved)
		l.moved = nil
	}
}

// Leave takes w out of the line, and wakes those behind it.
func (l *Line) Leave(w *Waiter) {
	if i := slices.Index(l.Waiting, w); i >= 0 {
		l.Waiting = slices.Delete(l.Waiting, i, i+1)
	}
	if l.moved != nil {
		close(l.moved)
		l.moved = nil
	}
}
