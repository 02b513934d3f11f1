package discover

import (
	"cmp"
	"slices"
	"sync"
)

// Coverage learns which of a site's sources list nothing that another does not list
// at least as soon, so that the Poller stops spending reads on them. Sites announce
// the same articles in several places: an RSS and an Atom feed of the same items, a
// category feed inside the main one, an archive sitemap whose new entries are the
// news sitemap's of two days ago, a sitemap that may speak only for the host it sits
// on beside a front page that links every section. Polled each at its own learned
// rate, every one of them counts the same articles as news and takes a full share of
// the polls (live discovery bench, seed 1 at half a read per article: about one read
// in eight went to a source another had already read the same articles from).
//
// The test is pairwise and empirical. Each source keeps its last Window URLs listed
// anew (not in its previous read). Such a URL, listed anew by B, is judged against
// another source A at once if A has listed it already (covered), or else at A's
// first read after it: covered if A listed it then. (The site remembers which of its
// sources listed each of its last SiteMemory URLs: an archive's new entries are the
// ones that just left the news sitemap, listed there for two days before.) A covers B when, of at least MinJudged of
// B's URLs judged against A, a share of at least Share were covered. A source
// covered by one that is not itself shadowed is shadowed: the Poller reads it at its
// longest interval only (Poller.Shadow), and keeps judging it, so that when the
// covering source stops listing what it lists (dies, shrinks, moves) its next
// reads bring uncovered URLs and it is read at its own rate again. Two sources that
// cover each other (the same items twice) keep the one that lists more, then the
// first by URL. At least one source of a site is never shadowed.
//
// A read's listing is what the crawl would take from it (in scope, not refused), so
// a sitemap that lists a section host it may not speak for covers nothing there.
// What is learned lives in memory only: after a restart every source is read at its
// own rate until the coverage shows again (MinJudged of its new URLs). Only sites
// with two sources or more keep anything: their sources' last listings and the
// listers of their last SiteMemory URLs (measured: 56 KiB a site with a 1,000-URL
// sitemap and a 50-item feed).
//
// It is safe for concurrent use.
type Coverage struct {
	Window     int     // URLs listed anew remembered per source (default 32)
	MinJudged  int     // judged URLs before a verdict (default 8)
	Share      float64 // covered share that makes A cover B (default 0.9)
	SiteMemory int     // URLs per site whose listers are remembered (default 1024)

	mu    sync.Mutex
	sites map[string]*coverSite
}

// maxCoverSources is the sources per site the judgments can name (bits of a uint64);
// a site's further sources are never shadowed.
const maxCoverSources = 64

type coverSite struct {
	srcs     []*coverSource // index: its bit
	idx      map[string]int
	listedBy map[uint64]uint64 // URL hash -> the sources that have listed it
	order    []uint64          // listedBy's keys, oldest first (evicted past SiteMemory)
}

type coverSource struct {
	url     string
	gone    bool     // forgotten: judges nothing, shadows nothing
	read    bool     // listing holds a read
	listing []uint64 // sorted hashes of its last read's URLs
	size    int      // largest listing seen (the tie-break between mutual covers)
	ring    []coverEntry
	next    int
}

type coverEntry struct {
	h               uint64
	judged, covered uint64 // by source bit
}

func (c *Coverage) defaults() (window, minJudged int, share float64, memory int) {
	window, minJudged, share, memory = c.Window, c.MinJudged, c.Share, c.SiteMemory
	if memory <= 0 {
		memory = 1024
	}
	if window <= 0 {
		window = 32
	}
	if minJudged <= 0 {
		minJudged = 8
	}
	if share <= 0 {
		share = 0.9
	}
	return
}

// Observe records one read of src, a source of site, whose listing is the hashes of
// the URLs it gave (any order; nil for a 304: the same as its last read). It returns
// the site's shadowed sources after the read, each with the source covering it.
func (c *Coverage) Observe(site, src string, listing []uint64) map[string]string {
	window, _, _, memory := c.defaults()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sites == nil {
		c.sites = map[string]*coverSite{}
	}
	s := c.sites[site]
	if s == nil {
		s = &coverSite{idx: map[string]int{}, listedBy: map[uint64]uint64{}}
		c.sites[site] = s
	}
	i, ok := s.idx[src]
	if !ok {
		if len(s.srcs) >= maxCoverSources {
			return c.shadowedLocked(s)
		}
		i = len(s.srcs)
		s.idx[src] = i
		s.srcs = append(s.srcs, &coverSource{url: src})
	}
	x := s.srcs[i]
	x.gone = false
	active := 0
	for _, o := range s.srcs {
		if !o.gone {
			active++
		}
	}
	if active < 2 {
		// A site's only source covers nothing and is covered by nothing: nothing
		// of it is kept (most sites of a wide crawl) until a second one comes.
		return nil
	}
	if listing == nil {
		if !x.read {
			return c.shadowedLocked(s) // a 304 before any read it has listed
		}
		listing = x.listing
	} else {
		listing = slices.Clone(listing)
		slices.Sort(listing)
		listing = slices.Compact(listing)
	}
	bit := uint64(1) << i
	// This read is the first since every URL the others hold unjudged for it.
	for j, o := range s.srcs {
		if j == i {
			continue
		}
		for k := range o.ring {
			e := &o.ring[k]
			if e.judged&bit != 0 {
				continue
			}
			e.judged |= bit
			if _, found := slices.BinarySearch(listing, e.h); found {
				e.covered |= bit
			}
		}
	}
	// What it lists anew, judged at once by the sources that listed it already.
	if x.read {
		for _, h := range listing {
			if _, found := slices.BinarySearch(x.listing, h); found {
				continue
			}
			before := s.listedBy[h] &^ bit
			e := coverEntry{h: h, judged: before, covered: before}
			if len(x.ring) < window {
				x.ring = append(x.ring, e)
			} else {
				x.ring[x.next] = e
				x.next = (x.next + 1) % window
			}
		}
	}
	for _, h := range listing {
		by, ok := s.listedBy[h]
		if !ok {
			s.order = append(s.order, h)
		}
		s.listedBy[h] = by | bit
	}
	if over := len(s.order) - memory; over > 0 {
		for _, h := range s.order[:over] {
			delete(s.listedBy, h)
		}
		s.order = slices.Delete(s.order, 0, over)
	}
	x.read, x.listing, x.size = true, listing, max(x.size, len(listing))
	return c.shadowedLocked(s)
}

// Shadowed returns the site's shadowed sources, each with the source covering it.
func (c *Coverage) Shadowed(site string) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.sites[site]; s != nil {
		return c.shadowedLocked(s)
	}
	return nil
}

// Forget drops src (no longer a source: an entry page its site's feeds now cover).
func (c *Coverage) Forget(site, src string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.sites[site]; s != nil {
		if i, ok := s.idx[src]; ok {
			x := s.srcs[i]
			x.gone, x.read, x.listing, x.ring, x.next = true, false, nil, nil, 0
		}
	}
}

// covers says whether a covers b: of b's remembered URLs judged against a, enough
// were, and enough of them a listed.
func (c *Coverage) covers(s *coverSite, a, b int) bool {
	_, minJudged, share, _ := c.defaults()
	bit := uint64(1) << a
	judged, covered := 0, 0
	for _, e := range s.srcs[b].ring {
		if e.judged&bit != 0 {
			judged++
			if e.covered&bit != 0 {
				covered++
			}
		}
	}
	return judged >= minJudged && float64(covered) >= share*float64(judged)
}

// shadowedLocked decides the site's shadowed sources, best first (larger listing,
// then URL): a source is shadowed by one that covers it and is not shadowed when it
// is decided, unless the two cover each other and it is the better. The last decided
// can only be shadowed by one decided standing before it, so one always stands.
func (c *Coverage) shadowedLocked(s *coverSite) map[string]string {
	order := make([]int, 0, len(s.srcs))
	for i, x := range s.srcs {
		if !x.gone && x.read {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return nil
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(s.srcs[b].size, s.srcs[a].size); c != 0 {
			return c
		}
		return cmp.Compare(s.srcs[a].url, s.srcs[b].url)
	})
	rank := make(map[int]int, len(order))
	for r, i := range order {
		rank[i] = r
	}
	shadowed := map[int]bool{}
	var out map[string]string
	for _, b := range order {
		for _, a := range order {
			if a == b || shadowed[a] || !c.covers(s, a, b) {
				continue
			}
			if c.covers(s, b, a) && rank[b] < rank[a] {
				continue // the same items twice: b is the one kept
			}
			shadowed[b] = true
			if out == nil {
				out = map[string]string{}
			}
			out[s.srcs[b].url] = s.srcs[a].url
			break
		}
	}
	return out
}
