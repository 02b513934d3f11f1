package front

import (
	"sync/atomic"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Skip kinds: a URL the crawl chose not to fetch or not to store is skipped, not
// failed. The console header, the end-of-crawl summary, --stats-json ("skipped"),
// `crawlconsole stats` and /metrics (crawlconsole_skipped_total) count these apart
// from errors, so a crawl that obeys robots.txt does not read as a broken one. This list is the one place
// that says which kinds are skips; every other kind a URL ends with is an error.
var skipKinds = [...]string{
	fetch.KindRobots,      // robots.txt disallows it (RFC 9309)
	fetch.KindNoindex,     // meta robots or X-Robots-Tag noindex: fetched, not stored
	fetch.KindContentType, // a Content-Type the crawl does not store (PDF, images, ...)
	fetch.KindBinary,      // binary content labelled as text: not stored as a page
	skipScopePrefix + frontier.ReasonOffSite,
	skipScopePrefix + frontier.ReasonTooDeep,
	skipScopePrefix + frontier.ReasonExcluded,
	skipScopePrefix + frontier.ReasonNotIncluded,
	SkipBudgetHost,           // a page budget of its host held it back (deferred, not lost; Budgets)
	SkipBudgetSite,           // a page budget of its site held it back
	frontier.TrapPathRepeat,  // trap guards (links, per page linking there): a path segment repeated
	frontier.TrapQueryGrowth, // a query string growing on its own page, or too long
	frontier.TrapCalendar,    // a calendar series running off
	SkipCanonicalVariant,     // a same-host rel=canonical of a page fetched: the article is stored once
	SkipSteeredOut,           // a queued entry or search whose keyword or site the operator removed
	SkipNoSitemap,            // the /sitemap.xml asked for where robots.txt names none is not there
}

// SkipCanonicalVariant is the skip kind of a link, or a URL queued already, left
// unfetched because a fetched page declared it as its rel=canonical: the article is
// in the store already, under the URL it was fetched by
// (frontier.VariantOptions.NoCanonical turns this off).
const SkipCanonicalVariant = "canonical_variant"

// SkipSteeredOut is the skip kind of a queued entry or search URL withdrawn because
// the operator removed its keyword or site while the crawl ran.
const SkipSteeredOut = "steered_out"

// SkipNoSitemap is the skip kind of the /sitemap.xml discovery asks for where a
// host's robots.txt names no sitemap (discovery.probe), answered 404 or 410: most sites have
// none, the Sites pane and the log say nothing of it, so the counts do not call it a
// failure either.
const SkipNoSitemap = "no_sitemap"

// skipScopePrefix names the out-of-scope skips after frontier.Scope's reasons. They
// count links, once per page that links out of scope (the same off-site link on many
// pages counts on each), since a link never queued leaves no URL row to count by.
const skipScopePrefix = "out_of_scope_"

// SkipKinds lists the kinds counted as skipped rather than failed, in a fixed order.
func SkipKinds() []string { return append([]string(nil), skipKinds[:]...) }

// IsSkip reports whether a URL that ended with kind was skipped by choice (robots.txt,
// noindex, scope, content type) rather than failed.
func IsSkip(kind string) bool { return skipIndex(kind) >= 0 }

func skipIndex(kind string) int {
	for i, k := range skipKinds {
		if k == kind {
			return i
		}
	}
	return -1
}

// skipCounters count skips by kind: one atomic per kind of the fixed set, so counting
// the out-of-scope links of every page takes no lock.
type skipCounters [len(skipKinds)]atomic.Int64

func (s *skipCounters) add(i int, n int64) { s[i].Add(n) }

// byKind is the non-zero counts by kind (an empty map when nothing was skipped).
func (s *skipCounters) byKind() map[string]int64 {
	m := map[string]int64{}
	for i := range s {
		if n := s[i].Load(); n > 0 {
			m[skipKinds[i]] = n
		}
	}
	return m
}

// SkipOutOfScope counts one link that frontier.Scope refused, by its reason: an
// atomic add, no lock and no string built, since a page may carry hundreds.
func (c *Counters) SkipOutOfScope(reason string) {
	if i, ok := scopeSkipIndex[reason]; ok {
		c.skipped.add(i, 1)
	}
}

// scopeSkipIndex maps a Scope reason to its skip counter.
var scopeSkipIndex = func() map[string]int {
	m := map[string]int{}
	for _, r := range []string{frontier.ReasonOffSite, frontier.ReasonTooDeep, frontier.ReasonExcluded, frontier.ReasonNotIncluded} {
		m[r] = skipIndex(skipScopePrefix + r)
	}
	return m
}()
