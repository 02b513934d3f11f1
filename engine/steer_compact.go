package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/store"
)

// SteeringOutMeta is the store meta key holding the sources withdrawn by steering
// changes the list no longer holds (a JSON list of URLs).
const SteeringOutMeta = "steering_out"

// Compaction of the steering list (meta key SteeringMeta). The list is replayed over
// the config at every start, so a long-running crawl whose operator adds and takes
// off keywords, sites and budgets all day would otherwise replay thousands of
// changes that undo each other. Each change is folded in as it is kept:
//
//   - a budget replaces the earlier one for the same site or host and span (the last
//     one set is the one in force);
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
// A folded rm also withdrew its sources (steer_withdraw.go), and the replay of a
// kept rm marks them again at start, so that searches an earlier run left queued,
// deferred or planned for a revisit are withdrawn when they come back. The sources a
// folded rm withdrew are kept apart for that (meta key SteeringOutMeta) and marked
// at start unless the sites have them again; those the store shows ended, or no
// longer has, are forgotten then. The books before and after each kept change are held in memory
// (books are immutable and shared, so this costs two pointers each).

// steerName is the site a change is about ("" for seeds and host budgets): the
// changes folded against each other share it.
func steerName(s *Steer) string {
	switch s.Op {
	case SteerSiteAdd, SteerSiteRm, SteerKeywordAdd, SteerKeywordRm:
		return s.Site
	case SteerBudget:
		if s.Host == "" {
			return s.Site
		}
	}
	return ""
}

// undoes reports whether b is the inverse of a.
func undoes(a, b *Steer) bool {
	kw := func(s *Steer) string { return strings.TrimSpace(strings.Join(s.Keywords, " ")) }
	switch {
	case a.Op == SteerKeywordAdd && b.Op == SteerKeywordRm, a.Op == SteerKeywordRm && b.Op == SteerKeywordAdd:
		return kw(a) == kw(b)
	case a.Op == SteerSiteAdd && b.Op == SteerSiteRm:
		return true
	}
	return false
}

// sameBudget reports whether two budget changes set the same budget.
func sameBudget(a, b *Steer) bool {
	return a.Op == SteerBudget && b.Op == SteerBudget && a.Site == b.Site && a.Host == b.Host &&
		(a.Per == BudgetTotal) == (b.Per == BudgetTotal)
}

// keep folds one applied change into the list: before and after are the site books
// around it. Caller holds r.mu.
func (r *steerRuntime) keep(s Steer, before, after *sites.Book) {
	if s.Op == SteerBudget {
		for i := len(r.log) - 1; i >= 0; i-- {
			if sameBudget(&r.log[i], &s) {
				r.drop(i)
				break // there is at most one: each was folded in the same way
			}
		}
	}
	r.log = append(r.log, s)
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
func (r *steerRuntime) foldPair(name string) bool {
	for i := range r.log {
		if steerName(&r.log[i]) != name || r.log[i].Op == SteerBudget {
			continue
		}
		budget := false
		for j := i + 1; j < len(r.log); j++ {
			if steerName(&r.log[j]) != name {
				continue
			}
			if r.log[j].Op == SteerBudget {
				budget = true
				continue
			}
			if undoes(&r.log[i], &r.log[j]) && !(budget && r.log[j].Op == SteerSiteRm) &&
				sameSite(r.before[i], r.after[j], name) {
				if r.log[j].Op == SteerKeywordRm || r.log[j].Op == SteerSiteRm {
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

func (r *steerRuntime) drop(i int) {
	r.log = slices.Delete(r.log, i, i+1)
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
func (r *steerRuntime) keepOut(before, after *sites.Book, site string) {
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

// restoreOut marks at start the sources folded rms withdrew in earlier runs (after
// the replay, before the queue is resumed), but those the sites have again and those
// the store shows ended (withdrawn, failed) or does not have. Caller holds
// e.steer.mu.
func (e *Engine) restoreOut() {
	r := &e.steer
	if data, err := e.st.GetMeta(SteeringOutMeta); err == nil && len(data) > 0 {
		var list []string
		if err := json.Unmarshal(data, &list); err != nil {
			e.logf(LevelWarn, 0, "", "withdrawn sources of an earlier run unreadable, ignored: %v", err)
		}
		for _, u := range list {
			if r.outs == nil {
				r.outs = map[string]bool{}
			}
			r.outs[u] = true
		}
	}
	if len(r.outs) == 0 {
		return
	}
	book := e.sites.Load()
	var cands []string
	for u := range r.outs {
		if !book.IsSource(u) {
			cands = append(cands, u)
		}
	}
	rows, err := e.st.URLStates(cands)
	if err != nil {
		e.logf(LevelWarn, 0, "", "withdrawn sources: store: %v (kept withdrawn)", err)
		rows = nil
		for _, u := range cands {
			rows = append(rows, store.URL{URL: u})
		}
	}
	kept := map[string]bool{}
	marks := map[string]uint64{}
	for _, row := range rows {
		if row.State == store.Failed || row.State == store.Processed && row.ErrKind == SkipSteeredOut {
			continue // ended: nothing brings it back but its source added back
		}
		kept[row.URL] = true
		marks[row.URL] = 0
	}
	r.outsChanged = r.outsChanged || len(kept) != len(r.outs)
	r.outs = kept
	e.mu.Lock()
	e.markOut(marks)
	e.mu.Unlock()
}

// saveOut writes the withdrawn sources when they changed. Caller holds e.steer.mu.
func (e *Engine) saveOut() {
	r := &e.steer
	if !r.outsChanged {
		return
	}
	list := make([]string, 0, len(r.outs))
	for u := range r.outs {
		list = append(list, u)
	}
	slices.Sort(list)
	if data, err := json.Marshal(list); err == nil {
		e.st.SetMeta(SteeringOutMeta, data)
		r.outsChanged = false
	}
}
