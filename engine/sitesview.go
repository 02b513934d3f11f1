package engine

import (
	"bytes"
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// siteTally keeps per-site figures for the Sites pane, on its own lock: pages are
// stored on the store writer's goroutine.
type siteTally struct {
	mu    sync.Mutex
	sites map[string]*siteFigures
}

// siteFigures is one site's tally. New pages are counted per minute over the last
// day (a ring of 1440 minutes), so the pane's hour and day counts cost a sum.
type siteFigures struct {
	stored    int64
	minutes   [1440]int32
	minuteAt  [1440]int64 // the Unix minute each slot counts
	lastRound time.Time
	delays    []time.Duration // last publish-to-store delays (ring of delaySamples)
	next      int
}

const delaySamples = 256

func (t *siteTally) get(site string) *siteFigures {
	if t.sites == nil {
		t.sites = map[string]*siteFigures{}
	}
	f := t.sites[site]
	if f == nil {
		f = &siteFigures{}
		t.sites[site] = f
	}
	return f
}

// stored counts a page of site first stored at, published at pub (zero: unknown).
func (t *siteTally) stored(site string, at, pub time.Time, source bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.get(site)
	f.stored++
	m := at.Unix() / 60
	i := m % int64(len(f.minutes))
	if f.minuteAt[i] != m {
		f.minuteAt[i], f.minutes[i] = m, 0
	}
	f.minutes[i]++
	if source {
		f.lastRound = at
	}
	if !pub.IsZero() && !pub.After(at) {
		if len(f.delays) < delaySamples {
			f.delays = append(f.delays, at.Sub(pub))
		} else {
			f.delays[f.next] = at.Sub(pub)
			f.next = (f.next + 1) % delaySamples
		}
	}
}

// sourceFetched notes a round's entry or search page fetched again.
func (t *siteTally) sourceFetched(site string, at time.Time) {
	t.mu.Lock()
	t.get(site).lastRound = at
	t.mu.Unlock()
}

// fill copies a site's figures into its row.
func (t *siteTally) fill(r *SiteRow, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.sites[r.Name]
	if f == nil {
		return
	}
	r.Stored, r.LastRound = f.stored, f.lastRound
	nowMin := now.Unix() / 60
	for i := range f.minutes {
		age := nowMin - f.minuteAt[i]
		if f.minutes[i] == 0 || age < 0 || age >= int64(len(f.minutes)) {
			continue
		}
		r.NewDay += int(f.minutes[i])
		if age < 60 {
			r.NewHour += int(f.minutes[i])
		}
	}
	if len(f.delays) > 0 {
		d := slices.Clone(f.delays)
		slices.Sort(d)
		r.PublishDelay = d[len(d)/2]
	}
}

// noteStored is savePage's hook for a page first stored (once committed): declared
// sites count it, with its publish time when the page states one.
func (e *Engine) noteStored(t frontier.Task, body []byte, at time.Time) {
	book := e.sites.Load()
	if book.Named(t.Site) == nil {
		return
	}
	e.siteTally.stored(t.Site, at, publishedAt(body), book.IsSource(t.URL))
}

// restoreSiteCounts reads what earlier runs stored per site (the Sites pane) and
// fetched per site and host (total page budgets).
func (e *Engine) restoreSiteCounts() {
	if len(e.sites.Load().Sites()) > 0 || e.steer.Len() > 0 {
		if by, err := e.st.StoredBySite(); err == nil {
			e.siteTally.mu.Lock()
			for s, n := range by {
				e.siteTally.get(s).stored = n
			}
			e.siteTally.mu.Unlock()
		}
	}
	e.mu.Lock()
	want := e.budget.wantsTotals()
	e.mu.Unlock()
	if want {
		if err := e.readBudgetTotals(); err != nil {
			e.logf(LevelWarn, 0, "", "page budgets: earlier runs' counts unreadable (%v): totals start from 0", err)
		}
	}
}

// sitesView builds the Sites pane's data, with what discovery found per site (by
// registered domain); nil when no site is declared.
func (e *Engine) sitesView(now time.Time, found []SiteDiscovery) *SitesView {
	book := e.sites.Load()
	if len(book.Sites()) == 0 {
		return nil
	}
	v := &SitesView{Every: e.opts.Rounds.Every}
	e.round.mu.Lock()
	v.Round = e.round.n
	e.round.mu.Unlock()
	for i := range book.Sites() {
		s := &book.Sites()[i]
		r := SiteRow{Name: s.Name, Kind: s.Kind, Class: e.classIn(s, hostOf(s.Entry)), Entry: s.Entry,
			Keywords: slices.Clone(book.Keywords(s.Name))}
		if s.Kind == SiteSocial {
			r.Entry, r.Class = s.Search, e.classIn(s, "")
		}
		e.siteTally.fill(&r, now)
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
		r.BudgetUsed, r.Budget = e.budget.used(r.Name)
		if r.BudgetTotal = e.budget.limit(budgetKey{name: r.Name, total: true}); r.BudgetTotal > 0 {
			r.TotalUsed = e.budget.siteTotal[r.Name]
		}
		r.Held = e.budget.held[r.Name]
	}
	e.mu.Unlock()
	return v
}

// publishedAt finds a page's publish time in its head: Open Graph's
// <meta property="article:published_time" content="..."> or schema.org's
// itemprop="datePublished" (content or datetime). Zero when it has neither; only a
// bounded look at the first 64 KiB, without parsing the page again.
func publishedAt(body []byte) time.Time {
	head := body[:min(len(body), 64<<10)]
	for _, marker := range [][]byte{[]byte(`article:published_time`), []byte(`datePublished`)} {
		i := bytes.Index(head, marker)
		if i < 0 {
			continue
		}
		rest := head[i:min(len(head), i+300)]
		for _, attr := range [][]byte{[]byte(`content="`), []byte(`datetime="`)} {
			j := bytes.Index(rest, attr)
			if j < 0 {
				continue
			}
			val := rest[j+len(attr):]
			if k := bytes.IndexByte(val, '"'); k > 0 {
				for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05Z0700", "2006-01-02"} {
					if t, err := time.Parse(layout, string(val[:k])); err == nil {
						return t
					}
				}
			}
		}
	}
	return time.Time{}
}
