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
}

// Scheduler defaults.
const (
	DefaultBatch  = 5000        // m: the seed suggests 1,000..10,000 pages per tick
	DefaultPeriod = time.Minute // how often the engine should call Due
)

// Scheduler is seed 001's periodic requeue (step 3): each tick reads the first m
// pages by ascending next and hands back those already due. The caller parks each
// page it queues (next = Never) in the write that queues it, so that it is not picked
// again while it waits in the crawl queue; Tracker.Observe sets its real next once it
// has been fetched again.
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

// Due is one tick's read: the pages due at now, at most one batch of them, in
// ascending next order, each with the next it was read at. It parks nothing: a
// caller whose queue is in the store parks the pages it queues in the write that
// queues them (a park committed apart from it, and a kill between the two, left a
// page parked and not queued: never revisited again), parking each only if its next
// is still the one read. Until parked, a page is returned again by the next call.
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
