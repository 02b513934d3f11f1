package steer

import (
	"reflect"
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/sites"
)

// Meta is the store meta key holding the steering changes made so far (a JSON list
// of Change, oldest first, folded as it grows: Log), replayed over the config at
// every start.
const Meta = "steering"

// OutMeta is the store meta key holding the sources withdrawn by steering changes
// the list no longer holds (a JSON list of URLs).
const OutMeta = "steering_out"

// Compaction of the steering list (meta key Meta). The list is replayed over
// the config at every start, so a long-running crawl whose operator adds and takes
// off keywords, sites and budgets all day would otherwise replay thousands of
// changes that undo each other. Each change is folded in as it is kept:
//
//   - a budget replaces the earlier one for the same site or host and span (the last
//     one set is the one in force), and a date window the earlier one for the same
//     site;
//   - a change that undoes the last change made to the same site — keyword add then
//     rm of that keyword, rm then add, site add then rm — takes that change out
//     instead of being added, when the site is left exactly as it was before it: the
//     same options, own keywords in the same order, and the same shared keywords
//     taken off it (a social site that loses its last own keyword falls back to none
//     of the shared ones, so "add k, rm k" there is no round trip and both stay).
//
// Only changes to other sites, and budgets of this one between keyword changes, lie
// between the two folded ones, and those do not depend on this site's keywords (a
// site add checks names and domains: one site fewer refuses nothing more; a budget
// checks that the site is declared), so replaying the shorter list over the same config
// gives every site, keyword and budget the longer one gives. Seeds stay: each one
// added is state.
//
// A folded rm also withdrew its sources (Crawl.Withdraw), and the replay of a
// kept rm marks them again at start, so that searches an earlier run left queued,
// deferred or planned for a revisit are withdrawn when they come back. The sources a
// folded rm withdrew are kept apart for that (meta key OutMeta) and marked
// at start unless the sites have them again; those the store shows ended, or no
// longer has, are forgotten then. The books before and after each kept change are held in memory
// (books are immutable and shared, so this costs two pointers each).

// Log is the list of steering changes kept in the store, folded as it grows (see
// above), with what the folds withdrew. The Steerer guards it.
type Log struct {
	changes []Change
	before  []*sites.Book // the books around each change of changes
	after   []*sites.Book
	// outs are the sources withdrawn by changes folded out of changes, kept for the
	// next start; outsChanged says they are not written yet.
	outs        map[string]bool
	outsChanged bool
}

// steerName is the site a change is about ("" for seeds and host budgets): the
// changes folded against each other share it.
func steerName(s *Change) string {
	switch s.Op {
	case SiteAdd, SiteRm, KeywordAdd, KeywordRm:
		return s.Site
	case Budget:
		if s.Host == "" {
			return s.Site
		}
	case Window:
		return s.Site
	}
	return ""
}

// setting reports whether a change sets a value of a site (a budget, a date
// window) rather than adding or removing something: the last one set is in force.
func setting(s *Change) bool { return s.Op == Budget || s.Op == Window }

// undoes reports whether b is the inverse of a.
func undoes(a, b *Change) bool {
	kw := func(s *Change) string { return strings.TrimSpace(strings.Join(s.Keywords, " ")) }
	switch {
	case a.Op == KeywordAdd && b.Op == KeywordRm, a.Op == KeywordRm && b.Op == KeywordAdd:
		return kw(a) == kw(b)
	case a.Op == SiteAdd && b.Op == SiteRm:
		return true
	}
	return false
}

// sameSetting reports whether two changes set the same budget, or the same
// site's date window.
func sameSetting(a, b *Change) bool {
	if a.Op == Window || b.Op == Window {
		return a.Op == b.Op && a.Site == b.Site
	}
	return a.Op == Budget && b.Op == Budget && a.Site == b.Site && a.Host == b.Host &&
		(a.Per == BudgetTotal) == (b.Per == BudgetTotal)
}

// keep folds one applied change into the list: before and after are the site books
// around it.
func (r *Log) keep(s Change, before, after *sites.Book) {
	if setting(&s) {
		for i := len(r.changes) - 1; i >= 0; i-- {
			if sameSetting(&r.changes[i], &s) {
				r.drop(i)
				break // there is at most one: each was folded in the same way
			}
		}
	}
	r.changes = append(r.changes, s)
	r.before = append(r.before, before)
	r.after = append(r.after, after)
	if name := steerName(&s); name != "" {
		for r.foldPair(name) {
		}
	}
}

// foldPair takes out one pair of changes to site name that undo each other, and
// reports whether it found one. The two are next to each other among the site's
// changes, budgets apart: a budget between keyword changes does not mind them, but
// one between a site's add and rm needs the site (its replay would fail without it).
func (r *Log) foldPair(name string) bool {
	for i := range r.changes {
		if steerName(&r.changes[i]) != name || setting(&r.changes[i]) {
			continue
		}
		budget := false
		for j := i + 1; j < len(r.changes); j++ {
			if steerName(&r.changes[j]) != name {
				continue
			}
			if setting(&r.changes[j]) {
				budget = true
				continue
			}
			if undoes(&r.changes[i], &r.changes[j]) && !(budget && r.changes[j].Op == SiteRm) &&
				sameSite(r.before[i], r.after[j], name) {
				if r.changes[j].Op == KeywordRm || r.changes[j].Op == SiteRm {
					r.keepOut(r.before[j], r.after[j], name)
				}
				r.drop(j)
				r.drop(i)
				return true
			}
			break
		}
	}
	return false
}

func (r *Log) drop(i int) {
	r.changes = slices.Delete(r.changes, i, i+1)
	r.before = slices.Delete(r.before, i, i+1)
	r.after = slices.Delete(r.after, i, i+1)
}

// sameSite reports whether the site name stands the same in both books: declared or
// not, with the same options and own keywords in the same order, and the same
// shared keywords taken off it.
func sameSite(a, b *sites.Book, name string) bool {
	if a == nil || b == nil {
		return false
	}
	sa, sb := a.Named(name), b.Named(name)
	if (sa == nil) != (sb == nil) {
		return false
	}
	if sa != nil {
		x, y := *sa, *sb
		if !slices.Equal(x.Keywords, y.Keywords) {
			return false
		}
		x.Keywords, y.Keywords = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return sameSet(a.Dropped()[name], b.Dropped()[name])
}

func sameSet(a, b []string) bool {
	for _, k := range a {
		if !slices.Contains(b, k) {
			return false
		}
	}
	for _, k := range b {
		if !slices.Contains(a, k) {
			return false
		}
	}
	return true
}

// keepOut remembers the sources of site that book before had and after lacks: what
// a folded rm withdrew.
func (r *Log) keepOut(before, after *sites.Book, site string) {
	for _, it := range before.SourcesOf(site, "") {
		if !after.IsSource(it.URL) {
			if r.outs == nil {
				r.outs = map[string]bool{}
			}
			r.outs[it.URL] = true
			r.outsChanged = true
		}
	}
}
