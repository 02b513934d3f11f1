package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
)

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
	e.budget.Restore(bySite, byHost)
	e.mu.Unlock()
	return nil
}

// parkedInStore reads the URLs a total budget k parked, earlier runs' included: those
// deferred further than any other deferral goes (front.ParkFor).
func (e *Engine) parkedInStore(k front.BudgetKey) ([]string, error) {
	if err := e.st.Flush(); err != nil {
		return nil, err
	}
	site, host := k.Name, ""
	if k.Host {
		site, host = "", k.Name
	}
	return e.st.ParkedURLs(site, host, e.now().Add(front.ParkFor/2), front.MaxParked)
}

// holdBack defers a task a budget held back and counts it as skipped under kind.
// Caller holds e.mu.
func (e *Engine) holdBack(t frontier.Task, kind string, until time.Time) {
	e.budget.Park(t)
	e.c.AddError(kind)
	e.hosts.Record(hostreport.Ending{Host: t.Host, Site: siteOf(t), Kind: kind, Skip: true})
	e.deferTask(t, until)
}

// admitTask is place's budget check; it marks t Budgeted when it counted it.
// Caller holds e.mu. false: held back.
func (e *Engine) admitTask(t *frontier.Task) bool {
	t.Budgeted = false
	if e.crew.countsAtHandOut() {
		return true // counted as it leaves for a worker (masterPort.Admit)
	}
	if !e.budget.Active() {
		return true
	}
	kind, until := e.budget.Admit(*t, e.now())
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
	e.c.AddError(kind)
	e.mu.Lock()
	n := e.budget.Trapped(t.Site)
	e.mu.Unlock()
	if n <= 20 {
		e.logf(LevelInfo, 0, t.Host, "%s: link held back: %s (found on %s)", kind, link, t.URL)
	}
}
