package discover

import "sync"

// MaxIndexDepth is how deep sitemap indexes are followed. The protocol allows no
// index inside an index at all; sites do nest them (by year, then by month), so a
// few levels are followed and the rest refused with a warning. A root sitemap is
// depth 0.
const MaxIndexDepth = 3

// MaxSitemapsPerSite bounds how many sitemaps one site's indexes may bring in.
const MaxSitemapsPerSite = 1000

// Tree remembers the sitemaps of a crawl and how each was found, so that indexes are
// followed recursively but boundedly: a sitemap already known (an index that lists
// itself, or two indexes listing each other) is not admitted again, nor one deeper
// than MaxIndexDepth, nor more than MaxSitemapsPerSite per site. It is safe for
// concurrent use.
type Tree struct {
	mu      sync.Mutex
	depth   map[string]int
	perSite map[string]int
}

// NewTree returns an empty Tree.
func NewTree() *Tree { return &Tree{depth: map[string]int{}, perSite: map[string]int{}} }

// Root admits a sitemap found outside any index (robots.txt, /sitemap.xml, the
// config); false when it is already known.
func (t *Tree) Root(site, u string) bool { return t.admit(site, u, 0) == "" }

// Child admits a sitemap listed in the index at parent. It returns "" when admitted,
// or the reason it was not: "sitemap_loop" (already known), "sitemap_depth" or
// "sitemap_count" — each a warning to count.
func (t *Tree) Child(site, parent, u string) string {
	t.mu.Lock()
	d, ok := t.depth[parent]
	t.mu.Unlock()
	if !ok {
		d = 0
	}
	return t.admit(site, u, d+1)
}

func (t *Tree) admit(site, u string, depth int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.has(u):
		return "sitemap_loop"
	case depth > MaxIndexDepth:
		return "sitemap_depth"
	case t.perSite[site] >= MaxSitemapsPerSite:
		return "sitemap_count"
	}
	t.depth[u] = depth
	t.perSite[site]++
	return ""
}

func (t *Tree) has(u string) bool { _, ok := t.depth[u]; return ok }

// Known says whether u is a sitemap of the crawl.
func (t *Tree) Known(u string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.has(u)
}
