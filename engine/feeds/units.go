package feeds

import (
	"slices"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/sites"
)

// What discovery keeps per site (its sources, their coverage, its date trust, its
// sitemap reads and counts, its polled entry pages) is kept per unit: a host's
// declared site, by name, as the site book resolves it (sites.Book.SiteOf: the
// most specific declaration wins), else its registered domain. It is the unit the
// book, the Sites pane and the cluster's dealing use, so nine news sites declared on
// the hosts of one organisation's domain keep nine rows: one's sitemap whose
// lastmod lies costs the others nothing, and one's sitemap does not cover the
// others' front pages.
//
// Live steering swaps the book whole. The next call into discovery after a swap
// (follow) moves each source, and what is kept by URL with it, to the unit it now
// belongs to. What is kept per unit only and cannot be split by source (the date
// trust evidence, the sitemap reads) goes with the sources: a unit that takes in
// the sources of another and has no evidence of its own takes that unit's. The
// counts (found, hints, warnings) are kept by the host that served the document,
// and go with their host: a row split over several sites leaves each its own
// hosts' counts, and none is lost (the metrics' counters are their sums). A moved
// source's coverage is learned again in its new unit.

// unitIn is host's unit under book b (nil: no site declared).
func unitIn(b *sites.Book, host string) string {
	if s := b.SiteOf(host); s != nil {
		return s.Name
	}
	return frontier.Site(host)
}

// book is the crawl's site book now (nil when no book is given).
func (d *Discovery) book() *sites.Book {
	if d.opts.Sites == nil {
		return nil
	}
	return d.opts.Sites()
}

// unitOf is host's unit under the crawl's site book now.
func (d *Discovery) unitOf(host string) string { return unitIn(d.book(), host) }

// row is the state of unit key, made when missing. Caller holds d.mu.
func (d *Discovery) row(key string) *siteDiscovery {
	s := d.sites[key]
	if s == nil {
		s = &siteDiscovery{feeds: map[string]bool{}, sitemaps: map[string]bool{}, counts: map[string]*tally{}, refused: map[string]int{}, problems: map[string]string{}}
		d.sites[key] = s
	}
	return s
}

// site is the state of host's unit. Caller holds d.mu.
func (d *Discovery) site(host string) *siteDiscovery { return d.row(d.unitOf(host)) }

// follow re-keys the state when live steering swapped the site book since the last
// call. Callers hold none of discovery's locks.
func (d *Discovery) follow() {
	if d == nil {
		return
	}
	d.rekeyed()
	if !d.unshadowedAny.Load() { // every call of a page's end passes here: no lock
		return
	}
	d.mu.Lock()
	freed := d.unshadowed
	d.unshadowed = nil
	d.unshadowedAny.Store(false)
	d.mu.Unlock()
	d.resumePolls(freed, "")
}

// rekeyed is follow without the store writes that bring the next reads of sources
// no longer shadowed back to their own pace: those wait for the next follow. For
// View, which the engine calls under its lock, where a store write may wait on the
// store's writer.
func (d *Discovery) rekeyed() {
	if d.followed.Load() == d.book() {
		return
	}
	d.coverMu.Lock()
	b := d.book()
	if d.followed.Load() == b {
		d.coverMu.Unlock()
		return
	}
	d.mu.Lock()
	moved := d.rekey(b)
	d.followed.Store(b)
	d.mu.Unlock()
	var freed []string
	for old, srcs := range moved {
		for _, src := range srcs {
			d.cover.Forget(old, src)
		}
		freed = append(freed, d.applyShadows(old, d.cover.Shadowed(old))...)
	}
	d.coverMu.Unlock()
	if len(freed) > 0 {
		d.mu.Lock()
		d.unshadowed = append(d.unshadowed, freed...)
		d.unshadowedAny.Store(true)
		d.mu.Unlock()
	}
	if len(moved) > 0 {
		d.changes.Add(1)
	}
}

// rekey moves every source, entry page and hinted fetch to its unit under b and
// returns, by the unit they left, the URLs that moved. Caller holds d.mu.
func (d *Discovery) rekey(b *sites.Book) map[string][]string {
	moved := map[string][]string{}
	went := map[string]map[string]bool{} // unit -> units its sources went to
	for _, key := range sortedKeys(d.sites) {
		sd := d.sites[key]
		for _, u := range rowURLs(sd) {
			to := unitIn(b, hostOf(u))
			if to == key {
				continue
			}
			dst := d.row(to)
			if sd.feeds[u] {
				dst.feeds[u] = true
			}
			if sd.sitemaps[u] {
				dst.sitemaps[u] = true
			}
			if n, ok := sd.refused[u]; ok {
				dst.refused[u] = n
			}
			if p, ok := sd.problems[u]; ok && len(dst.problems) < maxProblemsPerSite {
				dst.problems[u] = p
			}
			delete(sd.feeds, u)
			delete(sd.sitemaps, u)
			delete(sd.refused, u)
			delete(sd.problems, u)
			moved[key] = append(moved[key], u)
			if went[key] == nil {
				went[key] = map[string]bool{}
			}
			went[key][to] = true
		}
	}
	for _, key := range sortedKeys(d.sites) {
		sd := d.sites[key]
		for host, c := range sd.counts {
			if to := unitIn(b, host); to != key {
				d.row(to).at(host).add(c)
				delete(sd.counts, host)
			}
		}
	}
	for key, tos := range went {
		sd := d.sites[key]
		for to := range tos {
			inherit(d.sites[to], sd)
		}
		if len(rowURLs(sd)) == 0 && len(sd.counts) == 0 {
			delete(d.sites, key)
		}
	}
	for key, urls := range d.entries {
		for _, u := range urls {
			if to := unitIn(b, hostOf(u)); to != key {
				d.entries[key] = slices.DeleteFunc(d.entries[key], func(v string) bool { return v == u })
				if !slices.Contains(d.entries[to], u) {
					d.entries[to] = append(d.entries[to], u)
				}
				moved[key] = append(moved[key], u)
			}
		}
		if len(d.entries[key]) == 0 {
			delete(d.entries, key)
		}
	}
	for u, key := range d.hinted {
		if d.sites[key] == nil {
			d.hinted[u] = unitIn(b, hostOf(u))
		}
	}
	return moved
}

// rowURLs are the documents a unit's state holds by URL.
func rowURLs(sd *siteDiscovery) []string {
	var out []string
	for _, m := range []map[string]bool{sd.feeds, sd.sitemaps} {
		for u := range m {
			out = append(out, u)
		}
	}
	for u := range sd.refused {
		out = append(out, u)
	}
	for u := range sd.problems {
		out = append(out, u)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// inherit gives dst the date-trust evidence and sitemap reads of from, the unit
// some of its sources came from, where dst has learned none of its own: which of
// from's sources earned the evidence is not known.
func inherit(dst, from *siteDiscovery) {
	if ts := dst.trust.State(); len(ts.Hints) == 0 && len(ts.NowLike) == 0 {
		dst.trust.Restore(from.trust.State())
	}
	dst.sitemapReads = max(dst.sitemapReads, from.sitemapReads)
}

// tally is what one host's discovery documents gave its unit, for the Sites pane
// and the metrics.
type tally struct {
	found          int64 // URLs announced by its feeds and sitemaps
	hints, ignored int64 // date moves followed / ignored as untrusted
	warnings       map[string]int
}

// at is host's tally in the unit, made when missing. Caller holds d.mu.
func (sd *siteDiscovery) at(host string) *tally {
	c := sd.counts[host]
	if c == nil {
		c = &tally{warnings: map[string]int{}}
		sd.counts[host] = c
	}
	return c
}

// add adds o's counts to c.
func (c *tally) add(o *tally) {
	c.found += o.found
	c.hints += o.hints
	c.ignored += o.ignored
	for k, n := range o.warnings {
		c.warnings[k] += n
	}
}

// total is the unit's counts over its hosts.
func (sd *siteDiscovery) total() tally {
	t := tally{warnings: map[string]int{}}
	for _, c := range sd.counts {
		t.add(c)
	}
	return t
}
