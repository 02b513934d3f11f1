package feeds

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
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
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
//   - Frontier side (Read, here): sitemaps from robots.txt, /sitemap.xml when
//     robots.txt names none, and the config; index children admitted through a
//     discover.Tree (bounded depth and count, no loops); entries scoped by
//     discover.Allowed (a sitemap's own host, or hosts whose robots.txt names it);
//     each source's next poll from discover.Poller; moved dates make stored pages due
//     now unless the site's dates proved untrustworthy (discover.Trust).

// Discovery is the frontier side's discovery state: what the crawl knows of every
// feed, sitemap and polled entry page, under its own locks. Its methods are safe
// for concurrent use; the crawl reaches it only through them, and it reaches the
// crawl only through its Crawl port.
type Discovery struct {
	c    Crawl
	st   Store // nil in tests that read documents without a store
	opts Options

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
	nHinted  atomic.Int64              // len(hinted), read off d.mu by every task's end (HintDrop)
	sites    map[string]*siteDiscovery // by unit: declared site's name, else registered domain (units.go)
	warned   map[string]bool           // units whose untrusted dates were logged
	// followed is the site book the units were last keyed under (follow), and
	// unshadowed the sources a re-keying took out of a covering source's shadow,
	// whose next read follow brings back to their own pace.
	followed      atomic.Pointer[sites.Book]
	unshadowed    []string
	unshadowedAny atomic.Bool // len(unshadowed) > 0, read off d.mu
	// hintSeen is URL -> newest date a source gave it, under its own lock: every
	// stored page looks itself up (AwaitHint) and must not wait on d.mu, which a
	// large sitemap's read holds for its whole parse.
	hintMu   sync.Mutex
	hintSeen map[string]time.Time
	entries  map[string][]string // unit -> its seed pages (PollEntry), polled while not covered
	// shadowed is, per site, its sources another of its sources covers (Coverage),
	// each with the one covering it: the Poller reads them at its longest interval.
	// coverMu orders the Coverage's verdicts and their passing to the Poller, so
	// that two reads of one site at once cannot leave the older verdict in force.
	shadowed  map[string]map[string]string
	coverMu   sync.Mutex
	removed   map[string]*sites.Book        // sites the operator removed, by name, with the book before: their hosts' sources are not polled (steer.go)
	parked    map[string]discover.PollState // what the Poller had learned of removed sites' sources, by URL
	listed    map[string][]uint64           // source -> sorted hashes of the URLs its last read listed (small sources)
	noted     map[string]bool               // documents whose problem was logged (problems.go)
	announced map[string]bool               // feeds pages announced by <link rel="alternate">
	probed    map[string]bool               // /sitemap.xml asked for where robots.txt names none (a 404 there is no problem)
	nListed   int                           // hashes in listed, bounded by maxListedTotal
	ahead     aheadMarks                    // URLs a read just listed as new, to go ahead on their lane

	// changes counts what changed the kept state (state.go); saved and
	// savedAt are the count and time of its last write (tick and Stop only).
	changes atomic.Int64
	saved   int64
	savedAt time.Time
}

// siteDiscovery is what discovery knows of one unit (units.go), for the snapshot.
type siteDiscovery struct {
	feeds, sitemaps map[string]bool
	trust           discover.Trust
	// counts are what its documents gave, by the host that served them: a live
	// change of the site book moves hosts between units, and their counts with
	// them (units.go).
	counts map[string]*tally
	// refused is, per sitemap, how many pages of the site's own hosts its last read
	// had to refuse (off_host): hosts whose robots.txt does not name it, or has not
	// been read yet. While any is above zero the sitemaps miss part of the site.
	refused map[string]int
	// problems is, per document of the site, why its last read yielded nothing.
	problems map[string]string
	// sitemapReads counts its sitemap reads: "lastmod is always now" shows from the
	// second (discover.Trust), so dates from the first are not relied on (AwaitHint).
	sitemapReads int
}

// New builds the discovery state of a crawl: c is the crawl it queues for, st its
// store (the discovery state is kept in its meta table; nil keeps nothing). Call
// Load before the crawl fetches anything.
func New(opts Options, c Crawl, st Store) *Discovery {
	o := opts.Discovery
	// With a budget the reads are a rate to spend: lateness in the lane's queue
	// does not lower it (discover.Poller.KeepPace).
	budgeted := o.PollBudget > 0 || o.FetchBudget > 0
	d := &Discovery{
		c:         c,
		st:        st,
		opts:      opts,
		tree:      discover.NewTree(),
		poller:    &discover.Poller{MinInterval: o.MinPoll, MaxInterval: o.MaxPoll, RateHalfLife: o.RateHalfLife, Budget: o.PollBudget, FetchBudget: o.FetchBudget, KeepPace: budgeted},
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
		removed:   map[string]*sites.Book{},
		parked:    map[string]discover.PollState{},
		noted:     map[string]bool{},
		announced: map[string]bool{},
		probed:    map[string]bool{},
	}
	d.followed.Store(d.book())
	return d
}

// seeds returns the configured sitemaps and feeds to queue with the seeds.
func (d *Discovery) Seeds() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, u := range d.opts.Discovery.Sitemaps {
		if n, err := frontier.Normalize(u); err == nil {
			d.siteWide[n] = true
			d.tree.Root(d.unitOf(hostOf(n)), n)
			out = append(out, n)
		}
	}
	for _, u := range d.opts.Discovery.Feeds {
		if n, err := frontier.Normalize(u); err == nil {
			d.siteWide[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Read is the frontier side of discovery for one fetched response: it
// queues the origin's sitemaps, turns a feed's or sitemap's entries into the page's
// links (res.Links, queued by savePage like any links) and applies date hints. It
// returns the source's state for scheduling (nil for an ordinary page).
func (d *Discovery) Read(t frontier.Task, res *fetch.Result, prev *revisit.Page, at time.Time) *discover.Doc {
	if d == nil {
		return nil
	}
	d.follow()
	if res.RobotsRead {
		d.RobotsSitemaps(t, res)
	}
	if res.DiscoveryError != "" {
		d.mu.Lock()
		d.site(t.Host).at(t.Host).warnings["unreadable"]++
		d.mu.Unlock()
		d.c.Count("discovery_unreadable")
	}
	if len(res.Feeds) > 0 {
		d.announce(res)
		res.Links = append(res.Links[:len(res.Links):len(res.Links)], res.Feeds...)
	}
	if res.FeedsDropped > 0 {
		d.feedLinksDropped(t, res)
	}
	doc := res.Discovered
	if doc == nil && res.DiscoveredKind != "" && len(res.Body) > 0 {
		// From a worker (M4): the parsed document stayed there; the body came raw,
		// and is read as the worker read it (its URL, its Content-Type's charset).
		parsed, err := discover.ParseFrom(res.Body, documentSource(t, res), discover.Limits{MaxBytes: int64(d.opts.MaxBodyBytes)})
		if err == nil || len(parsed.Entries) > 0 {
			doc = &parsed
		}
	}
	if doc == nil {
		if res.DiscoveryError != "" {
			d.documentProblem(t, res.DiscoveryError, true)
		}
		return nil
	}
	due, dated := d.readDocument(t, res, doc, prev, at)
	d.documentRead(t, res, doc)
	if len(due) > 0 {
		// Store reads and the requeue, off d.mu (as refetchResults does for rounds).
		d.hintDue(due, at)
	}
	if len(dated) > 0 {
		d.hintDueIfOlder(dated, d.unitOf(t.Host), at)
	}
	return doc
}

// readDocument applies one parsed feed or sitemap: its entries (or an index's
// children) become res.Links under the scope rule, its dates teach the site's Trust,
// and it returns the stored pages to make due now: those a trusted moved date
// names, and the site's entry pages when this read opened a gap in what its
// sitemaps cover (PollEntry then polls them until the gap closes). dated are the
// entries of a trusted site dated after the source's last read that gave no date
// before (the first read after a restart: the dates are not kept; or a new entry):
// due if a stored copy is older than its date (hintDueIfOlder).
func (d *Discovery) readDocument(t frontier.Task, res *fetch.Result, doc *discover.Doc, prev *revisit.Page, at time.Time) (due []string, dated map[string]time.Time) {
	src := t.URL
	siteName := d.unitOf(t.Host)
	d.mu.Lock()
	defer d.mu.Unlock()
	sd := d.site(t.Host)
	tl := sd.at(t.Host)
	d.sources[src] = doc.Kind
	d.changes.Add(1)
	if doc.Kind == discover.KindFeed {
		sd.feeds[src] = true
	} else {
		sd.sitemaps[src] = true
		sd.sitemapReads++
	}
	for k, n := range doc.Warnings {
		tl.warnings[k] += n
		d.c.Count("discovery_" + k)
	}
	var links []string
	if doc.Kind == discover.KindIndex {
		for _, c := range doc.Entries {
			if !discover.Allowed(discover.KindSitemap, src, c.URL, d.crossOf(src)) && !d.siteWideOK(src, c.URL) {
				tl.warnings["off_host"]++
				continue
			}
			if why := d.tree.Child(siteName, src, c.URL); why != "" {
				if why != "sitemap_loop" { // a known child listed again is the normal case
					tl.warnings[why]++
					d.c.Count("discovery_" + why)
					// On the document too, already counted above: documentRead's
					// log line then names the index whose children were refused.
					if doc.Warnings == nil {
						doc.Warnings = map[string]int{}
					}
					doc.Warnings[why]++
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
			if doc.Kind == discover.KindFeed && d.opts.Discovery.FeedItemsOffSite && discover.Allowed(doc.Kind, en.URL, en.URL, nil) {
				// One hop off the site (extractLinks lets it past the scope); its date
				// is no hint: the feed's site does not speak for another's pages.
				links = append(links, en.URL)
				continue
			}
			tl.warnings["off_host"]++
			if d.unitOf(hostOf(en.URL)) == siteName {
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
				tl.warnings["off_host"]++
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
	tl.found += int64(len(links))
	res.Links = links
	if len(moved) > 0 {
		if !trusted {
			tl.ignored += int64(len(moved))
			if !d.warned[siteName] {
				d.warned[siteName] = true
				d.c.Logf(view.LevelWarn, t.Host, "dates of %s are ignored: %s", siteName, why)
			}
		} else {
			tl.hints += int64(len(moved))
			for _, u := range moved {
				d.hint(u, siteName)
			}
			due = append(due, moved...)
		}
	}
	return due, dated
}

// covers says whether the feeds and sitemaps the crawl knows of announce every
// page of host's site: a feed speaks for its whole site; sitemaps do when their
// last reads refused none of the site's own pages. A refusal for want of a
// cross-submission not yet read lasts until the sitemap is read again after the
// section host's robots.txt vouched for it (the entry page is polled meanwhile, and
// its links to that host are what bring its robots.txt in). Only sources on host's
// own unit count: of nine news sites declared on the hosts of one registered domain,
// one's sitemap does not stop the polling of the others' front pages, which it does
// not list.
func (d *Discovery) covers(host string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.sites[d.unitOf(host)]
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
func (d *Discovery) siteWideOK(src, page string) bool {
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
func (d *Discovery) crossOf(src string) []string {
	var out []string
	for i := 0; src != "" && i <= discover.MaxIndexDepth; i, src = i+1, d.parent[src] {
		out = append(out, d.cross[src]...)
	}
	return out
}

// RobotsSitemaps queues the sitemaps an origin's robots.txt names, or its
// /sitemap.xml when it names none (the usual place; a 404 costs one request).
func (d *Discovery) RobotsSitemaps(t frontier.Task, res *fetch.Result) {
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
	if len(list) == 0 && d.probes(u.Hostname()) {
		list = []string{origin + "/sitemap.xml"}
		if n, err := frontier.Normalize(list[0]); err == nil {
			d.probed[n] = true
		}
	}
	var admitted []string
	for _, raw := range list {
		n, err := frontier.Normalize(strings.TrimSpace(raw))
		if err != nil {
			d.site(t.Host).at(t.Host).warnings["bad_sitemap_url"]++
			continue
		}
		if hostOf(n) != u.Hostname() {
			// Cross-submission: this host's robots.txt vouches for the sitemap
			// listing its URLs (sitemaps.org, "Sitemaps & Cross Submits").
			if !slices.Contains(d.cross[n], u.Hostname()) { // kept from an earlier run too
				d.cross[n] = append(d.cross[n], u.Hostname())
			}
		}
		if d.tree.Root(d.unitOf(hostOf(n)), n) {
			admitted = append(admitted, n)
		}
	}
	d.mu.Unlock()
	if len(admitted) > 0 {
		d.c.QueueSitemaps(admitted)
	}
}

// IsSource says whether u is a known feed or sitemap of this run (false when
// discovery is off: d is nil).
func (d *Discovery) IsSource(u string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.sources[u]
	return ok
}
