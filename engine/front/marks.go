package front

// Marks are the revisits put back in the queue whose fetch has not ended (M2), and
// where they are: waiting in the queue (on the lane board, or at a master for its
// workers) or in a lane's hand. The idle check leaves them aside, since revisits
// never end: a crawl with revisits goes on until stopped. Whoever moves a marked
// task keeps its count (a lane, the master handing it to a worker). Guarded by the
// engine's lock (Parts.Mu), like the rest of the front.
//
// A URL can be in a hand while its mark is not its own: its first fetch (or an
// earlier revisit) has stored its result and the scheduler found the page due, but
// the lane has not let the task go yet. So a mark says which hold of it is the
// marked task's (hand, from Taken), and only that hold's release counts or ends it:
// one going by URL took a waiting revisit's mark off, and the revisit was fetched
// as a first fetch and counted done twice.
type Marks struct {
	queued  map[string]*mark
	onBoard int
	inHand  int
	hands   uint64 // the last hold handed out (Taken)
}

// mark is one queued revisit; hand is the hold of the lane (or the master's
// hand-out) that has it, 0 while it waits in the queue.
type mark struct{ hand uint64 }

// Marks are the front's revisit marks.
func (f *Front) Marks() *Marks { return &f.marks }

// Mark marks url queued as a revisit; false when it is already.
func (m *Marks) Mark(url string) bool {
	if m.queued[url] != nil {
		return false
	}
	if m.queued == nil {
		m.queued = map[string]*mark{}
	}
	m.queued[url] = &mark{}
	return true
}

// Queued tells whether url is queued as a revisit.
func (m *Marks) Queued(url string) bool { return m.queued[url] != nil }

// Len is how many revisits are queued or being fetched.
func (m *Marks) Len() int { return len(m.queued) }

// Pending is how many marked tasks wait in the queue or are in a lane's hand.
func (m *Marks) Pending() int { return m.onBoard + m.inHand }

// drop takes the mark off a task that left the queue for good (withdrawn).
func (m *Marks) drop(url string) { delete(m.queued, url) }

// waiting is url's mark while its task waits in the queue; nil when url is not
// marked or its marked task is in a hand (a task of the URL moving now is another).
func (m *Marks) waiting(url string) *mark {
	if k := m.queued[url]; k != nil && k.hand == 0 {
		return k
	}
	return nil
}

// Placed counts a marked task joining the queue.
func (m *Marks) Placed(url string) {
	if m.waiting(url) != nil {
		m.onBoard++
	}
}

// Taken counts a marked task leaving the queue to be fetched. It returns the hold
// of the mark the taker has (its release passes it back: Released), 0 when the task
// taken is not the marked one (url is not marked, or its mark is in a hand already).
func (m *Marks) Taken(url string) (hand uint64) {
	k := m.waiting(url)
	if k == nil {
		return 0
	}
	m.onBoard--
	m.inHand++
	m.hands++
	k.hand = m.hands
	return k.hand
}

// holding is url's mark when hand holds it.
func (m *Marks) holding(url string, hand uint64) *mark {
	if k := m.queued[url]; k != nil && hand != 0 && k.hand == hand {
		return k
	}
	return nil
}

// Holds tells whether hand (from Taken) holds url's mark.
func (m *Marks) Holds(url string, hand uint64) bool { return m.holding(url, hand) != nil }

// PutBack counts the marked task hand holds going back to the queue (a lane's
// swap for an operator's task); the lane's release of it then counts nothing.
func (m *Marks) PutBack(url string, hand uint64) {
	if k := m.holding(url, hand); k != nil {
		k.hand = 0
		m.inHand--
		m.onBoard++
	}
}

// HandedBack counts a marked task in hand going back to the queue: the master's
// hand-out (one per URL at a time) coming back from its worker unfetched.
func (m *Marks) HandedBack(url string) {
	if k := m.queued[url]; k != nil && k.hand != 0 {
		k.hand = 0
		m.inHand--
		m.onBoard++
	}
}

// LeftQueue counts a marked task leaving the queue unfetched (withdrawn, held back).
func (m *Marks) LeftQueue(url string) {
	if m.waiting(url) != nil {
		m.onBoard--
	}
}

// Dropped takes the mark off a marked task that left the queue for good unfetched
// (another hand-out of its URL was out); a mark in a hand is another task's and stays.
func (m *Marks) Dropped(url string) {
	if m.waiting(url) != nil {
		m.onBoard--
		m.drop(url)
	}
}

// Released counts a task leaving a lane's hand; hand is its hold from Taken, and
// only the marked task's hold counts. ended says its fetch is over (not moved to
// another egress or deferred), so the page is no longer a queued revisit.
func (m *Marks) Released(url string, hand uint64, ended bool) {
	k := m.holding(url, hand)
	if k == nil {
		return
	}
	m.inHand--
	k.hand = 0
	if ended {
		delete(m.queued, url)
	}
}

// Ended drops the mark of a task whose fetch ended (the master's hand-out,
// reported); it reports whether the task was a revisit. A report while url's mark
// waits in the queue is another hand-out's (its first fetch, handed out before the
// revisit was queued), and leaves the mark.
func (m *Marks) Ended(url string) bool {
	k := m.queued[url]
	if k == nil || k.hand == 0 {
		return false
	}
	m.inHand--
	delete(m.queued, url)
	return true
}

// Deferred counts a marked task in hand set aside by the master's worker (a
// deferral, reported): out of hand and not waiting, as a lane's release of a
// deferred task leaves it (Released, not ended); the deferred URL, placed again,
// counts as waiting (Placed) and is fetched as the revisit it is.
func (m *Marks) Deferred(url string) {
	if k := m.queued[url]; k != nil && k.hand != 0 {
		k.hand = 0
		m.inHand--
	}
}

// DroppedInHand counts a task in a lane's hand whose mark its withdrawal took off
// (SteeredOut): it no longer counts as a revisit in hand.
func (m *Marks) DroppedInHand() { m.inHand-- }
