package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// SkipCanonicalVariant is the skip kind of a link, or a URL queued already, left
// unfetched because a fetched page declared it as its rel=canonical
// (front.SkipCanonicalVariant).
const SkipCanonicalVariant = front.SkipCanonicalVariant

// canonicalStands resolves a page's rel=canonical href against its base and
// reports whether it stands for the page fetched as page (frontier.Canonicals);
// false leaves it to be queued as a link.
func (e *Engine) canonicalStands(base *frontier.Base, page, href string) bool {
	stands, remembered := e.variants.Declared(base, page, href)
	if remembered {
		e.c.AddError(SkipCanonicalVariant)
	}
	return stands
}
