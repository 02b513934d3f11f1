package engine

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Steer implements Control: it makes one change while the crawl runs (steer.Steerer),
// keeps it in the store, and says what happened. Nothing changes when it returns an
// error. A worker's front answers that its master makes the changes.
func (e *Engine) Steer(s steer.Change) (string, error) { return e.front.steer(s) }

// steer makes a steering change in this process's front, while the crawl runs.
func (f localFront) steer(s steer.Change) (string, error) {
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
func (p steerPort) CheckTarget(raw string) error    { return p.e.checkTarget(raw) }
func (p steerPort) AddScope(u string)               { p.e.scope.AddSeed(u) }
func (p steerPort) StartRounds()                    { p.e.startRounds() }

func (p steerPort) QueueSources(items []revisit.Item) int { return p.e.queueSources(items, p.e.now()) }
func (p steerPort) KeepSources(items []revisit.Item)      { p.e.fr.KeepSources(items) }
func (p steerPort) Withdraw(items []revisit.Item) int     { return p.e.fr.Withdraw(items) }

func (p steerPort) RestoreDiscovery(domain string, live bool) { p.e.disc.RestoreSite(domain, live) }
func (p steerPort) WithdrawDiscovery(domain string, live bool) int {
	return p.e.disc.WithdrawSite(domain, live)
}

func (p steerPort) MarkOut(urls []string) {
	m := make(map[string]uint64, len(urls))
	for _, u := range urls {
		m[u] = 0
	}
	p.e.mu.Lock()
	p.e.fr.MarkOut(m)
	p.e.mu.Unlock()
}

// Unended reads the store: a URL it does not have, or has ended (failed, or
// withdrawn by steering), is left out.
func (p steerPort) Unended(urls []string) ([]string, error) {
	rows, err := p.e.st.URLStates(urls)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range rows {
		if row.State == store.Failed || row.State == store.Processed && row.ErrKind == front.SkipSteeredOut {
			continue // ended: nothing brings it back but its source added back
		}
		out = append(out, row.URL)
	}
	return out, nil
}

func (p steerPort) SetSiteBudget(site string, n int) {
	p.e.mu.Lock()
	p.e.budget.Set(front.BudgetKey{Name: site}, n)
	p.e.mu.Unlock()
}

// SetBudget sets one budget (front.Budgets). Raising one brings back at once the URLs it
// may have held: this run's, and for a total budget those earlier runs parked (in
// the store only). Lowering one recalls what the queues hold of it, handed out
// before, to count it again.
func (p steerPort) SetBudget(c steer.Cap, n int, live bool) (back, recalled int, err error) {
	e := p.e
	key := front.BudgetKey{Host: c.Host, Name: c.Name, Total: c.Total}
	e.mu.Lock()
	readTotals := live && key.Total && n > 0 && !e.budget.TotalsRead()
	e.mu.Unlock()
	if readTotals {
		// The first total budget of this run: it counts what earlier runs fetched too
		// (at start, restoreSiteCounts reads them after the replay).
		if err := e.fr.ReadBudgetTotals(); err != nil {
			return 0, 0, fmt.Errorf("budget: earlier runs' page counts unreadable: %v; budget unchanged", err)
		}
	}
	e.mu.Lock()
	old := e.budget.Set(key, n)
	lift := n == 0 || old > 0 && n > old
	var held []string
	if lift {
		held = e.budget.Unpark(key)
	}
	e.mu.Unlock()
	e.flushDeferred() // their deferral is written before it is undone
	if live && !lift {
		recalled = e.recallOver(key) // what queues hold, handed out before, is counted again
	}
	if lift && live && key.Total {
		// A total budget's URLs stay parked across restarts: those of earlier runs
		// are in the store only.
		earlier, err := e.fr.ParkedInStore(key)
		if err != nil {
			e.logf(view.LevelWarn, 0, "", "budget: URLs parked by earlier runs not read (%v): they come back at their deferral's end", err)
		}
		held = front.AppendNew(held, earlier)
	}
	now := e.now()
	for _, u := range held {
		e.st.Defer(u, now) // due now: requeueDeferred brings it back
	}
	return len(held), recalled, nil
}

// QueueSeed queues an operator's new seed (normalised, checked) as its lane's next
// fetch, unless the crawl has it already.
func (p steerPort) QueueSeed(n string) error {
	e := p.e
	early := !e.opts.SteerBaseline // on the board at once, as a new search (front.Front.ReserveEarly)
	if early {
		e.fr.ReserveEarly([]string{n})
	}
	if err := e.st.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
		e.fr.DropEarly([]string{n})
		return fmt.Errorf("seed add: store: %v", err)
	}
	if row, err := e.st.URLState(n); err == nil {
		e.fr.DropEarly([]string{n})
		return fmt.Errorf("seed add: %s is already in this crawl (%s); nothing queued", n, row.State)
	} else if !errors.Is(err, store.ErrNotFound) {
		e.fr.DropEarly([]string{n})
		return fmt.Errorf("seed add: store: %v", err)
	}
	e.scope.AddSeed(n)
	fresh := []store.URL{e.fr.LinkRecord(n, 0, 0)}
	if early {
		fresh = e.fr.SettleEarly([]string{n}, fresh) // empty: a link to it was queued meanwhile
	}
	e.mu.Lock()
	e.fr.MarkUrgent(n) // the operator's seed is its lane's next fetch, as a new search is
	e.mu.Unlock()
	e.dedupe.CheckURLs([]string{n})
	e.fr.Submit(fresh, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	if early {
		e.fr.PlaceEarly(fresh)
	}
	return nil
}

// queueSources queues entry and search URLs now (M3): new ones through the store,
// known ones back to the queue. It returns how many went.
func (e *Engine) queueSources(items []revisit.Item, now time.Time) int {
	// No Flush first: a source whose insert is still in the writer's batch reads as
	// new here, and the store's unique index ignores it (INSERT OR IGNORE); waiting
	// for the batch would only delay the operator's new search. The new ones go on
	// the board at once (front.Front.PlaceEarly).
	early := !e.opts.SteerBaseline
	urls := make([]string, len(items))
	for i, it := range items {
		urls[i] = it.URL
	}
	if early {
		e.fr.ReserveEarly(urls)
	}
	fresh, again, err := e.fr.SplitSources(items)
	if err != nil {
		if early {
			e.fr.DropEarly(urls)
		}
		e.logf(view.LevelError, 0, "", "steering: %v", err)
		return 0
	}
	if early {
		fresh = e.fr.SettleEarly(urls, fresh)
	}
	seen := make([]string, len(fresh))
	for i, r := range fresh {
		seen[i] = r.URL
	}
	e.mu.Lock()
	for _, it := range items {
		e.fr.MarkUrgent(it.URL)
	}
	e.mu.Unlock()
	e.dedupe.CheckURLs(seen)
	e.fr.Submit(fresh, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	if early {
		e.fr.PlaceEarly(fresh)
	}
	n, err := e.fr.Requeue(again, now, true)
	if err != nil {
		e.logf(view.LevelWarn, 0, "", "steering: %v", err)
	}
	return len(fresh) + n
}

// checkTarget applies the SSRF policy (fetch.Guard) to a URL's host before it is
// queued, so an operator learns at once that a seed on a private address will never
// be fetched. The dialer checks again on every connection.
func (e *Engine) checkTarget(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return e.guard.Check(host, a.Unmap())
	}
	var r fetch.Resolver
	switch {
	case e.dns != nil:
		r = e.dns
	case e.opts.Resolver != nil:
		r = e.opts.Resolver
	case host == "localhost":
		return e.guard.Check(host, netip.MustParseAddr("127.0.0.1"))
	default:
		// A master resolves nothing itself: its workers' DNS caches (and their
		// dialers' guard, on every connection) do. A name on a private address is
		// then refused at its fetch, counted as ssrf_blocked.
		return nil
	}
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupAddrs(ctx, host)
	if err != nil {
		return fmt.Errorf("%s does not resolve (%v): check the name", host, err)
	}
	for _, a := range addrs {
		if err := e.guard.Check(host, a.Unmap()); err != nil {
			return err
		}
	}
	return nil
}
