package engine

import (
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Steer implements Control: it makes one change while the crawl runs (steer.Steerer),
// keeps it in the store, and says what happened. Nothing changes when it returns an
// error. A worker's front answers that its master makes the changes.
func (e *Engine) Steer(s steer.Change) (string, error) { return e.front.Steer(s) }

// steer makes a steering change in this process's front, while the crawl runs.
func (f localFront) Steer(s steer.Change) (string, error) {
	e := f.e
	e.mu.Lock()
	state := e.state
	e.mu.Unlock()
	if state != view.StateRunning && state != view.StatePaused {
		return "", fmt.Errorf("%s: the crawl is not running", s.Op)
	}
	return e.steer.Apply(s)
}

// steerPort is the engine as the crawl live steering changes (steer.Crawl): its site
// book, its store's meta table, its queue, its withdrawals and its budgets.
type steerPort struct{ e *Engine }

var _ steer.Crawl = steerPort{}

func (p steerPort) Sites() *sites.Book     { return p.e.sites.Load() }
func (p steerPort) SetSites(b *sites.Book) { p.e.sites.Store(b) }
func (p steerPort) Now() time.Time         { return p.e.now() }

func (p steerPort) Logf(level view.Level, format string, args ...any) {
	p.e.logf(level, 0, "", format, args...)
}

func (p steerPort) Kept(level view.Level, format string, args ...any) {
	p.e.logKept(level, format, args...)
}

func (p steerPort) Meta(key string) ([]byte, error) { return p.e.st.GetMeta(key) }
func (p steerPort) SetMeta(key string, data []byte) { p.e.st.SetMeta(key, data) }
func (p steerPort) CheckTarget(raw string) error    { return p.e.lanes.CheckTarget(raw) }
func (p steerPort) AddScope(u string)               { p.e.scope.AddSeed(u) }
func (p steerPort) StartRounds()                    { p.e.startRounds() }

func (p steerPort) QueueSources(items []revisit.Item) int {
	return p.e.fr.QueueSources(items, p.e.now())
}
func (p steerPort) KeepSources(items []revisit.Item)  { p.e.fr.KeepSources(items) }
func (p steerPort) Withdraw(items []revisit.Item) int { return p.e.fr.Withdraw(items) }

func (p steerPort) RestoreDiscovery(site string, after *sites.Book, live bool) {
	p.e.disc.RestoreSite(site, after, live)
}
func (p steerPort) WithdrawDiscovery(site string, before *sites.Book, live bool) int {
	return p.e.disc.WithdrawSite(site, before, live)
}

func (p steerPort) MarkOut(urls []string) { p.e.fr.MarkOutAny(urls) }

func (p steerPort) Unended(urls []string) ([]string, error) { return p.e.fr.Unended(urls) }
func (p steerPort) QueueSeed(n string) error                { return p.e.fr.QueueSeed(n) }

func (p steerPort) SetSiteBudget(site string, n int) {
	p.e.mu.Lock()
	p.e.budget.Set(front.BudgetKey{Name: site}, n)
	p.e.mu.Unlock()
}

func (p steerPort) SetBudget(c steer.Cap, n int, live bool) (back, recalled int, err error) {
	return p.e.fr.SetBudget(front.BudgetKey{Host: c.Host, Name: c.Name, Total: c.Total}, n, live)
}

func (p steerPort) KnowsHost(host string) (bool, error) { return p.e.KnowsHost(host) }
