// Package feeds is the crawl's side of news discovery (M1): the feeds, sitemaps
// and entry pages it polls, what each read of one announces, and how often each is
// read again. Parsing a document and learning a source's pace are package
// discover's; this package applies them to one crawl: it turns a read into the
// page's links, makes pages whose dates moved due now, keeps what it learned in the
// store across restarts, and answers the Sites pane.
//
// It owns its state and its locks. What it needs from the crawl (the queue, the
// counts, the log, the clock) it asks through the Crawl port, which the engine
// implements; it never takes the engine's lock, so the engine may call it while
// holding that lock.
package feeds

import (
	"net/url"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Crawl is what discovery needs from the crawl it serves. Its methods must not
// call back into Discovery while holding a lock the caller may hold.
type Crawl interface {
	// Now is the crawl's clock.
	Now() time.Time
	// Logf records an event in the crawl's log; host may be empty.
	Logf(level view.Level, host, format string, args ...any)
	// Count adds one to a warning kind of the crawl's counts (discovery_*).
	Count(kind string)
	// QueueSitemaps queues sitemap URLs (normalised) as links of the crawl, those
	// its scope allows.
	QueueSitemaps(urls []string)
	// Requeue makes stored pages due now, whatever their class window; it returns
	// how many went back in the queue.
	Requeue(urls []string, now time.Time) (int, error)
	// NotQueued lists those of urls that are not waiting in the queue now.
	NotQueued(urls []string) []string
	// NewsSite says whether host belongs to a declared news site.
	NewsSite(host string) bool
	// Withdraw takes queued sources out of the queue (steered out) and returns how
	// many it took; KeepSources undoes it for sources a site brought back.
	Withdraw(urls []string) int
	KeepSources(urls []string)
	// MarkOut keeps URLs the store hands back at start out of the queue.
	MarkOut(urls []string)
}

// Store is the part of the crawl's store discovery reads and writes.
type Store interface {
	GetMeta(key string) ([]byte, error)
	SetMeta(key string, v []byte)
	Revisits(urls []string) ([]model.Revisit, error)
	SetRevisitNext(urls []string, next time.Time)
}

// Options is what discovery reads of the crawl's options.
type Options struct {
	Discovery config.DiscoveryOptions
	Revisit   config.RevisitOptions // the page revisit policy (AwaitHint)
	// MaxBodyBytes caps a document parsed again from its raw body (Read): the
	// larger of fetch.max_body_bytes and discovery.max_document_bytes.
	MaxBodyBytes int64
	// Seeded are the registered domains of the config's seeds: the sources of
	// their hosts that no declared site holds are never left parked at start (an
	// undeclared host's unit is its registered domain). Those of a declared site's
	// hosts are left parked unless the config declares the site (withdrawParked).
	Seeded []string
	// Sites is the crawl's site book now (live steering swaps it whole): discovery
	// keeps its per-site state by the declared site a host belongs to, else by its
	// registered domain (units.go). nil: no site is declared.
	Sites func() *sites.Book
}

// TakeAhead reports whether u is an article a read just listed as new (it goes
// ahead of its lane's due reads), and unmarks it.
func (d *Discovery) TakeAhead(u string) bool { return d != nil && d.ahead.take(u) }

// Poller is the discover.Poller pacing the crawl's sources, for tests that watch
// what it learned.
func (d *Discovery) Poller() *discover.Poller { return d.poller }

// Hinted is how many fetches wait as hinted refetches (a date moved).
func (d *Discovery) Hinted() int { return int(d.nHinted.Load()) }

func hostOf(normalized string) string {
	u, err := url.Parse(normalized)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
