package front

import (
	"maps"
	"net/url"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The declared sites as the front sees them (M3): the class of a host, what a
// stored page counts for its site, the Sites pane.

// Classify is a host's site (a declared site's name, else its registered domain)
// and its page class.
func (f *Front) Classify(host string) (site, class string) {
	if s := f.Sites.Load().SiteOf(host); s != nil {
		return s.Name, f.ClassIn(s, host)
	}
	return frontier.Site(host), f.ClassIn(nil, host)
}

// ClassOf tags a host with its page class (M2/M3): declared social sites are soc,
// the rest go by public suffix.
func (f *Front) ClassOf(host string) string {
	return f.ClassIn(f.Sites.Load().SiteOf(host), host)
}

// ClassIn is ClassOf for a host already looked up in the site book (s may be nil):
// a site's declared class (sites added while the crawl runs included), else the
// classifier's.
func (f *Front) ClassIn(s *config.SiteOptions, host string) string {
	if s != nil {
		if c := sites.Class(s); c != "" {
			return c
		}
	}
	return f.Revisit.Classes.Class(&url.URL{Host: host})
}

// isSource tells whether a URL is a declared site's entry or search.
func (f *Front) isSource(u string) bool { return f.Sites.Load().IsSource(u) }

// noteStored is Record's hook for a page first stored (once committed): declared
// sites count it, with its publication time when the page states one (its metadata,
// engine/page: JSON-LD, <meta>, <time>, its date line), for the publish-to-store
// delay of a site whose feed dates nothing or that has no feed.
func (f *Front) noteStored(t frontier.Task, pub time.Time, at time.Time) {
	book := f.Sites.Load()
	if book.Named(t.Site) == nil {
		return
	}
	f.Tally.Stored(t.Site, at, pub, book.IsSource(t.URL))
}

// sourceFetched notes a declared site's source fetched again (the Sites pane).
func (f *Front) sourceFetched(site string, at time.Time) { f.Tally.SourceFetched(site, at) }

// RestoreSiteCounts reads what earlier runs stored per site (the Sites pane, when
// sites are declared or steered) and fetched per site and host (total page budgets).
func (f *Front) RestoreSiteCounts(steered bool) {
	if len(f.Sites.Load().Sites()) > 0 || steered {
		if by, err := f.Store.StoredBySite(); err == nil {
			f.Tally.Restore(by)
		}
	}
	f.Mu.Lock()
	want := f.Budgets.WantsTotals()
	f.Mu.Unlock()
	if want {
		if err := f.ReadBudgetTotals(); err != nil {
			f.crawl.Logf(view.LevelWarn, "", "page budgets: earlier runs' counts unreadable (%v): totals start from 0", err)
		}
	}
}

// SitesView builds the Sites pane's data, with what discovery found per site (by
// the site's name: discovery keeps a declared site's state apart from the other
// sites of its registered domain), and why a site waits on its robots.txt: the
// deferrals' reasons (Counters.RobotsWaits), and behind, the sites the lanes hold
// back because their robots.txt redirects to a host the operator holds (site host
// → held host). nil when no site is declared. Called without the lock.
func (f *Front) SitesView(now time.Time, found []view.SiteDiscovery, behind map[string]string) *view.SitesView {
	book := f.Sites.Load()
	if len(book.Sites()) == 0 {
		return nil
	}
	waits := f.Counters.RobotsWaits()
	maps.Copy(waits, behind)
	why := map[string]string{} // a site of several hosts waiting: its first host's reason
	held := map[string]string{}
	for _, host := range slices.Sorted(maps.Keys(waits)) {
		if s := book.SiteOf(host); s != nil && why[s.Name] == "" {
			why[s.Name], held[s.Name] = RobotsUnreachable, waits[host]
			if waits[host] != "" {
				why[s.Name] = RobotsHeld(waits[host])
			}
		}
	}
	v := &view.SitesView{Every: f.Opts.Rounds.Every}
	v.Round = f.Rounds.Round()
	for i := range book.Sites() {
		s := &book.Sites()[i]
		r := view.SiteRow{Name: s.Name, Kind: s.Kind, Class: f.ClassIn(s, HostOf(s.Entry)), Entry: s.Entry,
			Keywords: slices.Clone(book.Keywords(s.Name)), WithinDays: s.WithinDays, OutOfWindow: f.Rounds.OutOfWindow(s.Name), Waits: why[s.Name], WaitsBehind: held[s.Name]}
		if s.Kind == config.SiteSocial {
			r.Entry, r.Class = s.Search, f.ClassIn(s, "")
		}
		f.Tally.Fill(&r, now)
		for _, d := range found {
			if d.Site == s.Name {
				r.Feeds, r.Sitemaps, r.Covered, r.Problems = d.Feeds, d.Sitemaps, d.Covered, d.Problems
				r.DatesTrusted = map[bool]string{true: "yes", false: "no"}[d.DatesTrusted]
			}
		}
		v.Sites = append(v.Sites, r)
	}
	f.Mu.Lock()
	for i := range v.Sites {
		r := &v.Sites[i]
		r.BudgetUsed, r.Budget = f.Budgets.Used(r.Name)
		if r.BudgetTotal = f.Budgets.Limit(BudgetKey{Name: r.Name, Total: true}); r.BudgetTotal > 0 {
			r.TotalUsed = f.Budgets.SiteTotal(r.Name)
		}
		r.Held = f.Budgets.Held(r.Name)
	}
	f.Mu.Unlock()
	return v
}
