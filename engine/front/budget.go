package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/skips"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Page budgets: nothing else keeps one site from filling the queue, the
// problem Scrapy's maintainers call the most common with polite crawling
// (scrapy#2435). A budget caps the pages a host or a site is handed to the lanes,
// per round (as Nutch's generate.max.count caps a segment) and in total (as
// Heritrix's quotas and BUbiNG's per-host maximum). A URL over budget is never
// dropped: it is deferred — until the next round for a round budget, until the
// operator raises the budget for a total one — and counted as skipped under its
// reason, so the header, the Sites pane and --stats-json show what was held back.

// Budget skip kinds: why a URL was held back.
const (
	SkipBudgetHost = skips.BudgetHost // its host used up its page budget (round or total)
	SkipBudgetSite = skips.BudgetSite // its site used up its page budget (round or total)
)

// ParkFor is how far a total budget defers a URL: in effect until the operator
// raises the budget (which brings the URLs back at once), yet a date the store's
// nanosecond timestamps can hold.
const ParkFor = 50 * 365 * 24 * time.Hour

// MaxParked bounds the URLs per site remembered for :budget to bring back at once;
// beyond it they still come back, at their deferral's end.
const MaxParked = 100_000

// BudgetKey names one budget :budget can set: a site's or a host's, per round or
// in total.
type BudgetKey struct {
	Host  bool   // Name is a host (else a site)
	Name  string // the site's name or the host
	Total bool   // pages over the whole crawl (else per round)
}

// Holds tells whether the budget counts t: its host's, or its site's.
func (k BudgetKey) Holds(t frontier.Task) bool {
	if k.Host {
		return t.Host == k.Name
	}
	return t.Site == k.Name
}

// Budgets is the ledger of the pages handed to lanes per host and site. It takes
// no lock of its own: every method expects the engine's lock (Engine.mu) held, as
// the queue's placing runs under it.
type Budgets struct {
	o          config.BudgetOptions
	siteRound  map[string]int    // per-site round budget: sites[].budget, :budget SITE N
	caps       map[BudgetKey]int // the other budgets :budget set, over o (0 = no cap)
	totalsRead bool              // totals hold earlier runs' pages (Restore)
	every      time.Duration     // round length, for crawls without declared sites
	roundStart time.Time
	hostRound  map[string]int
	siteRd     map[string]int
	hostTotal  map[string]int
	siteTotal  map[string]int
	held       map[string]int64    // site -> URLs held back by a budget or a trap guard (Sites pane)
	parked     map[string][]string // site -> URLs a budget deferred this run (:budget raising it brings them back)
	traps      int64               // links the trap guards held back (the first few are logged)
}

// NewBudgets is an empty ledger over the configured budgets o; every is the round
// length of a crawl without declared sites (0: one round).
func NewBudgets(o config.BudgetOptions, every time.Duration) *Budgets {
	return &Budgets{o: o, every: every, siteRound: map[string]int{}, caps: map[BudgetKey]int{}, hostRound: map[string]int{},
		siteRd: map[string]int{}, hostTotal: map[string]int{}, siteTotal: map[string]int{}, held: map[string]int64{},
		parked: map[string][]string{}}
}

// Active reports whether any budget is set: without one, placing pays one branch.
func (b *Budgets) Active() bool {
	return b.o.HostRound > 0 || b.o.HostTotal > 0 || b.o.SiteRound > 0 || b.o.SiteTotal > 0 || len(b.siteRound) > 0 || len(b.caps) > 0
}

// WantsTotals reports whether a total budget is set, so the totals must hold what
// earlier runs fetched.
func (b *Budgets) WantsTotals() bool {
	if b.o.HostTotal > 0 || b.o.SiteTotal > 0 {
		return true
	}
	for k, n := range b.caps {
		if k.Total && n > 0 {
			return true
		}
	}
	return false
}

// TotalsRead reports whether the totals hold earlier runs' pages already.
func (b *Budgets) TotalsRead() bool { return b.totalsRead }

// NewRound starts counting the round budgets afresh.
func (b *Budgets) NewRound(now time.Time) {
	b.roundStart = now
	clear(b.hostRound)
	clear(b.siteRd)
}

// roundBudget is a site's page budget per round (0 = none).
func (b *Budgets) roundBudget(site string) int {
	if n, ok := b.siteRound[site]; ok {
		return n
	}
	return b.o.SiteRound
}

// Limit is the budget in force for k (0 = no cap): what :budget set, else the
// config's.
func (b *Budgets) Limit(k BudgetKey) int {
	if !k.Host && !k.Total {
		return b.roundBudget(k.Name)
	}
	if n, ok := b.caps[k]; ok {
		return n
	}
	switch {
	case k.Host && k.Total:
		return b.o.HostTotal
	case k.Host:
		return b.o.HostRound
	}
	return b.o.SiteTotal
}

// Set makes n the budget for k (0: no cap, whatever the config says) and returns
// the one it replaces.
func (b *Budgets) Set(k BudgetKey, n int) (old int) {
	old = b.Limit(k)
	if !k.Host && !k.Total {
		b.siteRound[k.Name] = n
	} else {
		b.caps[k] = n
	}
	return old
}

// Overrides are the budgets set over the configuration (sites[].budget, :budget),
// a site's round budget under its key with Host and Total false.
func (b *Budgets) Overrides() map[BudgetKey]int {
	out := make(map[BudgetKey]int, len(b.siteRound)+len(b.caps))
	for site, n := range b.siteRound {
		out[BudgetKey{Name: site}] = n
	}
	for k, n := range b.caps {
		out[k] = n
	}
	return out
}

// Admit counts a task about to go to a lane, or says why it is held back and until
// when: the next round, or parked (a total budget).
func (b *Budgets) Admit(t frontier.Task, now time.Time) (kind string, until time.Time) {
	if b.roundStart.IsZero() || b.every > 0 && now.Sub(b.roundStart) >= b.every {
		b.NewRound(now)
	}
	next := b.roundStart.Add(b.every)
	over := func(n, limit int) bool { return limit > 0 && n >= limit }
	switch {
	case over(b.hostTotal[t.Host], b.Limit(BudgetKey{Host: true, Name: t.Host, Total: true})):
		return SkipBudgetHost, now.Add(ParkFor)
	case over(b.siteTotal[t.Site], b.Limit(BudgetKey{Name: t.Site, Total: true})):
		return SkipBudgetSite, now.Add(ParkFor)
	case over(b.hostRound[t.Host], b.Limit(BudgetKey{Host: true, Name: t.Host})):
		return SkipBudgetHost, next
	}
	if n := b.roundBudget(t.Site); n > 0 && b.siteRd[t.Site] >= n {
		return SkipBudgetSite, next
	}
	b.Count(t)
	return "", time.Time{}
}

// Count counts a task handed to a lane.
func (b *Budgets) Count(t frontier.Task) {
	b.hostRound[t.Host]++
	b.siteRd[t.Site]++
	b.hostTotal[t.Host]++
	b.siteTotal[t.Site]++
}

// Unadmit takes back the count of a task admitted and never fetched (handed back
// to the master, or its batch never sent): it is counted again when it is next
// handed out. A round that began since may count one page fewer, never less than 0.
func (b *Budgets) Unadmit(t frontier.Task) {
	for _, c := range []struct {
		m map[string]int
		k string
	}{{b.hostRound, t.Host}, {b.siteRd, t.Site}, {b.hostTotal, t.Host}, {b.siteTotal, t.Site}} {
		if c.m[c.k] > 0 {
			c.m[c.k]--
		}
	}
}

// HostUsed is a host's pages this round and its round budget, for the Hosts pane.
func (b *Budgets) HostUsed(host string) (n, budget int) {
	return b.hostRound[host], b.Limit(BudgetKey{Host: true, Name: host})
}

// Used is a site's pages this round and its round budget, for the Sites pane.
func (b *Budgets) Used(site string) (n, budget int) {
	return b.siteRd[site], b.roundBudget(site)
}

// SiteTotal is a site's pages over the whole crawl, for the Sites pane.
func (b *Budgets) SiteTotal(site string) int { return b.siteTotal[site] }

// Held is how many of a site's URLs a budget or a trap guard held back.
func (b *Budgets) Held(site string) int64 { return b.held[site] }

// Restore seeds the total counts with what the store says was fetched. A count
// this run kept already (pages handed out, some not yet fetched) is kept when it is
// the larger.
func (b *Budgets) Restore(bySite, byHost map[string]int64) {
	for s, n := range bySite {
		b.siteTotal[s] = max(b.siteTotal[s], int(n))
	}
	for h, n := range byHost {
		b.hostTotal[h] = max(b.hostTotal[h], int(n))
	}
	b.totalsRead = true
}

// Park counts a task a budget held back on its site and remembers its URL (up to
// MaxParked per site), for Unpark to bring back when the budget is raised.
func (b *Budgets) Park(t frontier.Task) {
	b.held[t.Site]++
	if p := b.parked[t.Site]; len(p) < MaxParked {
		b.parked[t.Site] = append(p, t.URL)
	}
}

// Trapped counts a link a trap guard held back on the site of the page that linked
// to it, and returns how many links the guards held back so far.
func (b *Budgets) Trapped(site string) int64 {
	b.held[site]++
	b.traps++
	return b.traps
}

// Unpark takes out the URLs held back this run that k's budget may have held: its
// site's, or its host's (on whatever site they were counted). Those another budget
// still holds are held again when they come back.
func (b *Budgets) Unpark(k BudgetKey) []string {
	if !k.Host {
		out := b.parked[k.Name]
		delete(b.parked, k.Name)
		return out
	}
	var out []string
	for site, urls := range b.parked {
		keep := urls[:0]
		for _, u := range urls {
			if HostOf(u) == k.Name {
				out = append(out, u)
			} else {
				keep = append(keep, u)
			}
		}
		b.parked[site] = keep
	}
	return out
}

// AppendNew appends to list the URLs of more it does not hold.
func AppendNew(list, more []string) []string {
	seen := make(map[string]bool, len(list))
	for _, u := range list {
		seen[u] = true
	}
	for _, u := range more {
		if !seen[u] {
			seen[u] = true
			list = append(list, u)
		}
	}
	return list
}

// admit is placing's budget check; it marks t Budgeted when it counted it. Lock
// held. false: held back (deferred, and counted as skipped under its reason).
func (f *Front) admit(t *frontier.Task) bool {
	t.Budgeted = false
	if f.crawl.CountsAtHandOut() {
		return true // counted as it leaves for a worker
	}
	if !f.Budgets.Active() {
		return true
	}
	kind, until := f.Budgets.Admit(*t, f.crawl.Now())
	if kind == "" {
		t.Budgeted = true
		return true
	}
	f.HoldBack(*t, kind, until)
	return false
}

// HoldBack defers a task a budget held back and counts it as skipped under kind.
// Lock held.
func (f *Front) HoldBack(t frontier.Task, kind string, until time.Time) {
	f.Budgets.Park(t)
	f.Counters.AddError(kind)
	f.Hosts.Record(hostreport.Ending{Host: t.Host, Site: SiteOf(t), Kind: kind, Skip: true})
	f.crawl.Defer(t, until)
}

// trapped counts a link a trap guard held back, as a skip of its kind, on the site
// of the page that linked to it. The first few are logged with the URL so the
// operator can tell a guard set too tight from a real trap.
func (f *Front) trapped(t frontier.Task, link, kind string) {
	f.Counters.AddError(kind)
	f.Mu.Lock()
	n := f.Budgets.Trapped(t.Site)
	f.Mu.Unlock()
	if n <= 20 {
		f.crawl.Logf(view.LevelInfo, t.Host, "%s: link held back: %s (found on %s)", kind, link, t.URL)
	}
}

// ReadBudgetTotals counts what was fetched per site and host, earlier runs
// included (one scan of the URL table), into the totals: at start when a total
// budget is set, or when :budget sets the first one.
func (f *Front) ReadBudgetTotals() error {
	rows, err := f.Store.FetchedBySiteHost()
	if err != nil {
		return err
	}
	bySite, byHost := map[string]int64{}, map[string]int64{}
	for _, r := range rows {
		bySite[r.Site] += r.N
		byHost[r.Host] += r.N
	}
	f.Mu.Lock()
	f.Budgets.Restore(bySite, byHost)
	f.Mu.Unlock()
	return nil
}

// ParkedInStore reads the URLs a total budget k parked, earlier runs' included:
// those deferred further than any other deferral goes (ParkFor).
func (f *Front) ParkedInStore(k BudgetKey) ([]string, error) {
	if err := f.Store.Flush(); err != nil {
		return nil, err
	}
	site, host := k.Name, ""
	if k.Host {
		site, host = "", k.Name
	}
	return f.Store.ParkedURLs(site, host, f.crawl.Now().Add(ParkFor/2), MaxParked)
}
