package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// runRevisit is the revisit scheduler (M2, seed 001 step 3): every revisit.every it
// takes the first m pages by ascending next and puts those due back in the crawl
// queue, until the engine stops.
func (e *Engine) runRevisit() {
	defer e.wg.Done()
	e.every(e.opts.Revisit.Every, e.revisitTick)
}

// revisitTick runs one scheduler tick.
func (e *Engine) revisitTick(now time.Time) {
	urls, err := e.rv.Tick(now)
	if err != nil {
		e.logf(LevelError, 0, "", "revisit: %v", err)
		return
	}
	if len(urls) == 0 {
		return
	}
	n, err := e.requeue(urls, now, false)
	if err != nil {
		e.logf(LevelError, 0, "", "revisit: %v", err)
	}
	if n > 0 {
		e.logf(LevelInfo, 0, "", "revisit: %d due pages back in the queue", n)
	}
}

// requeue puts stored pages back in the crawl queue as revisits (M2). They are in
// the store already (processed), so they bypass dedupe and the insert path: their
// state goes back to unprocessed and the task, rebuilt from the store with its
// original parent hash and depth so that M1 adjacency still holds, is placed on the
// board directly. Pages whose class window has closed are left parked for good
// unless force (the operator's :revisit now). It returns how many were requeued.
//
// The pages come parked (next = Never); any that cannot be queued now for a passing
// reason (a read error, the engine stopping) are made due again, never left parked.
func (e *Engine) requeue(urls []string, now time.Time, force bool) (int, error) {
	states, err := e.st.Revisits(urls)
	var rows []store.URL
	if err == nil {
		rows, err = e.st.URLStates(urls)
	}
	if err != nil {
		e.st.SetRevisitNext(urls, now)
		return 0, err
	}
	first := make(map[string]time.Time, len(states))
	for _, s := range states {
		first[s.URL] = s.First
	}
	var tasks []frontier.Task
	for _, r := range rows {
		f, ok := first[r.URL]
		if !ok && !(force && r.ErrKind == SkipSteeredOut) { // a source withdrawn unfetched, added back
			continue
		}
		if !force && !e.rv.Windows.Active(e.classOf(r.Host), f, now) && !e.disc.IsSource(r.URL) {
			continue // M2/M3: past its class window, never revisited again
		}
		if r.State != store.Processed && r.State != store.Failed {
			continue // already in the crawl queue (e.g. resumed after a restart)
		}
		t := front.TaskOf(r)
		t.Attempts = 0
		tasks = append(tasks, t)
	}
	// Store writes never happen under e.mu (the writer's callbacks take it), so the
	// tasks are claimed, marked unprocessed, then placed.
	e.mu.Lock()
	var claimed []frontier.Task
	var later []string
	for _, t := range tasks {
		switch {
		case e.state != StateRunning:
			later = append(later, t.URL)
		case !e.rv.queued[t.URL]:
			e.rv.queued[t.URL] = true
			claimed = append(claimed, t)
		}
	}
	e.mu.Unlock()
	if len(later) > 0 {
		e.st.SetRevisitNext(later, now) // due again when the crawl runs next
	}
	for _, t := range claimed {
		e.st.SetState(t.URL, store.Unprocessed, 0, "") // a stop before the fetch resumes it
	}
	e.mu.Lock()
	n := 0
	for _, t := range claimed {
		if e.state == StateRunning { // else unprocessed in the store: the next run resumes it
			e.fr.Place(t)
			n++
		}
	}
	e.mu.Unlock()
	e.rv.Requeued.Add(int64(n))
	e.flushDeferred() // a disabled host's revisits were deferred, never dropped (M3)
	return n, nil
}

// RevisitNow implements Control: the page goes back in the crawl queue at once,
// whatever its next due time and its class window (`:revisit now URL`).
func (e *Engine) RevisitNow(raw string) error {
	u, err := frontier.Normalize(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("revisit now: %q: %w", raw, err)
	}
	e.mu.Lock()
	running, queued := e.state == StateRunning, e.rv.queued[u]
	e.mu.Unlock()
	switch {
	case !running:
		return errors.New("revisit now: the crawl is not running")
	case queued:
		return fmt.Errorf("revisit now: %s is already queued for a revisit", u)
	}
	// Read what was written so far: a page fetched a moment ago is still on its way to
	// the store (writes are batched).
	if err := e.st.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
		e.logf(LevelWarn, 0, "", "revisit now: store: %v", err)
	}
	row, err := e.st.URLState(u)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("revisit now: %s is not in this crawl", u)
	} else if err != nil {
		return fmt.Errorf("revisit now: %w", err)
	}
	if row.State != store.Processed && row.State != store.Failed {
		return fmt.Errorf("revisit now: %s is %s: it is in the crawl queue already", u, row.State)
	}
	if _, err := e.st.Revisit(u); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("revisit now: %s has no stored page to revisit", u)
	}
	e.st.SetRevisitNext([]string{u}, revisit.Never)
	n, err := e.requeue([]string{u}, e.now(), true)
	if err != nil {
		return fmt.Errorf("revisit now: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("revisit now: %s could not be queued", u)
	}
	e.logf(LevelInfo, 0, hostOf(u), "revisit now: %s queued by operator", u)
	return nil
}

// boardAdd places a task on the board by the M1 rule, counting revisit tasks apart
// (Done ignores them). Caller holds e.mu.
func (e *Engine) boardAdd(t frontier.Task) {
	if e.rv.queued[t.URL] {
		e.rv.onBoard++
	}
	if e.fr.TakeUrgent(t.URL) { // steering: the operator's new source is the lane's next fetch
		t.Urgent = true
	}
	if !t.Urgent && !t.Ahead && !e.rv.queued[t.URL] && e.disc.TakeAhead(t.URL) {
		t.Ahead = true // an article a read just listed: before the lane's due reads
	}
	e.crew.queue(t)
}

// addUrgent puts an operator's task (a keyword or site added live) at the
// head of its lane's queue and tells the lane, so that a lane waiting with an
// ordinary task in hand trades it for this one (see swapForUrgent). Caller holds e.mu.
func (e *Engine) addUrgent(t frontier.Task) {
	p := e.board.AddFirst(t)
	if p.Opened {
		e.startLane(p.Lane)
		return
	}
	if p.Lane == nil {
		return
	}
	e.run.Kick(p.Lane.ID)
}

// swapForUrgent gives the lane's task in hand back to the head of its queue, behind
// the operator's tasks, when one of those is waiting there and t is not one itself:
// the lane then takes the operator's task without pausing again (it has served its
// pause before taking t). A task withdrawn meanwhile (:keyword rm, :site rm) is not
// given back but dropped: its end as steered_out is written by Front.FlushSteeredOut.
// Caller holds e.mu; the caller still releases t (lanePort.Release(t, false)).
func (e *Engine) swapForUrgent(ls *lanes.Slot, t frontier.Task) (swapped, dropped bool) {
	if ls.Urgent || !e.board.UrgentAhead(ls.Lane) {
		return false, false
	}
	revisiting := e.rv.queued[t.URL]
	if e.fr.SteeredOut(t) { // it is no longer a queued revisit: Release will not count it
		if revisiting {
			e.rv.inHand--
		}
		return true, true
	}
	e.board.PutBack(ls.Lane, t)
	if revisiting {
		e.rv.onBoard++
	}
	return true, false
}

// offBoard uncounts tasks the board gave back (evicted, dropped for a disabled
// host); whoever took them places or defers them again. Caller holds e.mu.
func (e *Engine) offBoard(tasks []frontier.Task) []frontier.Task {
	for _, t := range tasks {
		if e.rv.queued[t.URL] {
			e.rv.onBoard--
		}
	}
	return tasks
}

// discoveryIdle reports whether the discovery crawl has run dry: nothing queued, no
// lane at work, no link insert outstanding, revisit tasks aside (they never end: a
// crawl with revisits goes on until stopped). Caller holds e.mu.
func (e *Engine) discoveryIdle() bool {
	if e.fr.Busy() { // a write on its way, or a withdrawn source not ended yet
		return false
	}
	_, inHand := e.crew.counts()
	if revisits := e.rv.onBoard + e.rv.inHand; revisits > 0 {
		return e.queuedLen()+inHand == revisits
	}
	return e.board.Len() == 0 && e.queuedLen() == 0 && inHand == 0
}

// queuedLen is how many queued tasks wait in memory: on the lane board, or at the
// master for its workers (M4). Caller holds e.mu.
func (e *Engine) queuedLen() int {
	waiting, _ := e.crew.counts()
	return waiting
}
