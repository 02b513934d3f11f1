package revisit

import (
	"fmt"
	"time"
)

// Entry is one page in the revisit order: its URL and when it is due.
type Entry struct {
	URL  string
	Next time.Time
}

// Store holds every page's next due time, ordered by it (M2: "stored with an index on
// next; must stay fast with millions of pages"). The engine backs it with SQLite;
// MemStore serves tests and the bench.
type Store interface {
	// Due returns the first limit entries by ascending next (ties in URL order).
	Due(limit int) ([]Entry, error)
	// Park sets next to park for each of due whose next is still the Next that Due
	// read, and returns their URLs. A page whose next was set anew since (its fetch
	// stored its next due time, the operator rescheduled it) keeps that time and is
	// left out.
	Park(due []Entry, park time.Time) ([]string, error)
}

// Scheduler defaults.
const (
	DefaultBatch  = 5000        // m: the seed suggests 1,000..10,000 pages per tick
	DefaultPeriod = time.Minute // how often the engine should call Tick
)

// Scheduler is seed 001's periodic requeue (step 3): each tick takes the first m pages
// by ascending next, and every one already due gets next = Never, so that it is not
// picked again while it waits in the crawl queue, and is handed back for requeueing.
// Tracker.Observe sets its real next once it has been fetched again.
type Scheduler struct {
	store Store
	batch int
}

// NewScheduler returns a Scheduler over store taking batch pages per tick (0 means
// DefaultBatch).
func NewScheduler(store Store, batch int) (*Scheduler, error) {
	if store == nil {
		return nil, fmt.Errorf("revisit: scheduler needs a store")
	}
	if batch == 0 {
		batch = DefaultBatch
	}
	if batch < 0 {
		return nil, fmt.Errorf("revisit: scheduler batch %d: must be positive", batch)
	}
	return &Scheduler{store: store, batch: batch}, nil
}

// Tick requeues the pages due at now, at most one batch of them, in ascending next
// order. A page returned by Tick is not returned again until its next is set anew.
//
// Only the pages still as Due read them are parked and returned: a fetch of a page
// (a first fetch, a hint's or the operator's refetch) may end between the read and
// the park and store the page's next due time, and parked, the page lost that time;
// returned, it was fetched again at once.
func (s *Scheduler) Tick(now time.Time) (requeue []string, err error) {
	due, err := s.Due(now)
	if err != nil || len(due) == 0 {
		return nil, err
	}
	requeue, err = s.store.Park(due, Never)
	if err != nil {
		return nil, fmt.Errorf("revisit: park requeued pages: %w", err)
	}
	return requeue, nil
}

// Due is Tick without its park: the pages due at now, at most one batch of them,
// in ascending next order, each with the next it was read at. A caller whose
// queue is in the store parks the pages it queues in the write that queues them
// (a park committed apart from it, and a kill between the two, left a page parked
// and not queued: never revisited again), parking each only if its next is still
// the one read. Until parked, a page is returned again by the next call.
func (s *Scheduler) Due(now time.Time) ([]Entry, error) {
	entries, err := s.store.Due(s.batch)
	if err != nil {
		return nil, fmt.Errorf("revisit: due pages: %w", err)
	}
	due := entries[:0]
	for _, e := range entries {
		if e.Next.After(now) {
			break // ascending: nothing further is due
		}
		due = append(due, e)
	}
	return due, nil
}
