package feeds

import (
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// A feed's or sitemap's polls: its next read from the rate it shows (discover.Poller),
// what each read lists anew, and the sources of a site that cover each other
// (discover.Coverage).

// SchedulePoll sets a feed's or sitemap's next fetch from its learned publishing
// rate (discover.Poller), in place of the page revisit policy's, and bypassing the
// class window: a news feed is read as long as the crawl runs.
// listing is what the read gave the crawl (its links, new and known; nil for a 304).
// fresh are the read's links new to the crawl (nil for a 304).
func (d *Discovery) SchedulePoll(src string, doc *discover.Doc, fresh []model.URL, listing []string, rv *model.Revisit, at time.Time) {
	if rv == nil {
		return
	}
	d.follow()
	if d.removedSource(src) {
		d.poller.Forget(src)
		d.forgetCoverage(src)
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
	d.poller.ObserveRead(src, at, newLinks, len(fresh), full)
	if doc.Kind != discover.KindIndex {
		d.observeCoverage(src, listing, listing == nil)
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
func (d *Discovery) newSinceLastRead(src string, doc *discover.Doc) (n int, ok bool) {
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
// links of an entry page polled in place of feeds (PollEntry).
func (d *Discovery) listedAnew(src string, urls []string) (n int, ok bool) {
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
func (d *Discovery) forgetListed(src string) {
	d.mu.Lock()
	d.nListed -= len(d.listed[src])
	delete(d.listed, src)
	d.mu.Unlock()
	d.forgetCoverage(src)
}

// forgetCoverage takes src out of its site's Coverage (no longer a source, or its
// read failed or listed nothing): the sources it shadowed are read at their own
// rate again at once.
func (d *Discovery) forgetCoverage(src string) {
	site := d.unitOf(hostOf(src))
	d.coverMu.Lock()
	d.cover.Forget(site, src)
	freed := d.applyShadows(site, d.cover.Shadowed(site))
	d.coverMu.Unlock()
	d.resumePolls(freed, src)
}

// SourceFailed is a failed read (an HTTP error, a fetch error) of a feed, sitemap or
// polled entry page: it covers nothing while it fails, so what it shadowed is read at
// its own rate.
// Every failed fetch of the crawl passes here: it asks the Poller (which has seen every
// source Coverage has, first), never d.mu, which a large sitemap's read holds.
func (d *Discovery) SourceFailed(u string) {
	if d != nil && d.poller.Knows(u) {
		d.forgetCoverage(u)
	}
}

// observeCoverage tells the Coverage what a read of src listed (same: a 304, the
// same as its last read) and passes the site's shadowed sources to the Poller. A
// read that listed nothing, or more than maxListed URLs (an archive), takes the
// source out: it is never shadowed, and judges nothing.
func (d *Discovery) observeCoverage(src string, listing []string, same bool) {
	if len(listing) > maxListed || (len(listing) == 0 && !same) {
		d.forgetCoverage(src)
		return
	}
	var hs []uint64
	if !same {
		hs = make([]uint64, len(listing))
		for i, u := range listing {
			hs[i] = frontier.Hash(u)
		}
	}
	site := d.unitOf(hostOf(src))
	d.coverMu.Lock()
	freed := d.applyShadows(site, d.cover.Observe(site, src, hs))
	d.coverMu.Unlock()
	d.resumePolls(freed, src)
}

// applyShadows makes the Poller read a site's shadowed sources at its longest
// interval, and the others at their own rate again. It returns the sources no
// longer shadowed.
func (d *Discovery) applyShadows(site string, now map[string]string) (freed []string) {
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
func (d *Discovery) resumePolls(freed []string, but string) {
	if d.st == nil {
		return
	}
	for _, src := range freed {
		if next := d.poller.Next(src); src != but && !next.IsZero() { // zero: not polled (any more)
			d.st.SetRevisitNext([]string{src}, next)
		}
	}
}

// NotModified handles a 304 on the frontier side: a feed or sitemap brought
// nothing new (its next poll comes from its learned rate); a page refetched for a
// moved date did not change (the site's Trust learns it).
func (d *Discovery) NotModified(u string, rv *model.Revisit) {
	if d == nil {
		return
	}
	d.mu.Lock()
	kind, ok := d.sources[u]
	d.mu.Unlock()
	if ok {
		d.SchedulePoll(u, &discover.Doc{Kind: kind}, nil, nil, rv, d.c.Now())
		return
	}
	d.HintOutcome(u, false)
}
