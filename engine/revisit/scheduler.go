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
	// SetNext sets next for each of urls.
	SetNext(urls []string, next time.Time) error
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
func (s *Scheduler) Tick(now time.Time) (requeue []string, err error) {
	entries, err := s.store.Due(s.batch)
	if err != nil {
		return nil, fmt.Errorf("revisit: due pages: %w", err)
	}
	for _, e := range entries {
		if e.Next.After(now) {
			break // ascending: nothing further is due
		}
		requeue = append(requeue, e.URL)
	}
	if len(requeue) == 0 {
		return nil, nil
	}
	if err := s.store.SetNext(requeue, Never); err != nil {
		return nil, fmt.Errorf("revisit: park requeued pages: %w", err)
	}
	return requeue, nil
}
