package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// The crawl rounds over the declared sites (M3, seed 003) keep their state in
// sites.Rounds; the front runs them over the queue and the store. The engine's
// clock calls StartRound and EndRound every rounds.every.

// siteTask is the declared site a task is collected for; nil for a plain crawl page.
func (f *Front) siteTask(t frontier.Task) *config.SiteOptions {
	if t.Site == "" {
		return nil
	}
	return f.Sites.Load().Named(t.Site)
}

// countCost adds a fetch of a site's task to the round's cost table (M3: site or
// site+keyword -> cost).
func (f *Front) countCost(t frontier.Task, res *fetch.Result) {
	if res == nil || f.siteTask(t) == nil {
		return
	}
	f.Rounds.CountCost(t.Site, t.Keyword, res.Duration)
}

// collect caches the results a stored page gives (sites.Rounds.Collect);
// published is the page's own date (its metadata), for a site's date window.
func (f *Front) collect(t frontier.Task, res *fetch.Result, published, at time.Time) {
	if s := f.siteTask(t); s != nil {
		f.Rounds.Collect(f.Sites.Load(), s, t, res, published, at)
	}
}

// NextRoundAt is when the next round starts, zero when the crawl has no rounds.
func (f *Front) NextRoundAt() time.Time { return f.Rounds.NextAt(f.Opts.Rounds.Every) }

// EndRound closes the current round at end: its results go to the store in one
// batch grouped by site and site+keyword, and the cost table rows it touched are
// stamped with end and stored. It returns the groups written.
func (f *Front) EndRound(end time.Time) []sites.ResultGroup {
	groups, flat, costs := f.Rounds.End(end)
	if groups == nil && costs == nil {
		return nil
	}
	f.Store.SaveRound(end, flat, costs)
	f.crawl.Logf(view.LevelInfo, "", "round ended: %d results in %d site/keyword groups, %d cost rows", len(flat), len(groups), len(costs))
	return groups
}

// StartRound begins a round at now: the sites' entry and search URLs, interleaved
// by host, are queued: new ones through the store, known ones back to the queue as
// refetches.
func (f *Front) StartRound(now time.Time) {
	round, items := f.Rounds.Next(now, f.Sites.Load())
	f.Mu.Lock()
	f.Budgets.NewRound(now) // round budgets start afresh
	f.Mu.Unlock()
	fresh, again, err := f.SplitSources(items)
	if err != nil {
		f.crawl.Logf(view.LevelError, "", "round %d: %v", round, err)
		return
	}
	f.Submit(fresh, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
	n, err := f.Requeue(again, now) // sources are fetched every round, whatever their window
	if err != nil {
		f.crawl.Logf(view.LevelError, "", "round: %v", err)
	}
	f.crawl.Logf(view.LevelInfo, "", "round %d started: %d new and %d known entry/search URLs queued", round, len(fresh), n)
}

// SplitSources sorts entry and search URLs by what the store knows of them: new ones
// (records to insert) and finished ones (to queue again); those queued or in
// progress are left where they are.
func (f *Front) SplitSources(items []revisit.Item) (fresh []store.URL, again []string, err error) {
	urls := make([]string, len(items))
	for i, it := range items {
		urls[i] = it.URL
	}
	rows, err := f.Store.URLStates(urls)
	if err != nil {
		return nil, nil, err
	}
	state := make(map[string]store.State, len(rows))
	for _, r := range rows {
		state[r.URL] = r.State
	}
	for _, it := range items {
		st, known := state[it.URL]
		switch {
		case !known:
			r := f.LinkRecord(it.URL, 0, 0)
			r.Site, r.Keyword = it.Site, it.Keyword
			fresh = append(fresh, r)
		case st == store.Processed || st == store.Failed:
			again = append(again, it.URL)
		}
	}
	return fresh, again, nil
}

// refetchResults requeues the known links of an entry or search page that are still
// inside their class window (M3); the others are dropped for this round.
//
// A link that is itself a source of the rounds (a search page's "next page" or
// pagination bar, an entry page linking another) is left to the round, which
// queues every source once. Requeued here once fetched, a search page was fetched
// again in the same round after each page of its query linking to it was: a social
// site's search quota spent twice over, whenever pages came out of order (from the
// second round on, Interleave; on a master, after a keyword shard moved between
// workers); and a `:keyword rm` meanwhile withdrew those queued second fetches,
// counted steered_out as searches never requested although they had been.
func (f *Front) refetchResults(known []string, now time.Time) {
	book := f.Sites.Load()
	results := make([]string, 0, len(known)) // known is the caller's (discovery reads it too)
	for _, u := range known {
		if !book.IsSource(u) {
			results = append(results, u)
		}
	}
	if known = results; len(known) == 0 {
		return
	}
	states, err := f.Store.Revisits(known)
	if err != nil {
		f.crawl.Logf(view.LevelWarn, "", "round: URL index: %v", err)
		return
	}
	index := make(sites.URLIndex, len(states))
	for _, s := range states {
		index[s.URL] = s.First
	}
	list := f.Rounds.Known(known, index, f.Revisit.Classes, f.Revisit.Windows, now)
	if len(list) == 0 {
		return
	}
	if _, err := f.Requeue(list, now); err != nil {
		f.crawl.Logf(view.LevelWarn, "", "round: %v", err)
	}
}
