package engine

import (
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// SeedFeed queues a seed list too long to hold at once: Options.Seeds takes its
// head, and the rest is fed batch by batch once the crawl has started, so memory
// holds one batch, not the list. While a feed is open the crawl is not idle
// (--until-idle waits for the whole list).
type SeedFeed struct {
	e      *Engine
	once   sync.Once
	queued int
}

// OpenSeedFeed opens a feed; call it before Start, so a crawl whose head is done at
// once is not called idle before the rest comes. Close it when the list ends.
func (e *Engine) OpenSeedFeed() *SeedFeed {
	e.mu.Lock()
	e.fr.AddOutstanding(1) // as an insert on its way: checkIdle waits for it
	e.mu.Unlock()
	return &SeedFeed{e: e}
}

// Queue queues a batch of seeds as Start queues Options.Seeds (a malformed one is
// logged and skipped) and returns once the store has taken them in: a feeder that
// waits for Queue holds one batch at a time.
func (f *SeedFeed) Queue(seeds []string) error {
	if len(seeds) == 0 {
		return nil
	}
	if err := f.e.ctx.Err(); err != nil {
		return err // stopping: the rest of the list is not queued
	}
	if err := f.e.front.FeedSeeds(seeds); err != nil {
		return err
	}
	f.queued += len(seeds)
	return nil
}

// Close ends the feed; err, if not nil, is why the list was not read to its end, and
// goes to the log with the count queued.
func (f *SeedFeed) Close(err error) {
	f.once.Do(func() {
		e := f.e
		switch {
		case err != nil && e.ctx.Err() == nil:
			e.logf(view.LevelWarn, 0, "", "seed list: stopped after %d more seeds: %v", f.queued, err)
		case f.queued > 0:
			e.logf(view.LevelInfo, 0, "", "seed list: %d more seeds queued after the start", f.queued)
		}
		e.mu.Lock()
		e.fr.AddOutstanding(-1)
		e.checkIdle()
		e.mu.Unlock()
	})
}
