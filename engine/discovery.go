package engine

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// News discovery: feeds and sitemaps are fetched like pages — through the
// lanes, so the politeness gate and adjacency apply, and refetched conditionally by
// the revisit scheduler — and what they announce is queued like links. The pieces:
//
//   - Lane side (process): the first response from an origin carries that origin's
//     robots.txt Sitemap lines (fetch.Result.RobotsSitemaps), so that a master learns
//     them from its workers as a single process does.
//   - Fetcher: with Discovery on it accepts XML and gzip bodies and parses feeds and
//     sitemaps (engine/discover) under the page size cap; HTML pages report their
//     <link rel="alternate"> feeds.
//   - Frontier side (discoverFrom, here): sitemaps from robots.txt, /sitemap.xml when
//     robots.txt names none, and the config; index children admitted through a
//     discover.Tree (bounded depth and count, no loops); entries scoped by
//     discover.Allowed (a sitemap's own host, or hosts whose robots.txt names it);
//     each source's next poll from discover.Poller; moved dates make stored pages due
//     now unless the site's dates proved untrustworthy (discover.Trust).

// discovery is the frontier side's discovery state.
type discovery struct {
	tree   *discover.Tree
	poller *discover.Poller
	cover  *discover.Coverage

	mu       sync.Mutex
	origins  map[string]bool           // origins whose robots.txt sitemaps were taken in
	cross    map[string][]string       // sitemap URL -> hosts whose robots.txt names it
	parent   map[string]string         // sitemap URL -> the index that listed it
	siteWide map[string]bool           // sources declared in the config: any host of their site
	sources  map[string]discover.Kind  // feeds and sitemaps seen, by URL
	hinted   map[string]string         // URL -> site: a refetch asked for by a moved date
	nHinted  atomic.Int64              // len(hinted), read off d.mu by every task's end (hintDrop)
	sites    map[string]*siteDiscovery // by registered domain
	warned   map[string]bool           // sites whose untrusted dates were logged
	// hintSeen is URL -> newest date a source gave it, under its own lock: every
	// stored page looks itself up (awaitHint) and must not wait on d.mu, which a
	// large sitemap's read holds for its whole parse.
	hintMu   sync.Mutex
	hintSeen map[string]time.Time
	entries  map[string][]string // site -> its seed pages (pollEntry), polled while not covered
	// shadowed is, per site, its sources another of its sources covers (Coverage),
	// each with the one covering it: the Poller reads them at its longest interval.
	// coverMu orders the Coverage's verdicts and their passing to the Poller, so
	// that two reads of one site at once cannot leave the older verdict in force.
	shadowed  map[string]map[string]string
	coverMu   sync.Mutex
	removed   map[string]bool               // sites the operator removed: their sources are not polled (discovery_steer.go)
	parked    map[string]discover.PollState // what the Poller had learned of removed sites' sources, by URL
	listed    map[string][]uint64           // source -> sorted hashes of the URLs its last read listed (small sources)
	noted     map[string]bool               // documents whose problem was logged (discovery_problems.go)
	announced map[string]bool               // feeds pages announced by <link rel="alternate">
	nListed   int                           // hashes in listed, bounded by maxListedTotal
	ahead     aheadMarks                    // URLs a read just listed as new, to go ahead on their lane

	// changes counts what changed the kept state (discovery_state.go); saved and
	// savedAt are the count and time of its last write (tick and Stop only).
	changes atomic.Int64
	saved   int64
	savedAt time.Time
}

// siteDiscovery is what discovery knows of one site, for the snapshot.
type siteDiscovery struct {
	feeds, sitemaps map[string]bool
	trust           discover.Trust
	found           int64 // URLs announced by its feeds and sitemaps
	hints, ignored  int64 // date moves followed / ignored as untrusted
	warnings        map[string]int
	// refused is, per sitemap, how many pages of the site's own hosts its last read
	// had to refuse (off_host): hosts whose robots.txt does not name it, or has not
	// been read yet. While any is above zero the sitemaps miss part of the site.
	refused map[string]int
	// problems is, per document of the site, why its last read yielded nothing.
	problems map[string]string
	// sitemapReads counts its sitemap reads: "lastmod is always now" shows from the
	// second (discover.Trust), so dates from the first are not relied on (awaitHint).
	sitemapReads int
}

func newDiscovery(o DiscoveryOptions) *discovery {
	// With a budget the reads are a rate to spend: lateness in the lane's queue
	// does not lower it (discover.Poller.KeepPace).
	budgeted := o.PollBudget > 0 || o.FetchBudget > 0
	return &discovery{
		tree:      discover.NewTree(),
		poller:    &discover.Poller{MinInterval: o.MinPoll, MaxInterval: o.MaxPoll, Budget: o.PollBudget, FetchBudget: o.FetchBudget, KeepPace: budgeted},
		cover:     &discover.Coverage{},
		origins:   map[string]bool{},
		cross:     map[string][]string{},
		parent:    map[string]string{},
		siteWide:  map[string]bool{},
		sources:   map[string]discover.Kind{},
		hinted:    map[string]string{},
		sites:     map[string]*siteDiscovery{},
		warned:    map[string]bool{},
		hintSeen:  map[string]time.Time{},
		entries:   map[string][]string{},
		listed:    map[string][]uint64{},
		shadowed:  map[string]map[string]string{},
		removed:   map[string]bool{},
		parked:    map[string]discover.PollState{},
		noted:     map[string]bool{},
		announced: map[string]bool{},
	}
}

func (d *discovery) site(host string) *siteDiscovery {
	name := frontier.Site(host)
	s := d.sites[name]
	if s == nil {
		s = &siteDiscovery{feeds: map[string]bool{}, sitemaps: map[string]bool{}, warnings: map[string]int{}, refused: map[string]int{}, problems: map[string]string{}}
		d.sites[name] = s
	}
	return s
}

// seeds returns the configured sitemaps and feeds to queue with the seeds.
func (d *discovery) seeds(o DiscoveryOptions) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, u := range o.Sitemaps {
		if n, err := frontier.Normalize(u); err == nil {
			d.siteWide[n] = true
			d.tree.Root(frontier.Site(hostOf(n)), n)
			out = append(out, n)
		}
	}
	for _, u := range o.Feeds {
		if n, err := frontier.Normalize(u); err == nil {
			d.siteWide[n] = true
			out = append(out, n)
		}
	}
	return out
}

// discoverFrom is the frontier side of discovery for one fetched response: it
// queues the origin's sitemaps, turns a feed's or sitemap's entries into the page's
// links (res.Links, queued by savePage like any links) and applies date hints. It
// returns the source's state for scheduling (nil for an ordinary page).
func (e *Engine) discoverFrom(t frontier.Task, res *fetch.Result, prev *revisit.Page, at time.Time) *discover.Doc {
	d := e.disc
	if d == nil {
		return nil
	}
	if res.RobotsRead {
		e.queueRobotsSitemaps(t, res)
	}
	if res.DiscoveryError != "" {
		d.mu.Lock()
		d.site(t.Host).warnings["unreadable"]++
		d.mu.Unlock()
		e.c.addError("discovery_unreadable")
	}
	if len(res.Feeds) > 0 {
		d.announce(res)
		res.Links = append(res.Links[:len(res.Links):len(res.Links)], res.Feeds...)
	}
	doc := res.Discovered
	if doc == nil && res.DiscoveredKind != "" && len(res.Body) > 0 {
		// From a worker (M4): the parsed document stayed there; the body came raw,
		// and is read as the worker read it (its URL, its Content-Type's charset).
		parsed, err := discover.ParseFrom(res.Body, documentSource(t, res), discover.Limits{MaxBytes: int64(e.opts.Fetch.MaxBodyBytes)})
		if err == nil || len(parsed.Entries) > 0 {
			doc = &parsed
		}
	}
	if doc == nil {
		if res.DiscoveryError != "" {
			e.documentProblem(t, res.DiscoveryError, true)
		}
		return nil
	}
	due, dated := e.readDocument(t, res, doc, prev, at)
	e.documentRead(t, res, doc)
	if len(due) > 0 {
		// Store reads and the requeue, off d.mu (as refetchResults does for rounds).
		e.hintDue(due, at)
	}
	if len(dated) > 0 {
		e.hintDueIfOlder(dated, frontier.Site(t.Host), at)
	}
	return doc
}

// readDocument applies one parsed feed or sitemap: its entries (or an index's
// children) become res.Links under the scope rule, its dates teach the site's Trust,
// and it returns the stored pages to make due now: those a trusted moved date
// names, and the site's entry pages when this read opened a gap in what its
// sitemaps cover (pollEntry then polls them until the gap closes). dated are the
// entries of a trusted site dated after the source's last read that gave no date
// before (the first read after a restart: the dates are not kept; or a new entry):
// due if a stored copy is older than its date (hintDueIfOlder).
func (e *Engine) readDocument(t frontier.Task, res *fetch.Result, doc *discover.Doc, prev *revisit.Page, at time.Time) (due []string, dated map[string]time.Time) {
	d := e.disc
	src := t.URL
	siteName := frontier.Site(t.Host)
	d.mu.Lock()
	defer d.mu.Unlock()
	sd := d.site(t.Host)
	d.sources[src] = doc.Kind
	d.changes.Add(1)
	if doc.Kind == discover.KindFeed {
		sd.feeds[src] = true
	} else {
		sd.sitemaps[src] = true
		sd.sitemapReads++
	}
	for k, n := range doc.Warnings {
		sd.warnings[k] += n
		e.c.addError("discovery_" + k)
	}
	var links []string
	if doc.Kind == discover.KindIndex {
		for _, c := range doc.Entries {
			if !discover.Allowed(discover.KindSitemap, src, c.URL, d.crossOf(src)) && !d.siteWideOK(src, c.URL) {
				sd.warnings["off_host"]++
				continue
			}
			if why := d.tree.Child(siteName, src, c.URL); why != "" {
				if why != "sitemap_loop" { // a known child listed again is the normal case
					sd.warnings[why]++
					e.c.addError("discovery_" + why)
				}
				continue
			}
			d.parent[c.URL] = src
			links = append(links, c.URL)
		}
		res.Links = links
		return nil, nil
	}
	if doc.Kind != discover.KindFeed {
		// "Always now" is judged on the server's own clock (its Date header) when it
		// gives one: a lastmod of the serving time is the same instant on both, however
		// far that clock is from ours.
		served := at
		if date, err := http.ParseTime(res.Header.Get("Date")); err == nil {
			served = date
		}
		sd.trust.ObserveDocument(doc.Entries, served)
	}
	trusted, why := sd.trust.Trusted()
	var since time.Time
	if prev != nil {
		since = prev.Last
	}
	var moved []string
	refused := 0
	for _, en := range doc.Entries {
		if !discover.Allowed(doc.Kind, src, en.URL, d.crossOf(src)) && !d.siteWideOK(src, en.URL) {
			if doc.Kind == discover.KindFeed && e.opts.Discovery.FeedItemsOffSite && discover.Allowed(doc.Kind, en.URL, en.URL, nil) {
				// One hop off the site (extractLinks lets it past the scope); its date
				// is no hint: the feed's site does not speak for another's pages.
				links = append(links, en.URL)
				continue
			}
			sd.warnings["off_host"]++
			if frontier.Site(hostOf(en.URL)) == siteName {
				refused++
			}
			continue
		}
		links = append(links, en.URL)
		for _, alt := range en.Alternates {
			// The page in another language (hreflang): a page of the site too,
			// under the same rule.
			if discover.Allowed(doc.Kind, src, alt, d.crossOf(src)) || d.siteWideOK(src, alt) {
				links = append(links, alt)
			} else {
				sd.warnings["off_host"]++
			}
		}
		date := en.Latest()
		if date.IsZero() {
			continue
		}
		n, err := frontier.Normalize(en.URL)
		if err != nil {
			continue
		}
		d.hintMu.Lock()
		old, seen := d.hintSeen[n]
		d.hintSeen[n] = date
		d.hintMu.Unlock()
		// A date is a hint when it moved since this document was last read: newer
		// than our last read of the source and than the date it gave before.
		if !since.IsZero() && date.After(since) {
			switch {
			case seen && date.After(old):
				moved = append(moved, n)
			case !seen && trusted:
				if dated == nil {
					dated = map[string]time.Time{}
				}
				dated[n] = date
			}
		}
	}
	if doc.Kind == discover.KindSitemap {
		before, read := sd.refused[src]
		sd.refused[src] = refused
		if read && before == 0 && refused > 0 && len(sd.feeds) == 0 {
			// A host of the site with pages the sitemap may not speak for (a new
			// section, its robots.txt never read): the entry page, which links
			// them, is what finds them now and brings that robots.txt in.
			due = append(due, d.entries[siteName]...)
		}
	}
	sd.found += int64(len(links))
	res.Links = links
	if len(moved) > 0 {
		if !trusted {
			sd.ignored += int64(len(moved))
			if !d.warned[siteName] {
				d.warned[siteName] = true
				e.logf(LevelWarn, 0, t.Host, "dates of %s are ignored: %s", siteName, why)
			}
		} else {
			sd.hints += int64(len(moved))
			for _, u := range moved {
				d.hint(u, siteName)
			}
			due = append(due, moved...)
		}
	}
	return due, dated
}

// hintDueIfOlder makes due now the stored pages of dated whose last fetch is older
// than the date their site's feed or sitemap gives them: they changed since. A page
// not stored yet (a new entry, queued as a link) is left alone.
func (e *Engine) hintDueIfOlder(dated map[string]time.Time, site string, now time.Time) {
	urls := make([]string, 0, len(dated))
	for u := range dated {
		urls = append(urls, u)
	}
	states, err := e.st.Revisits(urls)
	if err != nil || len(states) == 0 {
		return
	}
	var due []string
	for _, s := range states {
		if date, ok := dated[s.URL]; ok && s.Fetches > 0 && s.Last.Before(date) {
			due = append(due, s.URL)
		}
	}
	if len(due) == 0 {
		return
	}
	d := e.disc
	d.mu.Lock()
	if sd := d.sites[site]; sd != nil {
		sd.hints += int64(len(due))
	}
	for _, u := range due {
		d.hint(u, site)
	}
	d.mu.Unlock()
	if _, err := e.requeue(due, now, true); err != nil {
		e.logf(LevelWarn, 0, "", "discovery hints: %v", err)
	}
}

// covers says whether the feeds and sitemaps the crawl knows of announce every
// page of host's site: a feed speaks for its whole site; sitemaps do when their
// last reads refused none of the site's own pages. A refusal for want of a
// cross-submission not yet read lasts until the sitemap is read again after the
// section host's robots.txt vouched for it (the entry page is polled meanwhile, and
// its links to that host are what bring its robots.txt in).
func (d *discovery) covers(host string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.sites[frontier.Site(host)]
	if s == nil {
		return false
	}
	if len(s.feeds) > 0 {
		return true
	}
	for _, n := range s.refused {
		if n > 0 {
			return false
		}
	}
	return len(s.sitemaps) > 0
}

// siteWideOK lets a source the operator declared (or a sitemap listed by its index)
// list any host of its own site. Caller holds d.mu.
func (d *discovery) siteWideOK(src, page string) bool {
	for i := 0; src != "" && i <= discover.MaxIndexDepth; i, src = i+1, d.parent[src] {
		if d.siteWide[src] {
			return discover.Allowed(discover.KindFeed, src, page, nil)
		}
	}
	return false
}

// crossOf is the hosts whose robots.txt names src or an index above it: a
// cross-submission covers the sitemaps its index lists. Read at each use, since a
// host's robots.txt may be read after the sitemap. Caller holds d.mu.
func (d *discovery) crossOf(src string) []string {
	var out []string
	for i := 0; src != "" && i <= discover.MaxIndexDepth; i, src = i+1, d.parent[src] {
		out = append(out, d.cross[src]...)
	}
	return out
}

// hintDue makes stored pages due now: their date in a feed or sitemap moved, or
// they are the entry pages of a site its sitemaps no longer cover.
func (e *Engine) hintDue(urls []string, now time.Time) {
	states, err := e.st.Revisits(urls)
	if err != nil || len(states) == 0 {
		return
	}
	var due []string
	for _, s := range states {
		due = append(due, s.URL)
	}
	if _, err := e.requeue(due, now, true); err != nil {
		e.logf(LevelWarn, 0, "", "discovery hints: %v", err)
	}
}

// queueRobotsSitemaps queues the sitemaps an origin's robots.txt names, or its
// /sitemap.xml when it names none (the usual place; a 404 costs one request).
func (e *Engine) queueRobotsSitemaps(t frontier.Task, res *fetch.Result) {
	d := e.disc
	u, err := url.Parse(t.URL)
	if err != nil {
		return
	}
	origin := u.Scheme + "://" + u.Host
	d.mu.Lock()
	if d.origins[origin] {
		d.mu.Unlock()
		return
	}
	d.origins[origin] = true
	list := res.RobotsSitemaps
	if len(list) == 0 && e.probes(u.Hostname()) {
		list = []string{origin + "/sitemap.xml"}
	}
	var admitted []string
	for _, raw := range list {
		n, err := frontier.Normalize(strings.TrimSpace(raw))
		if err != nil {
			d.site(t.Host).warnings["bad_sitemap_url"]++
			continue
		}
		if hostOf(n) != u.Hostname() {
			// Cross-submission: this host's robots.txt vouches for the sitemap
			// listing its URLs (sitemaps.org, "Sitemaps & Cross Submits").
			if !slices.Contains(d.cross[n], u.Hostname()) { // kept from an earlier run too
				d.cross[n] = append(d.cross[n], u.Hostname())
			}
		}
		if d.tree.Root(frontier.Site(hostOf(n)), n) {
			admitted = append(admitted, n)
		}
	}
	d.mu.Unlock()
	var out []store.URL
	for _, n := range admitted {
		pu, err := url.Parse(n)
		if err != nil {
			continue
		}
		if ok, _ := e.scope.Allows(pu, 0); !ok {
			e.c.addError("discovery_sitemap_out_of_scope")
			continue
		}
		out = append(out, e.linkRecord(n, 0, 0))
	}
	if len(out) == 0 {
		return
	}
	ns := make([]string, len(out))
	for i, r := range out {
		ns[i] = r.URL
	}
	e.dedupe.CheckURLs(ns)
	e.submit(out, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
}

// schedulePoll sets a feed's or sitemap's next fetch from its learned publishing
// rate (discover.Poller), in place of the page revisit policy's, and bypassing the
// class window: a news feed is read as long as the crawl runs.
// listing is what the read gave the crawl (its links, new and known; nil for a 304).
// fresh are the read's links new to the crawl (nil for a 304).
func (e *Engine) schedulePoll(src string, doc *discover.Doc, fresh []store.URL, listing []string, rv *store.Revisit, at time.Time) {
	if rv == nil {
		return
	}
	d := e.disc
	if d.removedSource(src) {
		d.poller.Forget(src)
		e.forgetCoverage(src)
		rv.Next = revisit.Never
		return
	}
	newLinks := len(fresh)
	if doc.Kind == discover.KindIndex {
		newLinks = 0 // an index's children are sources, not news
	}
	if n, ok := d.newSinceLastRead(src, doc); ok {
		newLinks = n
	}
	full := newLinks > 0 && newLinks >= len(doc.Entries)
	if doc.Kind != discover.KindIndex && d.poller.Knows(src) {
		d.ahead.mark(fresh, full)
	}
	d.poller.Observe(src, at, newLinks, full)
	if doc.Kind != discover.KindIndex {
		e.observeCoverage(src, listing, listing == nil)
	}
	d.changes.Add(1)
	rv.Next = at.Add(d.poller.Interval(src))
}

// maxListed bounds the sources whose listed URLs are remembered: feeds and news
// sitemaps (a feed holds tens of items, a news sitemap two days); an archive of 50,000
// URLs is counted by what is new to the crawl instead. maxListedTotal bounds them all
// (8 bytes a URL: 16 MiB).
const (
	maxListed      = 5000
	maxListedTotal = 2 << 20
)

// newSinceLastRead counts the entries of a source's read that its previous read did
// not list: its publishing rate as the source itself shows it. Counting only what
// was new to the crawl would let another path to the same articles (the entry page
// polled while the site was not covered, a second feed) make the source look dead,
// and a dead-looking source is read once a day (live bench: a sitemap site's
// articles of its last day missed). ok is false when there is no previous read to
// compare with (the first, after a restart, or a source too large to remember).
// A read with no entries (a 304's stand-in) leaves the remembered list as it is.
func (d *discovery) newSinceLastRead(src string, doc *discover.Doc) (n int, ok bool) {
	if doc.Kind == discover.KindIndex {
		return 0, false
	}
	urls := make([]string, len(doc.Entries))
	for i, en := range doc.Entries {
		urls[i] = en.URL
	}
	return d.listedAnew(src, urls)
}

// listedAnew is newSinceLastRead over a read's URLs: a document's entries, or the
// links of an entry page polled in place of feeds (pollEntry).
func (d *discovery) listedAnew(src string, urls []string) (n int, ok bool) {
	if len(urls) == 0 {
		return 0, false
	}
	now := make([]uint64, len(urls))
	for i, u := range urls {
		now[i] = frontier.Hash(u)
	}
	slices.Sort(now)
	now = slices.Compact(now)
	d.mu.Lock()
	defer d.mu.Unlock()
	prev, ok := d.listed[src]
	d.nListed -= len(prev)
	delete(d.listed, src)
	if len(now) > maxListed || d.nListed+len(now) > maxListedTotal {
		return 0, false
	}
	d.listed[src], d.nListed = now, d.nListed+len(now)
	if !ok {
		return 0, false
	}
	for _, h := range now {
		if _, found := slices.BinarySearch(prev, h); !found {
			n++
		}
	}
	return n, true
}

// forgetListed drops what src listed (an entry page no longer polled): the sources
// it shadowed are read at their own rate again.
func (e *Engine) forgetListed(src string) {
	d := e.disc
	d.mu.Lock()
	d.nListed -= len(d.listed[src])
	delete(d.listed, src)
	d.mu.Unlock()
	e.forgetCoverage(src)
}

// forgetCoverage takes src out of its site's Coverage (no longer a source, or its
// read failed or listed nothing): the sources it shadowed are read at their own
// rate again at once.
func (e *Engine) forgetCoverage(src string) {
	d := e.disc
	site := frontier.Site(hostOf(src))
	d.coverMu.Lock()
	d.cover.Forget(site, src)
	freed := d.applyShadows(site, d.cover.Shadowed(site))
	d.coverMu.Unlock()
	e.resumePolls(freed, src)
}

// sourceFailed is a failed read (an HTTP error, a fetch error) of a feed, sitemap or
// polled entry page: it covers nothing while it fails, so what it shadowed is read at
// its own rate.
// Every failed fetch of the crawl passes here: it asks the Poller (which has seen every
// source Coverage has, first), never d.mu, which a large sitemap's read holds.
func (e *Engine) sourceFailed(u string) {
	if d := e.disc; d != nil && d.poller.Knows(u) {
		e.forgetCoverage(u)
	}
}

// observeCoverage tells the Coverage what a read of src listed (same: a 304, the
// same as its last read) and passes the site's shadowed sources to the Poller. A
// read that listed nothing, or more than maxListed URLs (an archive), takes the
// source out: it is never shadowed, and judges nothing.
func (e *Engine) observeCoverage(src string, listing []string, same bool) {
	d := e.disc
	if len(listing) > maxListed || (len(listing) == 0 && !same) {
		e.forgetCoverage(src)
		return
	}
	var hs []uint64
	if !same {
		hs = make([]uint64, len(listing))
		for i, u := range listing {
			hs[i] = frontier.Hash(u)
		}
	}
	site := frontier.Site(hostOf(src))
	d.coverMu.Lock()
	freed := d.applyShadows(site, d.cover.Observe(site, src, hs))
	d.coverMu.Unlock()
	e.resumePolls(freed, src)
}

// applyShadows makes the Poller read a site's shadowed sources at its longest
// interval, and the others at their own rate again. It returns the sources no
// longer shadowed.
func (d *discovery) applyShadows(site string, now map[string]string) (freed []string) {
	d.mu.Lock()
	before := d.shadowed[site]
	if len(now) == 0 {
		delete(d.shadowed, site)
	} else {
		d.shadowed[site] = now
	}
	d.mu.Unlock()
	for src := range before {
		if _, ok := now[src]; !ok {
			d.poller.Shadow(src, false)
			freed = append(freed, src)
		}
	}
	for src := range now {
		d.poller.Shadow(src, true)
	}
	return freed
}

// resumePolls brings the next read of sources no longer shadowed back from the
// longest interval to their own (their last read plus the Poller's interval; due
// now if that has passed). but is the source being read, whose next read its caller
// sets.
func (e *Engine) resumePolls(freed []string, but string) {
	if e.st == nil {
		return
	}
	for _, src := range freed {
		if next := e.disc.poller.Next(src); src != but && !next.IsZero() { // zero: not polled (any more)
			e.st.SetRevisitNext([]string{src}, next)
		}
	}
}

// awaitHint replaces a newly stored page's first revisit (revisit.initial, the
// probe that M2 spends on every new page) when a feed or sitemap of a site whose
// dates are trusted lists the page with a date: that source is read on its own
// schedule and a date that moves makes the page due at once (readDocument), so a
// blind refetch an hour later buys nothing the next read would not tell. The page
// waits instead the mean interval its revisit budget affords (1/budget days: ten
// days at the default 0.1), within its class window. Only with the estimator
// policy, which has a budget; the seed rule keeps its initial delay. A site known
// only from one sitemap read has not shown yet whether its lastmod is always "now"
// (that takes two): its pages get the initial delay too. A feed's dates are
// publication dates, which do not lie that way (feeds are not judged on it).
func (e *Engine) awaitHint(u string, rv *store.Revisit) {
	d := e.disc
	o := e.opts.Revisit
	if d == nil || rv == nil || rv.Fetches != 1 || rv.Next.Equal(revisit.Never) || o.Policy != revisit.PolicyEstimator {
		return
	}
	d.hintMu.Lock()
	_, dated := d.hintSeen[u]
	d.hintMu.Unlock()
	if !dated {
		return
	}
	d.mu.Lock()
	trusted := false
	if s := d.sites[frontier.Site(hostOf(u))]; s != nil && (len(s.feeds) > 0 || s.sitemapReads >= 2) {
		trusted, _ = s.trust.Trusted()
	}
	d.mu.Unlock()
	if !trusted {
		return
	}
	budget := o.Budget
	if c, ok := o.Classes[rv.Class]; ok && c.Budget > 0 {
		budget = c.Budget
	}
	next := rv.Last.Add(time.Duration(float64(24*time.Hour) / budget))
	if w := revisit.Windows(o.Windows).Window(rv.Class); w > 0 && next.After(rv.First.Add(w)) {
		next = rv.First.Add(w)
	}
	if next.After(rv.Next) {
		rv.Next = next
	}
}

// hintOutcome teaches the site's Trust what a hinted refetch found.
func (e *Engine) hintOutcome(u string, changed bool) {
	d := e.disc
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	site, ok := d.hinted[u]
	if !ok {
		return
	}
	delete(d.hinted, u)
	d.nHinted.Store(int64(len(d.hinted)))
	if s := d.sites[site]; s != nil {
		s.trust.ObserveHint(changed)
		d.changes.Add(1)
	}
}

// hint marks u's next fetch as a hinted refetch of site's. Caller holds d.mu.
func (d *discovery) hint(u, site string) {
	d.hinted[u] = site
	d.nHinted.Store(int64(len(d.hinted)))
}

// hintDrop forgets a hinted fetch that teaches the site's Trust nothing: a first
// fetch (a page whose date moved while it still waited in the queue), a failed or
// unreadable one. Without it the mark stayed for the rest of the run.
func (e *Engine) hintDrop(u string) {
	d := e.disc
	if d == nil || d.nHinted.Load() == 0 {
		return
	}
	d.mu.Lock()
	if _, ok := d.hinted[u]; ok {
		delete(d.hinted, u)
		d.nHinted.Store(int64(len(d.hinted)))
	}
	d.mu.Unlock()
}

// isSource says whether u is a known feed or sitemap.
func (d *discovery) isSource(u string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.sources[u]
	return ok
}

// isDiscoverySource says whether u is a known feed or sitemap of this run.
func (e *Engine) isDiscoverySource(u string) bool { return e.disc != nil && e.disc.isSource(u) }

// notModifiedSource handles a 304 on the frontier side: a feed or sitemap brought
// nothing new (its next poll comes from its learned rate); a page refetched for a
// moved date did not change (the site's Trust learns it).
func (e *Engine) notModifiedSource(u string, rv *store.Revisit) {
	d := e.disc
	if d == nil {
		return
	}
	d.mu.Lock()
	kind, ok := d.sources[u]
	d.mu.Unlock()
	if ok {
		e.schedulePoll(u, &discover.Doc{Kind: kind}, nil, nil, rv, e.now())
		return
	}
	e.hintOutcome(u, false)
}
