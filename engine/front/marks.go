package front

// Marks are the revisits put back in the queue whose fetch has not ended (M2), and
// where they are: waiting in the queue (on the lane board, or at a master for its
// workers) or in a lane's hand. The idle check leaves them aside, since revisits
// never end: a crawl with revisits goes on until stopped. Whoever moves a marked
// task keeps its count (a lane, the master handing it to a worker). Guarded by the
// engine's lock (Parts.Mu), like the rest of the front.
type Marks struct {
	queued  map[string]bool
	onBoard int
	inHand  int
}

// Marks are the front's revisit marks.
func (f *Front) Marks() *Marks { return &f.marks }

// Mark marks url queued as a revisit; false when it is already.
func (m *Marks) Mark(url string) bool {
	if m.queued[url] {
		return false
	}
	if m.queued == nil {
		m.queued = map[string]bool{}
	}
	m.queued[url] = true
	return true
}

// Queued tells whether url is queued as a revisit.
func (m *Marks) Queued(url string) bool { return m.queued[url] }

// Len is how many revisits are queued or being fetched.
func (m *Marks) Len() int { return len(m.queued) }

// Pending is how many marked tasks wait in the queue or are in a lane's hand.
func (m *Marks) Pending() int { return m.onBoard + m.inHand }

// drop takes the mark off a task that left the queue for good (withdrawn).
func (m *Marks) drop(url string) { delete(m.queued, url) }

// Placed counts a marked task joining the queue.
func (m *Marks) Placed(url string) {
	if m.queued[url] {
		m.onBoard++
	}
}

// Taken counts a marked task leaving the queue to be fetched.
func (m *Marks) Taken(url string) {
	if m.queued[url] {
		m.onBoard--
		m.inHand++
	}
}

// HandedBack counts a marked task in hand going back to the queue.
func (m *Marks) HandedBack(url string) {
	if m.queued[url] {
		m.inHand--
		m.onBoard++
	}
}

// LeftQueue counts a marked task leaving the queue unfetched (withdrawn, held back).
func (m *Marks) LeftQueue(url string) {
	if m.queued[url] {
		m.onBoard--
	}
}

// Released counts a marked task leaving a lane's hand; ended says its fetch is over
// (not moved to another egress or deferred), so the page is no longer a queued
// revisit.
func (m *Marks) Released(url string, ended bool) {
	if m.queued[url] {
		m.inHand--
		if ended {
			delete(m.queued, url)
		}
	}
}

// Ended drops the mark of a task whose fetch ended; it reports whether the task
// was a revisit.
func (m *Marks) Ended(url string) bool {
	if !m.queued[url] {
		return false
	}
	m.inHand--
	delete(m.queued, url)
	return true
}

// DroppedInHand counts a task in a lane's hand whose mark its withdrawal took off
// (SteeredOut): it no longer counts as a revisit in hand.
func (m *Marks) DroppedInHand() { m.inHand-- }
