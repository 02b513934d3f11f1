package engine

import (
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// noteStored is savePage's hook for a page first stored (once committed): declared
// sites count it, with its publication time when the page states one (its metadata,
// engine/page: JSON-LD, <meta>, <time>, its date line), for the publish-to-store
// delay of a site whose feed dates nothing or that has no feed.
func (e *Engine) noteStored(t frontier.Task, pub time.Time, at time.Time) {
	book := e.sites.Load()
	if book.Named(t.Site) == nil {
		return
	}
	e.siteTally.Stored(t.Site, at, pub, book.IsSource(t.URL))
}

// restoreSiteCounts reads what earlier runs stored per site (the Sites pane) and
// fetched per site and host (total page budgets).
func (e *Engine) restoreSiteCounts() {
	if len(e.sites.Load().Sites()) > 0 || e.steer.Len() > 0 {
		if by, err := e.st.StoredBySite(); err == nil {
			e.siteTally.Restore(by)
		}
	}
	e.mu.Lock()
	want := e.budget.WantsTotals()
	e.mu.Unlock()
	if want {
		if err := e.fr.ReadBudgetTotals(); err != nil {
			e.logf(view.LevelWarn, 0, "", "page budgets: earlier runs' counts unreadable (%v): totals start from 0", err)
		}
	}
}

// sitesView builds the Sites pane's data, with what discovery found per site (by
// registered domain); nil when no site is declared.
func (e *Engine) sitesView(now time.Time, found []view.SiteDiscovery) *view.SitesView {
	book := e.sites.Load()
	if len(book.Sites()) == 0 {
		return nil
	}
	v := &view.SitesView{Every: e.opts.Rounds.Every}
	v.Round = e.round.Round()
	for i := range book.Sites() {
		s := &book.Sites()[i]
		r := view.SiteRow{Name: s.Name, Kind: s.Kind, Class: e.classIn(s, front.HostOf(s.Entry)), Entry: s.Entry,
			Keywords: slices.Clone(book.Keywords(s.Name)), WithinDays: s.WithinDays, OutOfWindow: e.round.OutOfWindow(s.Name)}
		if s.Kind == config.SiteSocial {
			r.Entry, r.Class = s.Search, e.classIn(s, "")
		}
		e.siteTally.Fill(&r, now)
		for _, d := range found {
			if d.Site == s.Domain() {
				r.Feeds, r.Sitemaps, r.Covered, r.Problems = d.Feeds, d.Sitemaps, d.Covered, d.Problems
				r.DatesTrusted = map[bool]string{true: "yes", false: "no"}[d.DatesTrusted]
			}
		}
		v.Sites = append(v.Sites, r)
	}
	e.mu.Lock()
	for i := range v.Sites {
		r := &v.Sites[i]
		r.BudgetUsed, r.Budget = e.budget.Used(r.Name)
		if r.BudgetTotal = e.budget.Limit(front.BudgetKey{Name: r.Name, Total: true}); r.BudgetTotal > 0 {
			r.TotalUsed = e.budget.SiteTotal(r.Name)
		}
		r.Held = e.budget.Held(r.Name)
	}
	e.mu.Unlock()
	return v
}
