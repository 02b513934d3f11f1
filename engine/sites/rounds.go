package sites

import (
	"math/rand"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Crawl rounds over the declared sites (M3, seed 003). Each round queues every
// site's entry and search URLs again; the links found on them go through the URL
// index (known URLs are refetched only while inside their class window) and are
// interleaved by host; the pages collected for a site (news pages holding a keyword,
// social search pages and the posts they list) are cached and written in one batch
// at the round's end, grouped by site and site+keyword, and the cost table is
// updated. Plain seeds keep the discovery crawl of the engine core.

// Result page types (model.Result.Kind).
const (
	ResultNews   = "news"   // a news page whose main text holds the keyword
	ResultSearch = "search" // a social site's search result page
	ResultPost   = "post"   // a page listed on a social search result page
)

// Rounds is the state of the crawl's rounds: which one runs since when, the results
// collected in it, and the cost table (M3: site or site+keyword -> cost).
type Rounds struct {
	mu      sync.Mutex
	n       int       // rounds started
	running bool      // the round loop runs (Begin)
	started time.Time // start of the current round
	results []model.Result
	costs   *revisit.CostTable
	rng     *rand.Rand // Interleave's picks (guarded by mu)
	// outOfWindow counts, per news site, the pages holding a keyword that were no
	// result as their own date is older than the site's date window (this run).
	outOfWindow map[string]int64
}

// OutOfWindow is how many pages of site held one of its keywords but were dated
// before its date window, so were no result (this run).
func (r *Rounds) OutOfWindow(site string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outOfWindow[site]
}

// NewRounds returns the round state with the cost table an earlier run left in
// the store (none on a worker: the master keeps the cost table).
func NewRounds(saved []model.Cost) *Rounds {
	r := &Rounds{costs: revisit.NewCostTable(), rng: rand.New(rand.NewSource(time.Now().UnixNano()))}
	if len(saved) == 0 {
		return r
	}
	restored := make([]revisit.CostRow, len(saved))
	for i, c := range saved {
		restored[i] = revisit.CostRow{CostKey: revisit.CostKey{Site: c.Site, Keyword: c.Keyword},
			Cost: c.Cost, Pages: c.Pages, Round: c.Round}
	}
	r.costs.Restore(restored)
	return r
}

// CountCost adds a fetch of a site's task that took d to the round's cost table.
func (r *Rounds) CountCost(site, keyword string, d time.Duration) { r.costs.Add(site, keyword, d) }

// CostRows is the cost table: the latest closed round of every site and
// site+keyword (M3).
func (r *Rounds) CostRows() []revisit.CostRow { return r.costs.Rows() }

// Collect caches the results a stored page of site s gives (M3): a social site's
// page found for a keyword is a result for it (search page or post); a news site's
// page is a result for each of its keywords (in book) its main text contains, and
// otherwise only feeds link discovery. published is the page's own date (zero when
// it gives none): a news site with a date window (within_days) takes no result
// from a page dated before the window, fetched at at; such a page that held a
// keyword is counted (OutOfWindow), and an undated one is a result.
func (r *Rounds) Collect(book *Book, s *config.SiteOptions, t frontier.Task, res *fetch.Result, published, at time.Time) {
	row := model.Result{URL: t.URL, Site: s.Name, Host: t.Host, Cost: res.Duration, FetchedAt: at}
	var out []model.Result
	switch {
	case s.Kind == config.SiteSocial && t.Keyword != "":
		row.Keyword, row.Kind = t.Keyword, ResultPost
		if t.Depth == 0 {
			row.Kind = ResultSearch
		}
		out = append(out, row)
	case s.Kind == config.SiteNews:
		// The fetcher's parse of the page (nil for a worker's result) has its text.
		text, ok := res.Parsed.PageTextOf(res.PageBody(), res.PageType())
		if !ok {
			return
		}
		kws := book.Matches(s.Name, text)
		if w := s.Window(); w > 0 && len(kws) > 0 && !published.IsZero() && published.Before(at.Add(-w)) {
			r.mu.Lock()
			if r.outOfWindow == nil {
				r.outOfWindow = map[string]int64{}
			}
			r.outOfWindow[s.Name]++
			r.mu.Unlock()
			return
		}
		for _, kw := range kws {
			row.Keyword, row.Kind = kw, ResultNews
			out = append(out, row)
		}
	}
	if len(out) == 0 {
		return
	}
	r.mu.Lock()
	r.results = append(r.results, out...)
	r.mu.Unlock()
}

// Inherit gives a link found on a social search page its site and keyword (M3: the
// posts a search lists are collected for the keyword searched).
func Inherit(parent frontier.Task, link *model.URL) {
	if parent.Keyword != "" && parent.Depth == 0 && frontier.Site(link.Host) == frontier.Site(parent.Host) {
		link.Site, link.Keyword = parent.Site, parent.Keyword
	}
}

// ResultGroup is the results of one site (news) or site+keyword (social) in a
// round's batch.
type ResultGroup struct {
	Site    string
	Keyword string
	Results []model.Result
}

// groupResults groups a round's results by site, then keyword (the order they are
// stored in), keeping each group's pages in collection order.
func groupResults(rs []model.Result) []ResultGroup {
	sorted := slices.Clone(rs)
	slices.SortStableFunc(sorted, func(a, b model.Result) int {
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
		out = append(out, ResultGroup{Site: r.Site, Keyword: r.Keyword, Results: []model.Result{r}})
	}
	return out
}

// End closes the current round at end: the results collected, grouped by site and
// site+keyword (and flat, in that order, for the store's one batch), and the cost
// table rows it touched, stamped with end. All are empty when the round had none.
func (r *Rounds) End(end time.Time) (groups []ResultGroup, flat []model.Result, costs []model.Cost) {
	r.mu.Lock()
	rs := r.results
	r.results = nil
	r.mu.Unlock()
	rows := r.costs.EndRound(end)
	if len(rs) == 0 && len(rows) == 0 {
		return nil, nil, nil
	}
	groups = groupResults(rs)
	flat = make([]model.Result, 0, len(rs))
	for _, g := range groups {
		flat = append(flat, g.Results...)
	}
	costs = make([]model.Cost, len(rows))
	for i, c := range rows {
		costs[i] = model.Cost{Site: c.Site, Keyword: c.Keyword, Cost: c.Cost, Pages: c.Pages, Round: c.Round}
	}
	return groups, flat, costs
}

// Begin marks the rounds running from now, the first round started; it reports
// whether they were not running yet (the caller then starts the round loop).
func (r *Rounds) Begin(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		return false
	}
	r.running = true
	r.n, r.started = 1, now
	return true
}

// NextAt is when the next round starts, rounds every apart; zero when the rounds
// do not run.
func (r *Rounds) NextAt(every time.Duration) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.running {
		return time.Time{}
	}
	return r.started.Add(every)
}

// Next starts the next round at now: its number, and the sources of book
// interleaved by host (M3: a random host group, then a random unpicked URL of it).
func (r *Rounds) Next(now time.Time, book *Book) (round int, items []revisit.Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	r.started = now
	return r.n, revisit.Interleave(book.Sources(), r.rng)
}

// Round is the number of the current round (0 before the first).
func (r *Rounds) Round() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// URLIndex is the URL index of seed 003 as FilterKnown reads it: first fetch times
// of the URLs asked about.
type URLIndex map[string]time.Time

// FirstAccess implements revisit.URLIndex.
func (x URLIndex) FirstAccess(u string) (time.Time, bool) {
	t, ok := x[u]
	return t, ok
}

// Known keeps, of the links an entry or search page led to that are already in the
// URL index, those still inside their class window (revisit.FilterKnown), in
// host-interleaved order.
func (r *Rounds) Known(urls []string, index revisit.URLIndex, classes revisit.Classifier, windows revisit.Windows, now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return roundList(urls, index, classes, windows, now, r.rng)
}

// roundList is Known with the random source given.
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
