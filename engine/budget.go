package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
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
	SkipBudgetHost = "budget_host" // its host used up its page budget (round or total)
	SkipBudgetSite = "budget_site" // its site used up its page budget (round or total)
)

// parkFor is how far a total budget defers a URL: in effect until the operator
// raises the budget (which brings the URLs back at once), yet a date the store's
// nanosecond timestamps can hold.
const parkFor = 50 * 365 * 24 * time.Hour

// maxParked bounds the URLs per site remembered for :budget to bring back at once;
// beyond it they still come back, at their deferral's end.
const maxParked = 100_000

// budgetKey names one budget :budget can set: a site's or a host's, per round or
// in total.
type budgetKey struct {
	host  bool   // name is a host (else a site)
	name  string // the site's name or the host
	total bool   // pages over the whole crawl (else per round)
}

// budgetLedger counts the pages handed to lanes per host and site. Guarded by
// Engine.mu (place runs under it).
type budgetLedger struct {
	o          BudgetOptions
	siteRound  map[string]int    // per-site round budget: sites[].budget, :budget SITE N
	caps       map[budgetKey]int // the other budgets :budget set, over o (0 = no cap)
	totalsRead bool              // totals hold earlier runs' pages (restore)
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

func newBudgetLedger(o BudgetOptions, every time.Duration) *budgetLedger {
	return &budgetLedger{o: o, every: every, siteRound: map[string]int{}, caps: map[budgetKey]int{}, hostRound: map[string]int{},
		siteRd: map[string]int{}, hostTotal: map[string]int{}, siteTotal: map[string]int{}, held: map[string]int64{},
		parked: map[string][]string{}}
}

// active reports whether any budget is set: without one, place pays one branch.
func (b *budgetLedger) active() bool {
	return b.o.HostRound > 0 || b.o.HostTotal > 0 || b.o.SiteRound > 0 || b.o.SiteTotal > 0 || len(b.siteRound) > 0 || len(b.caps) > 0
}

// wantsTotals reports whether a total budget is set, so the totals must hold what
// earlier runs fetched.
func (b *budgetLedger) wantsTotals() bool {
	if b.o.HostTotal > 0 || b.o.SiteTotal > 0 {
		return true
	}
	for k, n := range b.caps {
		if k.total && n > 0 {
			return true
		}
	}
	return false
}

// newRound starts counting the round budgets afresh.
func (b *budgetLedger) newRound(now time.Time) {
	b.roundStart = now
	clear(b.hostRound)
	clear(b.siteRd)
}

// roundBudget is a site's page budget per round (0 = none).
func (b *budgetLedger) roundBudget(site string) int {
	if n, ok := b.siteRound[site]; ok {
		return n
	}
	return b.o.SiteRound
}

// limit is the budget in force for k (0 = no cap): what :budget set, else the
// config's.
func (b *budgetLedger) limit(k budgetKey) int {
	if !k.host && !k.total {
		return b.roundBudget(k.name)
	}
	if n, ok := b.caps[k]; ok {
		return n
	}
	switch {
	case k.host && k.total:
		return b.o.HostTotal
	case k.host:
		return b.o.HostRound
	}
	return b.o.SiteTotal
}

// set makes n the budget for k (0: no cap, whatever the config says) and returns
// the one it replaces.
func (b *budgetLedger) set(k budgetKey, n int) (old int) {
	old = b.limit(k)
	if !k.host && !k.total {
		b.siteRound[k.name] = n
	} else {
		b.caps[k] = n
	}
	return old
}

// admit counts a task about to go to a lane, or says why it is held back and until
// when: the next round, or parked (a total budget).
func (b *budgetLedger) admit(t frontier.Task, now time.Time) (kind string, until time.Time) {
	if b.roundStart.IsZero() || b.every > 0 && now.Sub(b.roundStart) >= b.every {
		b.newRound(now)
	}
	next := b.roundStart.Add(b.every)
	over := func(n, limit int) bool { return limit > 0 && n >= limit }
	switch {
	case over(b.hostTotal[t.Host], b.limit(budgetKey{host: true, name: t.Host, total: true})):
		return SkipBudgetHost, now.Add(parkFor)
	case over(b.siteTotal[t.Site], b.limit(budgetKey{name: t.Site, total: true})):
		return SkipBudgetSite, now.Add(parkFor)
	case over(b.hostRound[t.Host], b.limit(budgetKey{host: true, name: t.Host})):
		return SkipBudgetHost, next
	}
	if n := b.roundBudget(t.Site); n > 0 && b.siteRd[t.Site] >= n {
		return SkipBudgetSite, next
	}
	b.count(t)
	return "", time.Time{}
}

// count counts a task handed to a lane.
func (b *budgetLedger) count(t frontier.Task) {
	b.hostRound[t.Host]++
	b.siteRd[t.Site]++
	b.hostTotal[t.Host]++
	b.siteTotal[t.Site]++
}

// unadmit takes back the count of a task admitted and never fetched (handed back
// to the master, or its batch never sent): it is counted again when it is next
// handed out. A round that began since may count one page fewer, never less than 0.
func (b *budgetLedger) unadmit(t frontier.Task) {
	for _, c := range []struct {
		m map[string]int
		k string
	}{{b.hostRound, t.Host}, {b.siteRd, t.Site}, {b.hostTotal, t.Host}, {b.siteTotal, t.Site}} {
		if c.m[c.k] > 0 {
			c.m[c.k]--
		}
	}
}

// hostUsed is a host's pages this round and its round budget, for the Hosts pane.
func (b *budgetLedger) hostUsed(host string) (n, budget int) {
	return b.hostRound[host], b.limit(budgetKey{host: true, name: host})
}

// used is a site's pages this round and its round budget, for the Sites pane.
func (b *budgetLedger) used(site string) (n, budget int) {
	return b.siteRd[site], b.roundBudget(site)
}

// restore seeds the total counts with what the store says was fetched. A count
// this run kept already (pages handed out, some not yet fetched) is kept when it is
// the larger.
func (b *budgetLedger) restore(bySite, byHost map[string]int64) {
	for s, n := range bySite {
		b.siteTotal[s] = max(b.siteTotal[s], int(n))
	}
	for h, n := range byHost {
		b.hostTotal[h] = max(b.hostTotal[h], int(n))
	}
	b.totalsRead = true
}

// readBudgetTotals counts what was fetched per site and host, earlier runs
// included (one scan of the URL table), into the totals: at start when a total
// budget is set, or when :budget sets the first one.
func (e *Engine) readBudgetTotals() error {
	rows, err := e.st.FetchedBySiteHost()
	if err != nil {
		return err
	}
	bySite, byHost := map[string]int64{}, map[string]int64{}
	for _, r := range rows {
		bySite[r.Site] += r.N
		byHost[r.Host] += r.N
	}
	e.mu.Lock()
	e.budget.restore(bySite, byHost)
	e.mu.Unlock()
	return nil
}

// unpark takes out the URLs held back this run that k's budget may have held: its
// site's, or its host's (on whatever site they were counted). Those another budget
// still holds are held again when they come back.
func (b *budgetLedger) unpark(k budgetKey) []string {
	if !k.host {
		out := b.parked[k.name]
		delete(b.parked, k.name)
		return out
	}
	var out []string
	for site, urls := range b.parked {
		keep := urls[:0]
		for _, u := range urls {
			if hostOf(u) == k.name {
				out = append(out, u)
			} else {
				keep = append(keep, u)
			}
		}
		b.parked[site] = keep
	}
	return out
}

// parkedInStore reads the URLs a total budget k parked, earlier runs' included: those
// deferred further than any other deferral goes (parkFor).
func (e *Engine) parkedInStore(k budgetKey) ([]string, error) {
	if err := e.st.Flush(); err != nil {
		return nil, err
	}
	site, host := k.name, ""
	if k.host {
		site, host = "", k.name
	}
	return e.st.ParkedURLs(site, host, e.now().Add(parkFor/2), maxParked)
}

// appendNew appends to list the URLs of more it does not hold.
func appendNew(list, more []string) []string {
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

// holdBack defers a task a budget held back and counts it as skipped under kind.
// Caller holds e.mu.
func (e *Engine) holdBack(t frontier.Task, kind string, until time.Time) {
	e.budget.held[t.Site]++
	if p := e.budget.parked[t.Site]; len(p) < maxParked {
		e.budget.parked[t.Site] = append(p, t.URL)
	}
	e.c.addError(kind)
	e.hosts.Record(hostreport.Ending{Host: t.Host, Site: siteOf(t), Kind: kind, Skip: true})
	e.deferTask(t, until)
}

// admitTask is place's budget check; it marks t Budgeted when it counted it.
// Caller holds e.mu. false: held back.
func (e *Engine) admitTask(t *frontier.Task) bool {
	t.Budgeted = false
	if e.crew.countsAtHandOut() {
		return true // counted as it leaves for a worker (budget_cluster.go)
	}
	if !e.budget.active() {
		return true
	}
	kind, until := e.budget.admit(*t, e.now())
	if kind == "" {
		t.Budgeted = true
		return true
	}
	e.holdBack(*t, kind, until)
	return false
}

// trapped counts a link a trap guard held back, as a skip of its kind, on the site
// of the page that linked to it. The first few are logged with the URL so the
// operator can tell a guard set too tight from a real trap.
func (e *Engine) trapped(t frontier.Task, link, kind string) {
	e.c.addError(kind)
	e.mu.Lock()
	e.budget.held[t.Site]++
	e.budget.traps++
	n := e.budget.traps
	e.mu.Unlock()
	if n <= 20 {
		e.logf(LevelInfo, 0, t.Host, "%s: link held back: %s (found on %s)", kind, link, t.URL)
	}
}
