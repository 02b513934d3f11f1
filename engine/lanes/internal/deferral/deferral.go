// Package deferral keeps the tasks a crawl's lanes set aside until a time, until
// they are written to the front.
package deferral

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/holds"
)

// Deferrals are the tasks set aside until a time (M3: a disabled host, an
// unreachable robots.txt, a Retry-After; a page budget) and not yet written to the
// front, and this run's deferred URLs per host they wait for, so that enabling a
// host again brings them back at once. Guarded by the crawl's lock (Runner.Mu): deferring
// happens where a task leaves the board, and the write, in Take's caller, outside it.
type Deferrals struct {
	list   []Deferred
	byHost holds.Waiting
}

// Deferred is one task set aside until a time.
type Deferred struct {
	Task  frontier.Task // what a worker reports to its master (M4)
	Until time.Time
	// Kind is what the URL counts under while set aside (robots_unreachable), for
	// a master to count it as one box does; empty when it counts under none (a
	// host disabled or asking to wait).
	Kind string
	// Behind is the host the operator holds that the task's site waits behind (its
	// robots.txt redirects there): the hold's end brings the task back with the
	// host's own. "": it waits for its own host, if for any.
	Behind string
}

// Add sets x.Task aside until x.Until, filed under the host it waits for (Behind,
// else its own) until then; now forgets those whose end passed.
func (d *Deferrals) Add(x Deferred, now time.Time) {
	d.list = append(d.list, x)
	host := x.Task.Host
	if x.Behind != "" {
		host = x.Behind
	}
	d.byHost.Add(host, x.Task.URL, x.Until, now)
}

// Take returns the deferrals not yet written, and forgets them.
func (d *Deferrals) Take() []Deferred {
	list := d.list
	d.list = nil
	return list
}

// TakeHost returns the URLs deferred in this run that wait for host (its own, and
// those of the sites behind it; some may have come back by themselves since), and
// forgets them.
func (d *Deferrals) TakeHost(host string) []string { return d.byHost.Take(host) }

// Waiting is the number of URLs filed for TakeHost.
func (d *Deferrals) Waiting() int { return d.byHost.Len() }
