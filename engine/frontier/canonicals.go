package frontier

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// canonicalMemory is how many canonical URLs standing for fetched pages a
// Canonicals remembers, so a later link to one is not fetched either. A link to a
// canonical forgotten (or from before a restart) is fetched once more: a duplicate,
// never a page lost.
const canonicalMemory = 1 << 16

// Canonicals collapses the variants of a URL before the dedupe filter sees it
// (tracking and session parameters, Variants) and remembers the rel=canonical URLs
// of the pages a crawl fetched. Safe for concurrent use.
type Canonicals struct {
	v      *Variants
	stands *lru.Cache[uint64, struct{}] // hashes of canonical URLs a fetched page stands for
}

// NewCanonicals builds the variant rules of o, with a memory of canonical URLs
// when o takes a page's rel=canonical into account.
func NewCanonicals(o VariantOptions) *Canonicals {
	c := &Canonicals{v: NewVariants(o)}
	if c.v.Canonical() {
		c.stands, _ = lru.New[uint64, struct{}](canonicalMemory)
	}
	return c
}

// Collapse is Variants.Collapse.
func (c *Canonicals) Collapse(n string) string { return c.v.Collapse(n) }

// StandsFor reports whether n is the canonical URL of a page already fetched.
func (c *Canonicals) StandsFor(n string) bool {
	if c.stands == nil {
		return false
	}
	_, ok := c.stands.Get(Hash(n))
	return ok
}

// Declared resolves a page's rel=canonical href against its base and reports
// whether it stands for the page fetched as page: the same URL once collapsed, or
// another URL of the same host, which is then remembered (remembered true: a later
// link to it is a variant left unfetched). false leaves it to be queued as a link.
func (c *Canonicals) Declared(base *Base, page, href string) (stands, remembered bool) {
	if !c.v.Canonical() {
		return false, false
	}
	canon, err := base.Resolve(href)
	if err != nil {
		return false, false
	}
	self := page
	if n, err := Normalize(page); err == nil {
		self = n
	}
	canon, self = c.Collapse(canon), c.Collapse(self)
	if canon == self {
		return true, false
	}
	if Hostname(canon) != Hostname(self) {
		return false, false
	}
	c.stands.Add(Hash(canon), struct{}{})
	return true, true
}
