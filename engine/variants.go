package engine

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// SkipCanonicalVariant is the skip kind of a link, or a URL queued already, left
// unfetched because a fetched page declared it as its rel=canonical: the article is
// in the store already, under the URL it was fetched by
// (frontier.VariantOptions.NoCanonical turns this off).
const SkipCanonicalVariant = "canonical_variant"

// canonicalMemory is how many canonical URLs standing for fetched pages the engine
// remembers, so a later link to one is not fetched either. A link to a canonical
// forgotten (or from before a restart) is fetched once more: a duplicate, never a
// page lost.
const canonicalMemory = 1 << 16

// urlVariants collapses the variants of a URL before the dedupe filter sees it
// (tracking and session parameters, frontier.Variants) and remembers the
// rel=canonical URLs of the pages fetched.
type urlVariants struct {
	v      *frontier.Variants
	stands *lru.Cache[uint64, struct{}] // hashes of canonical URLs a fetched page stands for
}

func newURLVariants(o frontier.VariantOptions) *urlVariants {
	u := &urlVariants{v: frontier.NewVariants(o)}
	if u.v.Canonical() {
		u.stands, _ = lru.New[uint64, struct{}](canonicalMemory)
	}
	return u
}

// collapse is frontier.Variants.Collapse.
func (u *urlVariants) collapse(n string) string { return u.v.Collapse(n) }

// standsFor reports whether n is the canonical URL of a page already fetched.
func (u *urlVariants) standsFor(n string) bool {
	if u.stands == nil {
		return false
	}
	_, ok := u.stands.Get(frontier.Hash(n))
	return ok
}

// canonicalStands resolves a page's rel=canonical href against its base and
// reports whether it stands for the page fetched as page (urlVariants.canonical);
// false leaves it to be queued as a link.
func (e *Engine) canonicalStands(base *frontier.Base, page, href string) bool {
	if !e.variants.v.Canonical() {
		return false
	}
	canon, err := base.Resolve(href)
	if err != nil {
		return false
	}
	self := page
	if n, err := frontier.Normalize(page); err == nil {
		self = n
	}
	canon, self = e.variants.collapse(canon), e.variants.collapse(self)
	if canon == self {
		return true
	}
	if hostOf(canon) != hostOf(self) {
		return false
	}
	e.variants.stands.Add(frontier.Hash(canon), struct{}{})
	e.c.addError(SkipCanonicalVariant)
	return true
}
