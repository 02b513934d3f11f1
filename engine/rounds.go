package engine

import (
	"math/rand"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// Crawl rounds over the declared sites (M3, seed 003). Each round queues every
// site's entry and search URLs again; the links found on them go through the URL
// index (known URLs are refetched only while inside their class window) and are
// interleaved by host; the pages collected for a site (news pages holding a keyword,
// social search pages and the posts they list) are cached and written in one batch
// at the round's end, grouped by site and site+keyword, and the cost table is
// updated. Plain seeds keep the discovery crawl of the engine core.

// Result page types (store.Result.Kind).
const (
	ResultNews   = "news"   // a news page whose main text holds the keyword
	ResultSearch = "search" // a social site's search result page
	ResultPost   = "post"   // a page listed on a social search result page
)

// roundRuntime is the state of the current round.
type roundRuntime struct {
	mu      sync.Mutex
	n       int       // rounds started
	running bool      // the round loop runs (startRounds)
	started time.Time // start of the current round
	results []store.Result
	costs   *revisit.CostTable
	rng     *rand.Rand // Interleave's picks (guarded by mu)
}

// newRoundRuntime returns the round state with the cost table an earlier run left.
func newRoundRuntime(st *store.Store) *roundRuntime {
	r := &roundRuntime{costs: revisit.NewCostTable(), rng: rand.New(rand.NewSource(time.Now().UnixNano()))}
	if st == nil {
		return r // a worker: the master keeps the cost table
	}
	if rows, err := st.Costs(); err == nil {
		restored := make([]revisit.CostRow, len(rows))
		for i, c := range rows {
			restored[i] = revisit.CostRow{CostKey: revisit.CostKey{Site: c.Site, Keyword: c.Keyword},
				Cost: c.Cost, Pages: c.Pages, Round: c.Round}
		}
		r.costs.Restore(restored)
	}
	return r
}

// siteTask says what a task is collected for: the declared site (nil for a plain
// crawl page), and the cost-table keyword (the social search keyword, "" for news).
func (e *Engine) siteTask(t frontier.Task) *SiteOptions {
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
	e.round.costs.Add(t.Site, t.Keyword, res.Duration)
}

// collect caches the results a stored page gives (M3): a social site's page found
// for a keyword is a result for it (search page or post); a news site's page is a
// result for each keyword its main text contains, and otherwise only feeds link
// discovery.
func (e *Engine) collect(t frontier.Task, res *fetch.Result, at time.Time) {
	s := e.siteTask(t)
	if s == nil {
		return
	}
	r := store.Result{URL: t.URL, Site: s.Name, Host: t.Host, Cost: res.Duration, FetchedAt: at}
	var out []store.Result
	switch {
	case s.Kind == SiteSocial && t.Keyword != "":
		r.Keyword, r.Kind = t.Keyword, ResultPost
		if t.Depth == 0 {
			r.Kind = ResultSearch
		}
		out = append(out, r)
	case s.Kind == SiteNews:
		text, ok := page.PageText(res.Body, res.Header.Get("Content-Type"))
		if !ok {
			return
		}
		for _, kw := range e.sites.Load().Matches(s.Name, text) {
			r.Keyword, r.Kind = kw, ResultNews
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return
	}
	e.round.mu.Lock()
	e.round.results = append(e.round.results, out...)
	e.round.mu.Unlock()
}

// inherit gives a link found on a social search page its site and keyword (M3: the
// posts a search lists are collected for the keyword searched).
func inherit(parent frontier.Task, link *store.URL) {
	if parent.Keyword != "" && parent.Depth == 0 && frontier.Site(link.Host) == frontier.Site(parent.Host) {
		link.Site, link.Keyword = parent.Site, parent.Keyword
	}
}

// ResultGroup is the results of one site (news) or site+keyword (social) in a
// round's batch.
type ResultGroup struct {
	Site    string
	Keyword string
	Results []store.Result
}

// groupResults groups a round's results by site, then keyword (the order they are
// stored in), keeping each group's pages in collection order.
func groupResults(rs []store.Result) []ResultGroup {
	sorted := slices.Clone(rs)
	slices.SortStableFunc(sorted, func(a, b store.Result) int {
		if c := strings.Compare(a.Site, b.Site); c != 0 {
			return c
		}
		return strings.Compare(a.Keyword, b.Keyword)
	})
	var out []ResultGroup
	for _, r := range sorted {
		if n := len(out); n > 0 && out[n-1].Site == r.Site && out[n-1].Keyword == r.Keyword {
			out[n-1].Results = append(out[n-1].Results, r)
			continue
		}
		out = append(out, ResultGroup{Site: r.Site, Keyword: r.Keyword, Results: []store.Result{r}})
	}
	return out
}

// endRound closes the current round at end: its results go to the store in one
// batch grouped by site and site+keyword, and the cost table rows it touched are
// stamped with end and stored. It returns the groups written.
func (e *Engine) endRound(end time.Time) []ResultGroup {
	e.round.mu.Lock()
	rs := e.round.results
	e.round.results = nil
	e.round.mu.Unlock()
	rows := e.round.costs.EndRound(end)
	if len(rs) == 0 && len(rows) == 0 {
		return nil
	}
	groups := groupResults(rs)
	flat := make([]store.Result, 0, len(rs))
	for _, g := range groups {
		flat = append(flat, g.Results...)
	}
	costs := make([]store.Cost, len(rows))
	for i, r := range rows {
		costs[i] = store.Cost{Site: r.Site, Keyword: r.Keyword, Cost: r.Cost, Pages: r.Pages, Round: r.Round}
	}
	e.st.SaveRound(end, flat, costs)
	e.logf(LevelInfo, 0, "", "round ended: %d results in %d site/keyword groups, %d cost rows", len(flat), len(groups), len(costs))
	return groups
}

// CostTable returns the cost table: the latest closed round of every site and
// site+keyword (M3).
func (e *Engine) CostTable() []revisit.CostRow { return e.round.costs.Rows() }

// startRounds starts the round loop once: at Start when sites are declared, or when
// the first site is added while the crawl runs (engine/steer). The first round's sources
// are queued by the caller.
func (e *Engine) startRounds() {
	e.round.mu.Lock()
	started := e.round.running
	e.round.running = true
	if !started {
		e.round.n, e.round.started = 1, e.now()
	}
	e.round.mu.Unlock()
	if !started {
		e.wg.Add(1)
		go e.runRounds()
	}
}

// nextRoundAt is when the next round starts, zero when the crawl has no rounds.
func (e *Engine) nextRoundAt() time.Time {
	if e.round == nil {
		return time.Time{}
	}
	e.round.mu.Lock()
	defer e.round.mu.Unlock()
	if !e.round.running {
		return time.Time{}
	}
	return e.round.started.Add(e.opts.Rounds.Every)
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
// by host (M3: a random host group, then a random unpicked URL of it), are queued:
// new ones through the store, known ones back to the queue as refetches.
func (e *Engine) startRound(now time.Time) {
	e.round.mu.Lock()
	e.round.n++
	e.round.started = now
	round := e.round.n
	items := revisit.Interleave(e.sites.Load().Sources(), e.round.rng)
	e.round.mu.Unlock()
	e.mu.Lock()
	e.budget.newRound(now) // round budgets start afresh
	e.mu.Unlock()
	fresh, again, err := e.splitSources(items)
	if err != nil {
		e.logf(LevelError, 0, "", "round %d: %v", round, err)
		return
	}
	e.submit(fresh, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	n, err := e.requeue(again, now, true) // sources are fetched every round, whatever their window
	if err != nil {
		e.logf(LevelError, 0, "", "round: %v", err)
	}
	e.logf(LevelInfo, 0, "", "round %d started: %d new and %d known entry/search URLs queued", round, len(fresh), n)
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
			r := e.linkRecord(it.URL, 0, 0)
			r.Site, r.Keyword = it.Site, it.Keyword
			fresh = append(fresh, r)
		case st == store.Processed || st == store.Failed:
			again = append(again, it.URL)
		}
	}
	return fresh, again, nil
}

// urlIndex is the URL index of seed 003 as FilterKnown reads it: first fetch times
// of the URLs asked about.
type urlIndex map[string]time.Time

// FirstAccess implements revisit.URLIndex.
func (x urlIndex) FirstAccess(u string) (time.Time, bool) {
	t, ok := x[u]
	return t, ok
}

// roundList keeps, of the links an entry or search page led to that are already in
// the URL index, those still inside their class window (revisit.FilterKnown), in
// host-interleaved order.
func roundList(urls []string, index revisit.URLIndex, classes revisit.Classifier, windows revisit.Windows,
	now time.Time, rng *rand.Rand) []string {
	items := make([]revisit.Item, len(urls))
	for i, u := range urls {
		items[i] = revisit.Item{URL: u}
	}
	var out []string
	for _, it := range revisit.Interleave(revisit.FilterKnown(items, index, classes, windows, now), rng) {
		if !it.New { // not fetched yet: already on its way through the queue
			out = append(out, it.URL)
		}
	}
	return out
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
		e.logf(LevelWarn, 0, "", "round: URL index: %v", err)
		return
	}
	index := make(urlIndex, len(states))
	for _, s := range states {
		index[s.URL] = s.First
	}
	e.round.mu.Lock()
	list := roundList(known, index, e.rv.Classes, e.rv.Windows, now, e.round.rng)
	e.round.mu.Unlock()
	if len(list) == 0 {
		return
	}
	if _, err := e.requeue(list, now, true); err != nil {
		e.logf(LevelWarn, 0, "", "round: %v", err)
	}
}
