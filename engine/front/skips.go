package front

import (
	"sync/atomic"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/skips"
)

// The skip vocabulary lives in engine/skips, so readers of the counts need not link
// the front; these names keep the front's callers as they are.
const (
	SkipCanonicalVariant = skips.CanonicalVariant
	SkipSteeredOut       = skips.SteeredOut
	SkipNoSitemap        = skips.NoSitemap
	skipScopePrefix      = skips.ScopePrefix
)

// SkipKinds lists the kinds counted as skipped rather than failed, in a fixed order.
func SkipKinds() []string { return skips.Kinds() }

// IsSkip reports whether a URL that ended with kind was skipped by choice (robots.txt,
// noindex, scope, content type) rather than failed.
func IsSkip(kind string) bool { return skips.Is(kind) }

func skipIndex(kind string) int { return skips.Index(kind) }

// skipCounters count skips by kind: one atomic per kind of the fixed set, so counting
// the out-of-scope links of every page takes no lock.
type skipCounters [skips.Count]atomic.Int64

func (s *skipCounters) add(i int, n int64) { s[i].Add(n) }

// byKind is the non-zero counts by kind (an empty map when nothing was skipped).
func (s *skipCounters) byKind() map[string]int64 {
	m := map[string]int64{}
	kinds := skips.Kinds()
	for i := range s {
		if n := s[i].Load(); n > 0 {
			m[kinds[i]] = n
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
