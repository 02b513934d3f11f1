package engine

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/store"
)

// queueState tracks which queued URLs live in memory. Every queued URL is in the
// store (state unprocessed); memory holds at most Options.QueueMemory of them. When
// memory is full, newly confirmed URLs stay only in the store ("spilled") and are
// paged in, in seq order, as the lanes drain the queue.
type queueState struct {
	spillFrom   int64 // 0: all queued URLs are in memory; else seq >= spillFrom wait in the store
	maxSpilled  int64 // highest seq left in the store while spilled
	ignoreBelow int64 // insert confirmations below this seq were already loaded from the store
	refilling   bool
}

// resume loads what an earlier run left unprocessed (in-progress URLs were put back
// by store.Open) so the crawl goes on where it stopped.
func (e *Engine) resume() error {
	rows, err := e.st.Queued(0, e.opts.QueueMemory)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.loadRows(rows, 0, e.opts.QueueMemory)
	if len(rows) > 0 {
		e.logf(LevelInfo, 0, "", "resuming %d queued URLs from %s", len(rows), e.st.Path())
	}
	return nil
}

// loadRows places rows read from the store and updates the spill window. Caller
// holds e.mu.
func (e *Engine) loadRows(rows []store.URL, from int64, limit int) {
	last := from
	for _, r := range rows {
		last = r.Seq
		e.place(taskOf(r))
	}
	if len(rows) >= limit || e.q.maxSpilled > last {
		e.q.spillFrom = last + 1
	} else {
		e.q.spillFrom, e.q.maxSpilled = 0, 0
	}
	e.q.ignoreBelow = max(e.q.ignoreBelow, last+1)
}

func taskOf(r store.URL) frontier.Task {
	return frontier.Task{Seq: r.Seq, URL: r.URL, Host: r.Host, ParentHash: r.ParentHash, Depth: r.Depth,
		Class: r.Class, Site: r.Site, Keyword: r.Keyword, Attempts: r.Attempts}
}

// queueSeeds normalises the seeds and hands them to the store with the sites'
// entry and search URLs (M3: sources, with their site and keyword). Bad seeds are
// reported and skipped; the crawl needs at least one good seed, a site, or resumable
// work.
func (e *Engine) queueSeeds(seeds []string, sources []revisit.Item) error {
	var urls []store.URL
	var bad []string
	for _, it := range sources {
		e.scope.AddSeed(it.URL)
		r := e.linkRecord(it.URL, 0, 0)
		r.Site, r.Keyword = it.Site, it.Keyword
		urls = append(urls, r)
	}
	for _, s := range seeds {
		n, err := frontier.Normalize(strings.TrimSpace(s))
		if err != nil {
			e.c.AddError(urlErrKind(err))
			e.c.Example(urlErrKind(err), s)
			e.logf(LevelWarn, 0, "", "seed skipped: %v", err)
			bad = append(bad, err.Error()) // the URL cut, with why
			continue
		}
		e.scope.AddSeed(n)
		urls = append(urls, e.linkRecord(n, 0, 0))
	}
	e.mu.Lock()
	// A master's queue is its units' (the board has none), and what it handed out
	// before a restart waits for its workers' claims.
	waiting, out := e.crew.counts()
	resumable := waiting+out > 0 || e.q.spillFrom != 0
	e.mu.Unlock()
	if resumable && len(seeds) == 0 && e.st != nil {
		// Resumed on its database alone (after a kill -9, say): the scope is the
		// sites of the seeds it was started with, or every link would be off-site.
		hosts, err := e.st.SeedHosts()
		if err != nil {
			return fmt.Errorf("resume: the seeds' hosts unreadable: %w", err)
		}
		for _, h := range hosts {
			e.scope.AddSeed("http://" + h + "/")
		}
	}
	if len(urls) == 0 && !resumable {
		if len(bad) > 0 {
			return &SeedError{Bad: bad}
		}
		if len(seeds) == 0 {
			return &SeedError{}
		}
	}
	// Seeds go to the store whatever the dedupe says (the store knows them on a
	// resume); recording them lets the links back to them stop at the dedupe.
	seen := make([]string, len(urls))
	for i, u := range urls {
		seen[i] = u.URL
	}
	e.dedupe.CheckURLs(seen)
	e.submit(urls, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	return nil
}

// SeedError says no usable seed was given.
type SeedError struct {
	Bad []string // why each seed was refused, its URL cut to a recognisable length
}

// seedErrorsShown is how many refused seeds SeedError names; the rest are counted.
const seedErrorsShown = 3

func (e *SeedError) Error() string {
	if len(e.Bad) == 0 {
		return "nothing to crawl: give seed URLs as arguments or with --seeds FILE (or resume a --db with queued URLs)"
	}
	shown := e.Bad[:min(len(e.Bad), seedErrorsShown)]
	more := ""
	if n := len(e.Bad) - len(shown); n > 0 {
		more = fmt.Sprintf("; and %d more", n)
	}
	return "no usable seed: every seed was refused: " + strings.Join(shown, "; ") + more +
		" (a seed is an absolute http or https URL of at most " + fmt.Sprint(frontier.MaxURLLength) + " bytes)"
}

func urlErrKind(err error) string {
	if ue, ok := err.(*frontier.URLError); ok {
		return ue.Kind
	}
	return "malformed_url"
}

// linkRecord builds the store row for a URL found on a page (parent hash of that
// page's URL, one level deeper) or a seed (parent 0, depth 0).
func (e *Engine) linkRecord(n string, parent uint64, depth int) store.URL {
	host := hostOf(n)
	site := frontier.Site(host)
	s := e.sites.Load().SiteOf(host)
	if s != nil {
		site = s.Name // M3: results and costs are counted per declared site
	}
	return store.URL{URL: n, Host: host, ParentHash: parent, Depth: depth, Class: e.classIn(s, host), Site: site}
}

func hostOf(normalized string) string {
	u, err := url.Parse(normalized)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// submit hands URLs to the store (write) and, as the store reports each one new,
// queues it. outstanding counts inserts not yet confirmed, so the crawl is not
// called idle while links are on their way into the queue.
func (e *Engine) submit(urls []store.URL, write func([]store.URL, store.LinkResult)) {
	if len(urls) == 0 {
		return
	}
	byURL := make(map[string]int, len(urls))
	for i, u := range urls {
		byURL[u.URL] = i
	}
	e.mu.Lock()
	e.outstanding += len(urls)
	e.mu.Unlock()
	write(urls, func(u string, inserted bool, seq int64) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.outstanding--
		if _, ok := e.maybeNew[u]; ok {
			delete(e.maybeNew, u)
			if inserted {
				e.c.DedupeFalsePositives.Add(1)
			}
		}
		if inserted {
			r := urls[byURL[u]]
			r.Seq = seq
			e.confirm(taskOf(r))
		}
		e.checkIdle()
	})
}

// confirm queues a URL the store has just inserted as new. Caller holds e.mu.
func (e *Engine) confirm(t frontier.Task) {
	if t.Seq < e.q.ignoreBelow {
		return // already paged in from the store
	}
	if len(e.early) > 0 && !e.confirmEarly(t) {
		return // an operator's new source, on the board since the command
	}
	e.c.URLsQueued.Add(1)
	if e.q.spillFrom != 0 || e.queuedLen() >= e.opts.QueueMemory {
		if e.q.spillFrom == 0 {
			e.q.spillFrom = t.Seq
		}
		e.q.maxSpilled = max(e.q.maxSpilled, t.Seq)
		return
	}
	e.place(t)
}

// place puts a task on a lane by the M1 rule (or leaves it pending) and starts the
// lane's goroutine if a new one opened. Caller holds e.mu.
func (e *Engine) place(t frontier.Task) {
	if e.steeredOut(t) { // its keyword or site was removed while it waited
		return
	}
	if !e.admitTask(&t) { // a page budget holds it back until the next round (budget.go)
		return
	}
	e.crew.place(t)
}

// startRefill pages spilled URLs in from the store when memory has room. Caller
// holds e.mu.
func (e *Engine) startRefill() {
	if e.q.spillFrom == 0 || e.q.refilling || e.queuedLen() >= e.opts.QueueMemory/2 || e.ctx.Err() != nil {
		return
	}
	e.q.refilling = true
	from := e.q.spillFrom
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		limit := e.opts.QueueMemory / 2
		err := e.st.Flush() // everything confirmed so far is committed and visible
		var rows []store.URL
		if err == nil {
			rows, err = e.st.Queued(from-1, limit)
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.q.refilling = false
		if err != nil {
			e.logf(LevelError, 0, "", "paging queued URLs in from the store: %v", err)
			return
		}
		e.loadRows(rows, from-1, limit)
		e.checkIdle()
	}()
}

// extract turns a page's links into store rows: normalised, in scope, and not known
// to the dedupe filter (M4, seed 002: LRU of recent URLs, then the Bloom filter, then
// the store's unique index). A Bloom "maybe" is checked against the store, so a false
// positive never drops a new URL; the INSERT OR IGNORE that follows is the final word.
//
// known, when not nil, collects the links dropped as already seen (M3: a round
// refetches those still inside their class window).
func (e *Engine) extract(t frontier.Task, res *fetch.Result, known *[]string) []store.URL {
	return e.extractLinks(t, res, known, "")
}

// extractLinks is extract; doc, when not "", says res.Links are the entries of the
// feed or sitemap t fetched (readDocument). Those of its own site (registered domain)
// are what the site announces as its pages: a trap guard's guess that a URL space
// runs without end does not overrule the site's own list (a feed may date an event
// years ahead; a sitemap may list a product page whose path holds a model number).
// The page budgets still apply when they are placed. A feed's items on other sites
// (readDocument let them through under discovery.feed_items_off_site) pass the
// scope's site rule, one hop, past the trap guards too (a leaf cannot run off), and
// are otherwise checked as any link is.
func (e *Engine) extractLinks(t frontier.Task, res *fetch.Result, known *[]string, doc discover.Kind) []store.URL {
	parent := frontier.Hash(t.URL)
	page := res.FinalURL
	if page == "" {
		page = t.URL
	}
	base, err := frontier.ParseBase(page)
	if err != nil {
		return nil
	}
	if res.Base != "" { // <base href> changes what relative links mean
		if abs, err := base.Resolve(res.Base); err == nil {
			if b, err := frontier.ParseBase(abs); err == nil {
				base = b
			}
		}
	}
	// Page-level etiquette: nofollow (meta robots, X-Robots-Tag) queues none of the
	// page's links; rel="nofollow" links are left out unless the hint is off.
	et := e.opts.EtiquetteFor(t.Host)
	if et.PageDirectives && res.Robots.NoFollow {
		return nil
	}
	links := res.Links
	nAnnounced, docSite := 0, "" // res.Links come first: the document's entries
	if doc != "" {
		nAnnounced, docSite = len(links), frontier.Site(t.Host)
	}
	if !et.RelNofollow && len(res.NofollowLinks) > 0 {
		links = append(links[:len(links):len(links)], res.NofollowLinks...)
	}
	if res.Canonical != "" && !e.canonicalStands(base, page, res.Canonical) {
		links = append(links, res.Canonical) // another host's: only a link
	}
	seen := make(map[string]bool, len(links))
	var pageURL *url.URL // for the query-growth trap guard
	if e.traps != nil {
		pageURL, _ = url.Parse(page)
	}
	var cands []string
	for i, raw := range links {
		n, err := base.Resolve(raw)
		if err != nil {
			if k := urlErrKind(err); k != frontier.KindScheme {
				e.c.AddError("link_" + k)
			}
			continue
		}
		n = e.variants.Collapse(n)
		if seen[n] {
			continue
		}
		seen[n] = true
		if e.variants.StandsFor(n) {
			e.c.AddError(SkipCanonicalVariant)
			continue
		}
		u, err := url.Parse(n)
		if err != nil {
			continue
		}
		if ok, reason := e.scope.Allows(u, t.Depth+1); !ok {
			if !(reason == frontier.ReasonOffSite && doc == discover.KindFeed && i < nAnnounced) {
				e.c.SkipOutOfScope(reason)
				continue
			}
			if ok, reason = e.scope.AllowsOffSite(u, t.Depth+1); !ok {
				e.c.SkipOutOfScope(reason)
				continue
			}
		}
		// An entry of the site's own feed or sitemap is no trap candidate, nor is a
		// feed's item on another site: one hop past the scope, it is a leaf, and a
		// URL space that cannot be followed cannot run without end.
		listed := i < nAnnounced && (doc == discover.KindFeed || u.Hostname() == t.Host || frontier.Site(u.Hostname()) == docSite)
		if !listed {
			if kind := e.traps.Check(u, pageURL); kind != "" {
				e.trapped(t, n, kind)
				continue
			}
		}
		cands = append(cands, n)
	}
	verdicts := e.dedupe.CheckURLs(cands) // the page's links in one batch (M4: LRU, then Bloom)
	var out []store.URL
	for i, n := range cands {
		switch verdicts[i] {
		case frontier.Recent:
			if known != nil {
				*known = append(*known, n)
			}
			continue
		case frontier.Maybe:
			// The Bloom filter claims it: only the store's unique index can tell a
			// duplicate from a false positive.
			e.c.DedupeStoreChecks.Add(1)
			if _, err := e.st.URLState(n); err == nil {
				if known != nil {
					*known = append(*known, n)
				}
				continue // a true duplicate
			}
			// Not in the store yet: a Bloom false positive if the store inserts it
			// as new (submit counts it then), or a link whose insert is still in the
			// writer's queue, which the store will ignore.
			e.mu.Lock()
			e.maybeNew[n] = struct{}{}
			e.mu.Unlock()
		}
		rec := e.linkRecord(n, parent, t.Depth+1)
		sites.Inherit(t, &rec)
		out = append(out, rec)
	}
	return out
}
