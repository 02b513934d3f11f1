package front

import (
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// What live steering (engine/steer) asks of the front: new seeds and sources
// queued as their lane's next fetch, budgets set, the store asked which URLs have
// not ended.

// QueueSources queues entry and search URLs now (M3): new ones through the store,
// known ones back to the queue. It returns how many went.
func (f *Front) QueueSources(items []revisit.Item, now time.Time) int {
	// No Flush first: a source whose insert is still in the writer's batch reads as
	// new here, and the store's unique index ignores it (INSERT OR IGNORE); waiting
	// for the batch would only delay the operator's new search. The new ones go on
	// the board at once (PlaceEarly).
	early := !f.Opts.SteerBaseline
	urls := make([]string, len(items))
	for i, it := range items {
		urls[i] = it.URL
	}
	if early {
		f.ReserveEarly(urls)
	}
	fresh, again, err := f.SplitSources(items)
	if err != nil {
		if early {
			f.DropEarly(urls)
		}
		f.crawl.Logf(view.LevelError, "", "steering: %v", err)
		return 0
	}
	if early {
		fresh = f.SettleEarly(urls, fresh)
	}
	seen := make([]string, len(fresh))
	for i, r := range fresh {
		seen[i] = r.URL
	}
	f.Mu.Lock()
	for _, it := range items {
		f.MarkUrgent(it.URL)
	}
	f.Mu.Unlock()
	f.Dedupe.CheckURLs(seen)
	f.Submit(fresh, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
	if early {
		f.PlaceEarly(fresh)
	}
	n, err := f.Requeue(again, now)
	if err != nil {
		f.crawl.Logf(view.LevelWarn, "", "steering: %v", err)
	}
	return len(fresh) + n
}

// QueueSeed queues an operator's new seed (normalised, checked) as its lane's next
// fetch, unless the crawl has it already.
func (f *Front) QueueSeed(n string) error {
	early := !f.Opts.SteerBaseline // on the board at once, as a new search (ReserveEarly)
	if early {
		f.ReserveEarly([]string{n})
	}
	if err := f.Store.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
		f.DropEarly([]string{n})
		return fmt.Errorf("seed add: store: %v", err)
	}
	if row, err := f.Store.URLState(n); err == nil {
		f.DropEarly([]string{n})
		return fmt.Errorf("seed add: %s is already in this crawl (%s); nothing queued", n, row.State)
	} else if !errors.Is(err, store.ErrNotFound) {
		f.DropEarly([]string{n})
		return fmt.Errorf("seed add: store: %v", err)
	}
	f.Scope.AddSeed(n)
	fresh := []store.URL{f.LinkRecord(n, 0, 0)}
	if early {
		fresh = f.SettleEarly([]string{n}, fresh) // empty: a link to it was queued meanwhile
	}
	f.Mu.Lock()
	f.MarkUrgent(n) // the operator's seed is its lane's next fetch, as a new search is
	f.Mu.Unlock()
	f.Dedupe.CheckURLs([]string{n})
	f.Submit(fresh, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
	if early {
		f.PlaceEarly(fresh)
	}
	return nil
}

// Unended reads the store: a URL it does not have, or has ended (failed, or
// withdrawn by steering), is left out.
func (f *Front) Unended(urls []string) ([]string, error) {
	rows, err := f.Store.URLStates(urls)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range rows {
		if row.State == store.Failed || row.State == store.Processed && row.ErrKind == SkipSteeredOut {
			continue // ended: nothing brings it back but its source added back
		}
		out = append(out, row.URL)
	}
	return out, nil
}

// SetBudget sets one budget (Budgets). Raising one brings back at once the URLs it
// may have held: this run's, and for a total budget those earlier runs parked (in
// the store only). Lowering one while the crawl runs (live) recalls what the crew's
// queues hold of it, handed out before, to count it again.
func (f *Front) SetBudget(key BudgetKey, n int, live bool) (back, recalled int, err error) {
	f.Mu.Lock()
	readTotals := live && key.Total && n > 0 && !f.Budgets.TotalsRead()
	f.Mu.Unlock()
	if readTotals {
		// The first total budget of this run: it counts what earlier runs fetched too
		// (at start, RestoreSiteCounts reads them after the replay).
		if err := f.ReadBudgetTotals(); err != nil {
			return 0, 0, fmt.Errorf("budget: earlier runs' page counts unreadable: %v; budget unchanged", err)
		}
	}
	f.Mu.Lock()
	old := f.Budgets.Set(key, n)
	lift := n == 0 || old > 0 && n > old
	var held []string
	if lift {
		held = f.Budgets.Unpark(key)
	}
	f.Mu.Unlock()
	f.crawl.FlushDeferred() // their deferral is written before it is undone
	if live && !lift {
		recalled = f.crawl.Recall(key.Holds) // what queues hold, handed out before, is counted again
	}
	if lift && live && key.Total {
		// A total budget's URLs stay parked across restarts: those of earlier runs
		// are in the store only.
		earlier, err := f.ParkedInStore(key)
		if err != nil {
			f.crawl.Logf(view.LevelWarn, "", "budget: URLs parked by earlier runs not read (%v): they come back at their deferral's end", err)
		}
		held = AppendNew(held, earlier)
	}
	now := f.crawl.Now()
	for _, u := range held {
		f.Store.Defer(u, now) // due now: the deferrals' upkeep brings it back
	}
	return len(held), recalled, nil
}
