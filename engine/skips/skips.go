// Package skips says which ways a URL can end are skips rather than failures.
//
// A URL the crawl chose not to fetch or not to store is skipped, not failed. The
// console header, the end-of-crawl summary, --stats-json ("skipped"), `crawlconsole
// stats` and /metrics (crawlconsole_skipped_total) count these apart from errors, so a
// crawl that obeys robots.txt does not read as a broken one. This package is the one
// place that says which kinds are skips; every other kind a URL ends with is an error.
// It holds only the vocabulary, so a reader of counts (the metrics exporter, the
// console) needs neither the front that counts them nor its store.
package skips

import (
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Budget skip kinds: why a URL was held back by a page budget (deferred, not lost).
const (
	BudgetHost = "budget_host" // its host used up its page budget (round or total)
	BudgetSite = "budget_site" // its site used up its page budget (round or total)
)

// CanonicalVariant is the skip kind of a link, or a URL queued already, left
// unfetched because a fetched page declared it as its rel=canonical: the article is
// in the store already, under the URL it was fetched by
// (frontier.VariantOptions.NoCanonical turns this off).
const CanonicalVariant = "canonical_variant"

// SteeredOut is the skip kind of a queued entry or search URL withdrawn because
// the operator removed its keyword or site while the crawl ran.
const SteeredOut = "steered_out"

// NoSitemap is the skip kind of the /sitemap.xml discovery asks for where a
// host's robots.txt names no sitemap (discovery.probe), answered 404 or 410: most sites have
// none, the Sites pane and the log say nothing of it, so the counts do not call it a
// failure either.
const NoSitemap = "no_sitemap"

// ScopePrefix names the out-of-scope skips after frontier.Scope's reasons. They
// count links, once per page that links out of scope (the same off-site link on many
// pages counts on each), since a link never queued leaves no URL row to count by.
const ScopePrefix = "out_of_scope_"

// kinds is the fixed set, in the order every count lists them.
var kinds = [...]string{
	fetch.KindRobots,      // robots.txt disallows it (RFC 9309)
	fetch.KindNoindex,     // meta robots or X-Robots-Tag noindex: fetched, not stored
	fetch.KindContentType, // a Content-Type the crawl does not store (PDF, images, ...)
	fetch.KindBinary,      // binary content labelled as text: not stored as a page
	ScopePrefix + frontier.ReasonOffSite,
	ScopePrefix + frontier.ReasonTooDeep,
	ScopePrefix + frontier.ReasonExcluded,
	ScopePrefix + frontier.ReasonNotIncluded,
	BudgetHost,               // a page budget of its host held it back (deferred, not lost)
	BudgetSite,               // a page budget of its site held it back
	frontier.TrapPathRepeat,  // trap guards (links, per page linking there): a path segment repeated
	frontier.TrapQueryGrowth, // a query string growing on its own page, or too long
	frontier.TrapCalendar,    // a calendar series running off
	CanonicalVariant,         // a same-host rel=canonical of a page fetched: the article is stored once
	SteeredOut,               // a queued entry or search whose keyword or site the operator removed
	NoSitemap,                // the /sitemap.xml asked for where robots.txt names none is not there
}

// Count is how many skip kinds there are.
const Count = len(kinds)

// Kinds lists the kinds counted as skipped rather than failed, in a fixed order.
func Kinds() []string { return append([]string(nil), kinds[:]...) }

// Is reports whether a URL that ended with kind was skipped by choice (robots.txt,
// noindex, scope, content type) rather than failed.
func Is(kind string) bool { return Index(kind) >= 0 }

// Index is kind's place in Kinds, or -1 when kind is not a skip.
func Index(kind string) int {
	for i, k := range kinds {
		if k == kind {
			return i
		}
	}
	return -1
}
