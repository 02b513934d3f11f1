// Package deferral keeps the tasks a crawl's lanes set aside until a time, until
// they are written to the front.
package deferral

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Deferrals are the tasks set aside until a time (M3: a disabled host, an
// unreachable robots.txt, a Retry-After; a page budget) and not yet written to the
// front, and this run's deferred URLs per host, so that enabling a host again
// brings them back at once. Guarded by the crawl's lock (Runner.Mu): deferring
// happens where a task leaves the board, and the write, in Take's caller, outside it.
type Deferrals struct {
	list   []Deferred
	byHost map[string][]string
}

// Deferred is one task set aside until a time.
type Deferred struct {
	Task  frontier.Task // what a worker reports to its master (M4)
	Until time.Time
	// Kind is what the URL counts under while set aside (robots_unreachable), for
	// a master to count it as one box does; empty when it counts under none (a
	// host disabled or asking to wait).
	Kind string
}

// Add sets t aside until until, counted under kind (empty: none).
func (d *Deferrals) Add(t frontier.Task, until time.Time, kind string) {
	d.list = append(d.list, Deferred{Task: t, Until: until, Kind: kind})
	if d.byHost == nil {
		d.byHost = map[string][]string{}
	}
	d.byHost[t.Host] = append(d.byHost[t.Host], t.URL)
}

// Take returns the deferrals not yet written, and forgets them.
func (d *Deferrals) Take() []Deferred {
	list := d.list
	d.list = nil
	return list
}

// TakeHost returns the URLs of host deferred in this run, and forgets them.
func (d *Deferrals) TakeHost(host string) []string {
	urls := d.byHost[host]
	delete(d.byHost, host)
	return urls
}
