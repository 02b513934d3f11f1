package engine

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
// sites.Rounds; this file runs them over the queue and the store.

// siteTask says what a task is collected for: the declared site (nil for a plain
// crawl page), and the cost-table keyword (the social search keyword, "" for news).
func (e *Engine) siteTask(t frontier.Task) *config.SiteOptions {
	if t.Site == "" {
		return nil
	}
	return e.sites.Load().Named(t.Site)
}

// countCost adds a fetch of a site's task to the round's cost table (M3: site or
// site+keyword -> cost).
func (e *Engine) countCost(t frontier.Task, res *fetch.Result) {
	if res == nil || e.siteTask(t) == nil {
		return
	}
	e.round.CountCost(t.Site, t.Keyword, res.Duration)
}

// collect caches the results a stored page gives (sites.Rounds.Collect);
// published is the page's own date (its metadata), for a site's date window.
func (e *Engine) collect(t frontier.Task, res *fetch.Result, published, at time.Time) {
	if s := e.siteTask(t); s != nil {
		e.round.Collect(e.sites.Load(), s, t, res, published, at)
	}
}

// endRound closes the current round at end: its results go to the store in one
// batch grouped by site and site+keyword, and the cost table rows it touched are
// stamped with end and stored. It returns the groups written.
func (e *Engine) endRound(end time.Time) []sites.ResultGroup {
	groups, flat, costs := e.round.End(end)
	if groups == nil && costs == nil {
		return nil
	}
	e.st.SaveRound(end, flat, costs)
	e.logf(view.LevelInfo, 0, "", "round ended: %d results in %d site/keyword groups, %d cost rows", len(flat), len(groups), len(costs))
	return groups
}

// CostTable returns the cost table: the latest closed round of every site and
// site+keyword (M3).
func (e *Engine) CostTable() []revisit.CostRow { return e.round.CostRows() }

// startRounds starts the round loop once: at Start when sites are declared, or when
// the first site is added while the crawl runs (engine/steer). The first round's sources
// are queued by the caller.
func (e *Engine) startRounds() {
	if e.round.Begin(e.now()) {
		e.wg.Add(1)
		go e.runRounds()
	}
}

// nextRoundAt is when the next round starts, zero when the crawl has no rounds.
func (e *Engine) nextRoundAt() time.Time {
	if e.round == nil {
		return time.Time{}
	}
	return e.round.NextAt(e.opts.Rounds.Every)
}

// runRounds starts a round every rounds.every until the engine stops (the first
// round started with the crawl): the round that ran is closed, then the next one
// queues the sites' entry and search URLs again.
func (e *Engine) runRounds() {
	defer e.wg.Done()
	e.every(e.opts.Rounds.Every, func(now time.Time) {
		e.endRound(now)
		e.startRound(now)
	})
}

// startRound begins a round at now: the sites' entry and search URLs, interleaved
// by host, are queued: new ones through the store, known ones back to the queue as
// refetches.
func (e *Engine) startRound(now time.Time) {
	round, items := e.round.Next(now, e.sites.Load())
	e.mu.Lock()
	e.budget.NewRound(now) // round budgets start afresh
	e.mu.Unlock()
	fresh, again, err := e.splitSources(items)
	if err != nil {
		e.logf(view.LevelError, 0, "", "round %d: %v", round, err)
		return
	}
	e.fr.Submit(fresh, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	n, err := e.fr.Requeue(again, now, true) // sources are fetched every round, whatever their window
	if err != nil {
		e.logf(view.LevelError, 0, "", "round: %v", err)
	}
	e.logf(view.LevelInfo, 0, "", "round %d started: %d new and %d known entry/search URLs queued", round, len(fresh), n)
}

// splitSources sorts entry and search URLs by what the store knows of them: new ones
// (records to insert) and finished ones (to queue again); those queued or in
// progress are left where they are.
func (e *Engine) splitSources(items []revisit.Item) (fresh []store.URL, again []string, err error) {
	urls := make([]string, len(items))
	for i, it := range items {
		urls[i] = it.URL
	}
	rows, err := e.st.URLStates(urls)
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
			r := e.fr.LinkRecord(it.URL, 0, 0)
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
func (e *Engine) refetchResults(known []string, now time.Time) {
	book := e.sites.Load()
	results := make([]string, 0, len(known)) // known is the caller's (discovery reads it too)
	for _, u := range known {
		if !book.IsSource(u) {
			results = append(results, u)
		}
	}
	if known = results; len(known) == 0 {
		return
	}
	states, err := e.st.Revisits(known)
	if err != nil {
		e.logf(view.LevelWarn, 0, "", "round: URL index: %v", err)
		return
	}
	index := make(sites.URLIndex, len(states))
	for _, s := range states {
		index[s.URL] = s.First
	}
	list := e.round.Known(known, index, e.rv.Classes, e.rv.Windows, now)
	if len(list) == 0 {
		return
	}
	if _, err := e.fr.Requeue(list, now, true); err != nil {
		e.logf(view.LevelWarn, 0, "", "round: %v", err)
	}
}
