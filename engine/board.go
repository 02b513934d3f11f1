package engine

// runRevisit is the revisit scheduler (M2, seed 001 step 3): every revisit.every it
// takes the first m pages by ascending next and puts those due back in the crawl
// queue, until the engine stops.
func (e *Engine) runRevisit() {
	defer e.wg.Done()
	e.every(e.opts.Revisit.Every, e.fr.RevisitTick)
}

// RevisitNow implements Control: the page goes back in the crawl queue at once,
// whatever its next due time and its class window (`:revisit now URL`).
func (e *Engine) RevisitNow(raw string) error { return e.fr.RevisitNow(raw) }

// discoveryIdle reports whether the discovery crawl has run dry: nothing queued, no
// lane at work, no link insert outstanding, revisit tasks aside (they never end: a
// crawl with revisits goes on until stopped). Caller holds e.mu.
func (e *Engine) discoveryIdle() bool {
	if e.fr.Busy() { // a write on its way, or a withdrawn source not ended yet
		return false
	}
	_, inHand := e.crew.Counts()
	if revisits := e.fr.Marks().Pending(); revisits > 0 {
		return e.queuedLen()+inHand == revisits
	}
	return e.lanes.Board.Len() == 0 && e.queuedLen() == 0 && inHand == 0
}

// queuedLen is how many queued tasks wait in memory: on the lane board, or at the
// master for its workers (M4). Caller holds e.mu.
func (e *Engine) queuedLen() int {
	waiting, _ := e.crew.Counts()
	return waiting
}
