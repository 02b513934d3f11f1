package discover

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"sync"
)

// Coverage learns which of a site's sources list nothing that another does not list
// as soon, so that the Poller stops spending reads on them. Sites announce the same
// articles in several places: an RSS and an Atom feed of the same items, a category
// feed inside the main one, an archive sitemap whose new entries are the news
// sitemap's of two days ago, a sitemap that may speak only for the host it sits on
// beside a front page that links every section. Polled each at its own learned rate,
// every one of them counts the same articles as news and takes a full share of the
// polls (live discovery bench, seed 1 at half a read per article: about one read in
// eight went to a source another had already read the same articles from).
//
// The test is pairwise and empirical. Each source keeps its last Window URLs listed
// anew (not in its previous read). Such a URL, listed anew by B, is judged against
// another source A: at once if A has listed it already (covered, and A was first), or
// else at A's first read after it, covered if A listed it then. Only a read at A's own
// pace judges: a shadowed A, read at the longest interval, would list everything the
// others had listed hours before and look like it covers them. (The site remembers
// which of its sources listed each of its last SiteMemory URLs: an archive's new
// entries are the ones that just left the news sitemap, listed there for two days.)
// A covers B when, of at least MinJudged of B's URLs judged against A, at least a
// share Share were covered: B may bring up to 1-Share of its URLs first and still be
// read at the longest interval only, where they wait for its next read.
//
// A source covered by one that is not itself shadowed is shadowed: the Poller reads
// it at its longest interval only (Poller.Shadow) and it keeps being judged, so that
// when its coverer stops listing what it lists its next read brings uncovered URLs
// and it is read at its own rate again. A coverer that stops answering (a failed
// read, an empty listing) is forgotten at once (Forget). Two sources that cover each
// other keep the one that was first more often, then the one that lists more, then
// the first by URL. The verdicts follow the covers in order: a source that only
// shadowed sources cover stands.
//
// A read's listing is what the crawl would take from it (in scope, not refused), so
// a sitemap that lists a section host it may not speak for covers nothing there.
// What each source judged is kept across a restart (Export, Import: about 1.4 KiB a
// source), so the verdicts stand from the start; the listings are not (up to
// thousands of URLs a sitemap), so a source lists nothing anew before its second read
// after one. Only sites
// with two sources or more keep anything: their sources' last listings and the
// listers of their last SiteMemory URLs (measured: 57 KiB a site with a 1,000-URL
// sitemap and a 50-item feed), and at most MaxSites of them (a site past that is
// never shadowed).
//
// It is safe for concurrent use.
type Coverage struct {
	Window     int     // URLs listed anew remembered per source (default 32)
	MinJudged  int     // judged URLs before a verdict (default 8)
	Share      float64 // covered share that makes A cover B (default 0.9)
	SiteMemory int     // URLs per site whose listers are remembered (default 1024)
	MaxSites   int     // sites with two sources or more watched (default 2048: about 115 MiB at 57 KiB a site)

	mu      sync.Mutex
	sites   map[string]*coverSite
	watched int // sites keeping listings
}

// maxCoverSources is the sources per site the judgments can name (bits of a uint64);
// a site's further sources are never shadowed.
const maxCoverSources = 64

type coverSite struct {
	srcs     []*coverSource // index: its bit
	idx      map[string]int
	watched  bool              // counted in Coverage.watched: keeps listings
	listedBy map[uint64]uint64 // URL hash -> the sources that have listed it
	order    []uint64          // listedBy's keys, oldest first (evicted past SiteMemory)
	shadow   uint64            // the last verdict's shadowed sources
}

type coverSource struct {
	url     string
	gone    bool     // forgotten: judges nothing, shadows nothing
	read    bool     // listing holds a read
	kept    bool     // its judgments were kept from an earlier run (Import), not read since
	listing []uint64 // sorted hashes of its last read's URLs
	size    int      // largest listing seen (a tie-break between mutual covers)
	ring    []coverEntry
	next    int
}

type coverEntry struct {
	h uint64
	// By source bit: judged against it, covered by it, and listed by it first
	// (before this source listed it anew).
	judged, covered, first uint64
}

func (c *Coverage) defaults() (window, minJudged int, share float64, memory, sites int) {
	window, minJudged, share, memory, sites = c.Window, c.MinJudged, c.Share, c.SiteMemory, c.MaxSites
	if memory <= 0 {
		memory = 1024
	}
	if sites <= 0 {
		sites = 2048
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
	window, _, _, memory, maxSites := c.defaults()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sites == nil {
		c.sites = map[string]*coverSite{}
	}
	s := c.sites[site]
	if s == nil {
		s = &coverSite{idx: map[string]int{}}
		c.sites[site] = s
	}
	i, ok := s.idx[src]
	if !ok {
		if len(s.srcs) >= maxCoverSources {
			return c.verdictLocked(s)
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
	if !s.watched {
		if c.watched >= maxSites {
			return nil
		}
		s.watched, s.listedBy = true, map[uint64]uint64{}
		c.watched++
	}
	if listing == nil {
		if !x.read {
			return c.verdictLocked(s) // a 304 before any read it has listed
		}
		listing = x.listing
	} else {
		listing = slices.Clone(listing)
		slices.Sort(listing)
		listing = slices.Compact(listing)
	}
	bit := uint64(1) << i
	if s.shadow&bit == 0 {
		// A read at its own pace: the first since every URL the others hold
		// unjudged for it.
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
	}
	// What it lists anew, judged at once by the sources that listed it already.
	if x.read {
		for _, h := range listing {
			if _, found := slices.BinarySearch(x.listing, h); found {
				continue
			}
			before := s.listedBy[h] &^ bit
			e := coverEntry{h: h, judged: before, covered: before, first: before}
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
	x.read, x.kept, x.listing, x.size = true, false, listing, max(x.size, len(listing))
	return c.verdictLocked(s)
}

// Shadowed returns the site's shadowed sources, each with the source covering it.
func (c *Coverage) Shadowed(site string) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.sites[site]; s != nil {
		return c.verdictLocked(s)
	}
	return nil
}

// Forget drops src: no longer a source (an entry page its site's feeds now cover, a
// removed site's feed), or one whose read failed or listed nothing. What it listed
// and what it judged go with it; read again later, it starts afresh.
func (c *Coverage) Forget(site, src string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sites[site]
	if s == nil {
		return
	}
	i, ok := s.idx[src]
	if !ok {
		return
	}
	x := s.srcs[i]
	x.gone, x.kept, x.read, x.listing, x.ring, x.next = true, false, false, nil, nil, 0
	bit := uint64(1) << i
	for h, by := range s.listedBy {
		if by&bit != 0 {
			s.listedBy[h] = by &^ bit
		}
	}
	for _, o := range s.srcs {
		for k := range o.ring {
			e := &o.ring[k]
			e.judged, e.covered, e.first = e.judged&^bit, e.covered&^bit, e.first&^bit
		}
	}
	s.shadow &^= bit
}

// judge counts b's remembered URLs judged against a, those a covered, and those a
// listed first.
func (s *coverSite) judge(a, b int) (judged, covered, first int) {
	bit := uint64(1) << a
	for _, e := range s.srcs[b].ring {
		if e.judged&bit != 0 {
			judged++
			if e.covered&bit != 0 {
				covered++
			}
			if e.first&bit != 0 {
				first++
			}
		}
	}
	return
}

// verdictLocked decides the site's shadowed sources. a shadows b when a covers b,
// unless b covers a too and b is the one kept (first more often, then larger, then
// by URL). Those edges are taken in order (Kahn): b is shadowed when a source that
// shadows it stands. A source on a cycle of edges is shadowed only by a standing
// source off the cycle.
func (c *Coverage) verdictLocked(s *coverSite) map[string]string {
	_, minJudged, share, _, _ := c.defaults()
	var live []int
	for i, x := range s.srcs {
		if !x.gone && (x.read || x.kept) {
			live = append(live, i)
		}
	}
	s.shadow = 0
	if len(live) < 2 {
		return nil
	}
	type cov struct {
		ok    bool
		first int
	}
	covers := map[[2]int]cov{}
	for _, a := range live {
		for _, b := range live {
			if a == b {
				continue
			}
			judged, covered, first := s.judge(a, b)
			covers[[2]int{a, b}] = cov{judged >= minJudged && float64(covered) >= share*float64(judged), first}
		}
	}
	kept := func(b, a int) bool { // b rather than a, when they cover each other
		fb, fa := covers[[2]int{b, a}].first, covers[[2]int{a, b}].first
		if fb != fa {
			return fb > fa // b listed first more of a's URLs than a did of b's
		}
		if x, y := s.srcs[b].size, s.srcs[a].size; x != y {
			return x > y
		}
		return s.srcs[b].url < s.srcs[a].url
	}
	in := map[int][]int{} // b -> the sources that would shadow it
	for _, a := range live {
		for _, b := range live {
			if a == b || !covers[[2]int{a, b}].ok {
				continue
			}
			if covers[[2]int{b, a}].ok && kept(b, a) {
				continue
			}
			in[b] = append(in[b], a)
		}
	}
	// Kahn's order over the edges: a source is decided once every source that
	// would shadow it is; it is shadowed when one of them stands.
	indeg := map[int]int{}
	out := map[int][]int{}
	for b, as := range in {
		indeg[b] = len(as)
		for _, a := range as {
			out[a] = append(out[a], b)
		}
	}
	var ready []int
	for _, i := range live {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	shadowedBy := map[int]int{}
	for len(ready) > 0 {
		a := ready[0]
		ready = ready[1:]
		_, shadowed := shadowedBy[a]
		targets := out[a]
		slices.SortFunc(targets, func(x, y int) int { return cmp.Compare(s.srcs[x].url, s.srcs[y].url) })
		for _, b := range targets {
			if _, done := shadowedBy[b]; !shadowed && !done {
				shadowedBy[b] = a
			}
			if indeg[b]--; indeg[b] == 0 {
				ready = append(ready, b)
			}
		}
	}
	if len(shadowedBy) == 0 {
		return nil
	}
	res := make(map[string]string, len(shadowedBy))
	for b, a := range shadowedBy {
		res[s.srcs[b].url] = s.srcs[a].url
		s.shadow |= 1 << b
	}
	return res
}

// CoverState is what a site's Coverage learned, kept across a restart: its sources in
// the order their bits name them, each with its last Window URLs listed anew and
// their judgments.
type CoverState struct {
	Sources []CoverSourceState `json:"sources"`
}

// CoverSourceState is one source's part of a CoverState.
type CoverSourceState struct {
	URL  string `json:"url"`
	Gone bool   `json:"gone,omitempty"`
	Size int    `json:"size,omitempty"` // largest listing seen
	// Ring is its remembered URLs, oldest first: 32 bytes each (hash, then the
	// judged, covered and first bits, little-endian), base64.
	Ring string `json:"ring,omitempty"`
}

const coverEntryBytes = 32

// Export returns what each watched site learned, by site.
func (c *Coverage) Export() map[string]CoverState {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]CoverState{}
	for name, s := range c.sites {
		if !s.watched {
			continue
		}
		st := CoverState{Sources: make([]CoverSourceState, len(s.srcs))}
		for i, x := range s.srcs {
			b := make([]byte, 0, len(x.ring)*coverEntryBytes)
			for k := range x.ring {
				e := x.ring[(x.next+k)%len(x.ring)]
				b = binary.LittleEndian.AppendUint64(b, e.h)
				b = binary.LittleEndian.AppendUint64(b, e.judged)
				b = binary.LittleEndian.AppendUint64(b, e.covered)
				b = binary.LittleEndian.AppendUint64(b, e.first)
			}
			st.Sources[i] = CoverSourceState{URL: x.url, Gone: x.gone, Size: x.size, Ring: base64.StdEncoding.EncodeToString(b)}
		}
		out[name] = st
	}
	return out
}

// Import takes back what Export gave (an earlier run's), in place of anything known
// of those sites. A site's state that cannot be one (a damaged store: more sources
// than the bits name, a ring that does not decode) is left out and counted; that
// site learns afresh. It returns the sites left out.
func (c *Coverage) Import(states map[string]CoverState) (skipped int) {
	window, _, _, _, maxSites := c.defaults()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sites == nil {
		c.sites = map[string]*coverSite{}
	}
	for name, st := range states {
		s, ok := importCoverSite(st, window)
		if !ok {
			skipped++
			continue
		}
		old := c.sites[name]
		replaces := old != nil && old.watched
		if !replaces && c.watched >= maxSites {
			skipped++
			continue
		}
		c.sites[name] = s
		if !replaces {
			c.watched++
		}
	}
	return skipped
}

func importCoverSite(st CoverState, window int) (*coverSite, bool) {
	n := len(st.Sources)
	if n < 2 || n > maxCoverSources {
		return nil, false
	}
	s := &coverSite{idx: map[string]int{}, watched: true, listedBy: map[uint64]uint64{}}
	valid := uint64(1)<<n - 1
	if n == maxCoverSources {
		valid = ^uint64(0)
	}
	for i, xs := range st.Sources {
		b, err := base64.StdEncoding.DecodeString(xs.Ring)
		if _, dup := s.idx[xs.URL]; err != nil || xs.URL == "" || dup || len(b)%coverEntryBytes != 0 || xs.Size < 0 {
			return nil, false
		}
		x := &coverSource{url: xs.URL, gone: xs.Gone, kept: !xs.Gone, size: xs.Size}
		for len(b) > 0 {
			own := ^(uint64(1) << i)
			e := coverEntry{
				h:       binary.LittleEndian.Uint64(b),
				judged:  binary.LittleEndian.Uint64(b[8:]) & valid & own,
				covered: binary.LittleEndian.Uint64(b[16:]) & valid & own,
				first:   binary.LittleEndian.Uint64(b[24:]) & valid & own,
			}
			e.covered &= e.judged
			x.ring = append(x.ring, e)
			b = b[coverEntryBytes:]
		}
		if len(x.ring) > window { // the newest window
			x.ring = x.ring[len(x.ring)-window:]
		}
		x.next = 0 // the oldest, once the ring is full
		s.idx[xs.URL] = i
		s.srcs = append(s.srcs, x)
	}
	return s, true
}
