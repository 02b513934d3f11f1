package front

import (
	"net/url"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/store"
)

// Extract turns a page's links into store rows: normalised, in scope, and not known
// to the dedupe filter (M4, seed 002: LRU of recent URLs, then the Bloom filter, then
// the store's unique index). A Bloom "maybe" is checked against the store, so a false
// positive never drops a new URL; the INSERT OR IGNORE that follows is the final word.
//
// known, when not nil, collects the links dropped as already seen (M3: a round
// refetches those still inside their class window). The Claims go with the rows to
// SubmitLinks, which counts the false positives among them.
func (f *Front) Extract(t frontier.Task, res *fetch.Result, known *[]string) ([]store.URL, Claims) {
	return f.ExtractLinks(t, res, known, "")
}

// Claims are the rows of one batch of links that the Bloom filter called Maybe and
// the store did not hold when asked (nil when none). Such a link is a false positive
// only if this batch's own insert is the one the store takes: another lane may have
// recorded the same URL as New a moment before, its insert still in the writer's
// queue, and that insert must not be counted as this batch's rescue. So the claim
// travels with its batch, not in a table by URL that any batch's insert would settle.
type Claims map[string]struct{}

// ExtractLinks is Extract; doc, when not "", says res.Links are the entries of the
// feed or sitemap t fetched (the discovery's read of it). Those of its own site (registered domain)
// are what the site announces as its pages: a trap guard's guess that a URL space
// runs without end does not overrule the site's own list (a feed may date an event
// years ahead; a sitemap may list a product page whose path holds a model number).
// The page budgets still apply when they are placed. A feed's items on other sites
// (discovery let them through under discovery.feed_items_off_site) pass the
// scope's site rule, one hop, past the trap guards too (a leaf cannot run off), and
// are otherwise checked as any link is.
func (f *Front) ExtractLinks(t frontier.Task, res *fetch.Result, known *[]string, doc discover.Kind) (out []store.URL, maybe Claims) {
	parent := frontier.Hash(t.URL)
	page := res.FinalURL
	if page == "" {
		page = t.URL
	}
	base, err := frontier.ParseBase(page)
	if err != nil {
		return nil, nil
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
	et := f.Opts.EtiquetteFor(t.Host)
	if et.PageDirectives && res.Robots.NoFollow {
		return nil, nil
	}
	links := res.Links
	nAnnounced, docSite := 0, "" // res.Links come first: the document's entries
	if doc != "" {
		nAnnounced, docSite = len(links), frontier.Site(t.Host)
	}
	if !et.RelNofollow && len(res.NofollowLinks) > 0 {
		links = append(links[:len(links):len(links)], res.NofollowLinks...)
	}
	if res.Canonical != "" && !f.canonicalStands(base, page, res.Canonical) {
		links = append(links, res.Canonical) // another host's: only a link
	}
	// A feed the page announces (<link rel="alternate">) is a document the site names,
	// not a step of a URL series: a year archive's feed (/year/2012/index.xml) is no
	// calendar running off. page.MaxFeedLinks bounds how many one page gives.
	var feeds map[string]bool
	if len(res.Feeds) > 0 {
		feeds = make(map[string]bool, len(res.Feeds))
		for _, raw := range res.Feeds {
			feeds[raw] = true
		}
	}
	var seen linkSet
	var pageURL *url.URL // for the query-growth trap guard
	if f.Traps != nil {
		pageURL, _ = url.Parse(page)
	}
	cands := make([]string, 0, len(links))
	var parsed url.URL // the link being checked, when ParseCanonical reads it
	for i, raw := range links {
		n, checked, err := base.ResolveCanonical(raw)
		if err != nil {
			if k := URLErrKind(err); k != frontier.KindScheme {
				f.Counters.AddError("link_" + k)
			}
			continue
		}
		if c := f.Variants.Collapse(n); c != n {
			n, checked = c, false
		}
		if !seen.add(n) {
			continue
		}
		if f.Variants.StandsFor(n) {
			f.Counters.AddError(SkipCanonicalVariant)
			continue
		}
		u := &parsed // the scope and the trap guard read it, and keep nothing of it
		var read bool
		if checked { // the link's canonical form was checked as it was resolved
			read = frontier.ParseCanonicalChecked(n, u)
		} else {
			read = frontier.ParseCanonical(n, u)
		}
		if !read {
			if u, err = url.Parse(n); err != nil {
				continue
			}
		}
		if ok, reason := f.Scope.Allows(u, t.Depth+1); !ok {
			if !(reason == frontier.ReasonOffSite && doc == discover.KindFeed && i < nAnnounced) {
				f.Counters.SkipOutOfScope(reason)
				continue
			}
			if ok, reason = f.Scope.AllowsOffSite(u, t.Depth+1); !ok {
				f.Counters.SkipOutOfScope(reason)
				continue
			}
		}
		// An entry of the site's own feed or sitemap is no trap candidate, nor is a
		// feed's item on another site: one hop past the scope, it is a leaf, and a
		// URL space that cannot be followed cannot run without end.
		listed := i < nAnnounced && (doc == discover.KindFeed || u.Hostname() == t.Host || frontier.Site(u.Hostname()) == docSite)
		if !listed && !feeds[raw] {
			if kind := f.Traps.Check(u, pageURL); kind != "" {
				f.trapped(t, n, kind)
				continue
			}
		}
		cands = append(cands, n)
	}
	verdicts := f.Dedupe.CheckURLs(cands) // the page's links in one batch (M4: LRU, then Bloom)
	f.markFresh(cands, verdicts)
	fresh := 0 // the records are large: room for every link the dedupe did not know, at once
	for _, v := range verdicts {
		if v != frontier.Recent {
			fresh++
		}
	}
	if fresh > 0 {
		out = make([]store.URL, 0, fresh)
	}
	for i, n := range cands {
		switch verdicts[i] {
		case frontier.Recent:
			if known != nil {
				if *known == nil { // most of a page's links are known: room for the rest at once
					*known = make([]string, 0, len(cands)-i)
				}
				*known = append(*known, n)
			}
			continue
		case frontier.Maybe:
			// The Bloom filter claims it: only the store's unique index can tell a
			// duplicate from a false positive.
			f.Counters.DedupeStoreChecks.Add(1)
			if _, err := f.Store.URLState(n); err == nil {
				if known != nil {
					*known = append(*known, n)
				}
				continue // a true duplicate
			}
			// Not in the store yet: a Bloom false positive if this batch's insert
			// is the one the store takes while no batch that found it New is on
			// its way (SubmitLinks counts it then), or a link whose first insert
			// is still to come or in the writer's queue.
			if maybe == nil {
				maybe = Claims{}
			}
			maybe[n] = struct{}{}
		}
		rec := f.LinkRecord(n, parent, t.Depth+1)
		sites.Inherit(t, &rec)
		out = append(out, rec)
	}
	return out, maybe
}

// markFresh records the links the dedupe called New as on their way to the store,
// until SubmitLinks hears back from their insert. Marked as soon as the verdicts
// are in, before the store lookups of the page's other links: another lane's
// "maybe" for one of them can come any time after the dedupe recorded it.
func (f *Front) markFresh(cands []string, verdicts []frontier.Verdict) {
	locked := false
	for i, v := range verdicts {
		if v != frontier.New {
			continue
		}
		if !locked {
			f.Mu.Lock()
			defer f.Mu.Unlock()
			locked = true
		}
		f.fresh[cands[i]]++
	}
}

// canonicalStands resolves a page's rel=canonical href against its base and
// reports whether it stands for the page fetched as page (frontier.Canonicals);
// false leaves it to be queued as a link.
func (f *Front) canonicalStands(base *frontier.Base, page, href string) bool {
	stands, remembered := f.Variants.Declared(base, page, href)
	if remembered {
		f.Counters.AddError(SkipCanonicalVariant)
	}
	return stands
}

// linkSet is the set of a page's links seen so far: a list while short (most
// pages' link lists are, and a map costs allocations a page), a map past that.
type linkSet struct {
	list [maxListedLinks]string
	n    int
	m    map[string]struct{}
}

// maxListedLinks is how many links linkSet searches in a list.
const maxListedLinks = 32

// add adds n, reporting whether it is new.
func (s *linkSet) add(n string) bool {
	if s.m != nil {
		if _, ok := s.m[n]; ok {
			return false
		}
		s.m[n] = struct{}{}
		return true
	}
	for _, l := range s.list[:s.n] {
		if l == n {
			return false
		}
	}
	if s.n < len(s.list) {
		s.list[s.n] = n
		s.n++
		return true
	}
	s.m = make(map[string]struct{}, 2*len(s.list))
	for _, l := range s.list {
		s.m[l] = struct{}{}
	}
	s.m[n] = struct{}{}
	return true
}
