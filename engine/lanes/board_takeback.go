package lanes

import "github.com/crawlconsole/crawlconsole/engine/frontier"

// Drain removes and returns every task still queued (in lanes and pending), for a
// clean shutdown: the engine leaves them unprocessed in the store.
func (b *Board) Drain() []frontier.Task {
	var out []frontier.Task
	for _, l := range b.lanes {
		out = append(out, l.queue...)
		l.queue = nil
	}
	for {
		t, ok := b.pending.Pop()
		if !ok {
			break
		}
		out = append(out, t)
	}
	b.forget(out)
	return out
}

// AddEgress adds an egress (M3: one claimed from the account table or added by the
// operator) and returns its index.
func (b *Board) AddEgress(name string) int {
	for i, n := range b.egresses {
		if n == name {
			return i
		}
	}
	b.egresses = append(b.egresses, name)
	b.byHost = append(b.byHost, map[string]*Lane{})
	b.byParent = append(b.byParent, map[uint64]*Lane{})
	return len(b.egresses) - 1
}

// Evict removes the queued tasks of host from lanes on egress (host == "": every
// task there) and returns them for placing again: the egress may no longer serve
// them (M3 pair ban or proxy fault).
func (b *Board) Evict(host string, egress int) []frontier.Task {
	var out []frontier.Task
	for _, l := range b.lanes {
		if l.Egress != egress {
			continue
		}
		kept := l.queue[:0]
		for _, t := range l.queue {
			if host == "" || t.Host == host {
				out = append(out, t)
				b.unhold(l, t)
				continue
			}
			kept = append(kept, t)
		}
		l.queue = kept
	}
	b.forget(out)
	return out
}

// DropHost removes every queued task of a host (lanes and pending) and returns them,
// e.g. to defer a disabled host's URLs (M3).
func (b *Board) DropHost(host string) []frontier.Task {
	var out []frontier.Task
	for _, l := range b.lanes {
		kept := l.queue[:0]
		for _, t := range l.queue {
			if t.Host == host {
				out = append(out, t)
				b.unhold(l, t)
				continue
			}
			kept = append(kept, t)
		}
		l.queue = kept
	}
	out = append(out, b.pending.TakeHost(host)...)
	b.forget(out)
	return out
}

// TakeAll removes every queued task (lanes and pending) and returns them: a worker
// leaving a distributed crawl hands them back to the master (M4). Tasks in hand stay
// with their lanes.
func (b *Board) TakeAll() []frontier.Task {
	var out []frontier.Task
	for _, l := range b.lanes {
		for _, t := range l.queue {
			out = append(out, t)
			b.unhold(l, t)
		}
		l.queue = l.queue[:0]
	}
	for {
		t, ok := b.pending.Pop()
		if !ok {
			b.forget(out)
			return out
		}
		out = append(out, t)
	}
}

// Withdraw removes every queued task (lanes and pending) that drop selects and
// returns them: the operator took their site or keyword out of the crawl while they
// waited (`:keyword rm`, `:site rm`). Tasks in hand stay with their lanes.
func (b *Board) Withdraw(drop func(frontier.Task) bool) []frontier.Task {
	var out []frontier.Task
	for _, l := range b.lanes {
		kept := l.queue[:0]
		for _, t := range l.queue {
			if drop(t) {
				out = append(out, t)
				b.unhold(l, t)
				continue
			}
			kept = append(kept, t)
		}
		clear(l.queue[len(kept):])
		l.queue = kept
	}
	out = append(out, b.pending.Take(drop)...)
	b.forget(out)
	return out
}

// Tasks lists every queued task (lanes and pending) and takes none: a worker that
// rejoins its master claims them (M4).
func (b *Board) Tasks() []frontier.Task {
	var out []frontier.Task
	b.Withdraw(func(t frontier.Task) bool {
		out = append(out, t)
		return false
	})
	return out
}
