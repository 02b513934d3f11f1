package front

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Counters are the crawl's running totals: atomics on the hot path, a map under a
// mutex for error kinds.
type Counters struct {
	PagesFetched atomic.Int64
	ByClass      [len(statusClasses)]atomic.Int64 // PagesFetched by status class (/metrics, stats)
	PagesStored  atomic.Int64
	BytesFetched atomic.Int64
	Refused      atomic.Int64
	URLsQueued   atomic.Int64
	URLsDone     atomic.Int64
	Deferred     atomic.Int64

	ConfirmFetches atomic.Int64 // refetches confirming a soft refusal

	DedupeStoreChecks    atomic.Int64 // Maybe verdicts the store settled
	DedupeFalsePositives atomic.Int64 // of those, URLs the store then inserted as new

	skipped skipCounters // URLs skipped by choice, by kind (skips.go)

	StoredByAge [7]atomic.Int64 // pages first stored, by view.AgeBand of their publication date

	mu       sync.Mutex
	errors   map[string]int64
	warnings map[string]int64    // discovery's document warnings (AddWarning)
	examples map[string][]string // the first URLs of each kind (exampleKinds kinds at most)
	waiting  robotsWaiting       // URLs deferred because robots.txt did not answer (Deferral)
}

// robotsWaiting are this run's URLs set aside because their site's robots.txt did
// not answer and not fetched or ended since, by host. Each is counted once under
// robots_unreachable however often it is deferred again: an operator reads an
// error count as URLs, and a site down for an hour defers each of its URLs many times.
type robotsWaiting struct {
	urls   map[string]string // URL → host
	hosts  map[string]int    // URLs waiting by host
	waited int64             // URLs counted under robots_unreachable as they were set aside
	// behind are the URLs set aside because their site's robots.txt redirects to
	// a host the operator holds (Deferral's behind), not counted as not answering,
	// each with its host and that held host; behindBy counts them by the two, so
	// that the Sites pane's reasons (RobotsWaits) are read per host, not found by
	// walking a backlog that may hold every URL of a large site at each frame.
	behind   map[string]behindWait
	behindBy map[behindWait]int
	// n is len(urls)+len(behind), read without the lock on every record (Settled).
	n atomic.Int64
}

// behindWait is a host whose robots.txt redirects to held, a host the operator holds.
type behindWait struct{ host, held string }

// setBehind notes url, of host, waiting behind held, or waiting behind no held
// host (held ""): settled, or set aside for another reason (its own host
// disabled, its page budget), it no longer gives its site that reason. Lock held.
func (w *robotsWaiting) setBehind(url, host, held string) {
	was, ok := w.behind[url]
	if ok && was.held == held && was.host == host {
		return
	}
	if ok {
		delete(w.behind, url)
		if w.behindBy[was]--; w.behindBy[was] <= 0 {
			delete(w.behindBy, was)
		}
	}
	if held != "" {
		if w.behind == nil {
			w.behind, w.behindBy = map[string]behindWait{}, map[behindWait]int{}
		}
		b := behindWait{host: host, held: held}
		w.behind[url] = b
		w.behindBy[b]++
	}
	w.n.Store(int64(len(w.urls) + len(w.behind)))
}

// exampleKinds bounds the kinds Stats.Examples names: kinds are a fixed vocabulary
// but for a few built from what a site sent, which must not grow the map.
const exampleKinds = 64

// exampleMax is the longest example kept whole: the longest URL the frontier takes.
const exampleMax = frontier.MaxURLLength

// Example keeps url as one of the first of its kind, for the end-of-crawl summary.
func (c *Counters) Example(kind, url string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ex, ok := c.examples[kind]
	if len(ex) >= view.ExampleURLs || (!ok && len(c.examples) >= exampleKinds) {
		return
	}
	if c.examples == nil {
		c.examples = map[string][]string{}
	}
	if len(url) > exampleMax { // a malformed seed may be any length
		url = fmt.Sprintf("%s…(%d bytes)", url[:exampleMax], len(url))
	}
	// A URL deferred again (robots_unreachable while the site stays down) counts
	// again but is one example: the examples name different URLs.
	for _, u := range ex {
		if u == url {
			return
		}
	}
	c.examples[kind] = append(ex, url)
}

// ExampleURLs copies the examples kept.
func (c *Counters) ExampleURLs() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.examples) == 0 {
		return nil
	}
	m := make(map[string][]string, len(c.examples))
	for k, v := range c.examples {
		m[k] = append([]string(nil), v...)
	}
	return m
}

// PageCommitted counts a new page once the store committed it (store.Page.Committed).
func (c *Counters) PageCommitted() {
	c.PagesStored.Add(1)
	c.URLsDone.Add(1)
}

// StoredAged counts a page first stored by how old it said it was (view.AgeBand).
func (c *Counters) StoredAged(pub, at time.Time) {
	c.StoredByAge[view.AgeBand(pub, at)].Add(1)
}

// Deferral counts a URL set aside (written to the store as deferred) under kind,
// or under none (kind ""): once among the deferred, and once under an error kind
// with the URL as an example. A URL deferred again while it waits for its site's
// robots.txt (robots_unreachable) is the same deferral, not a new error: nothing is
// counted. behind is the held host the URL's site waits behind ("": none): the
// Sites pane says so (RobotsWaits) until the URL settles or is set aside for
// another reason.
func (c *Counters) Deferral(kind, url, host, behind string) {
	if behind != "" || c.waiting.n.Load() > 0 { // none waits behind a held host: nothing to take back
		c.mu.Lock()
		c.waiting.setBehind(url, host, behind)
		c.mu.Unlock()
	}
	if kind != fetch.KindRobotsDown {
		c.Deferred.Add(1)
		if kind != "" {
			c.AddError(kind)
			c.Example(kind, url)
		}
		return
	}
	c.mu.Lock()
	w := &c.waiting
	if _, again := w.urls[url]; again {
		c.mu.Unlock()
		return
	}
	if w.urls == nil {
		w.urls, w.hosts = map[string]string{}, map[string]int{}
	}
	w.urls[url] = host
	w.hosts[host]++
	w.n.Store(int64(len(w.urls) + len(w.behind)))
	w.waited++
	if c.errors == nil {
		c.errors = map[string]int64{}
	}
	c.errors[kind]++
	c.mu.Unlock()
	c.Deferred.Add(1)
	c.Example(kind, url)
}

// Settled: url got an outcome (fetched, failed, skipped): it no longer waits for
// its site's robots.txt, if it did.
func (c *Counters) Settled(url string) {
	if c.waiting.n.Load() == 0 {
		return // nothing waits: every record but a few ends here
	}
	c.mu.Lock()
	w := &c.waiting
	if host, ok := w.urls[url]; ok {
		delete(w.urls, url)
		if w.hosts[host]--; w.hosts[host] <= 0 {
			delete(w.hosts, host)
		}
	}
	w.setBehind(url, "", "") // counts n anew
	c.mu.Unlock()
}

// RobotsWaits are the hosts whose URLs wait on their site's robots.txt, each with
// the host the operator holds that its robots.txt redirects to, "" when it does
// not answer. A host waiting behind two held hosts (its robots.txt redirected
// elsewhere since) gives the first by name.
func (c *Counters) RobotsWaits() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &c.waiting
	out := make(map[string]string, len(w.hosts)+len(w.behindBy))
	for host := range w.hosts {
		out[host] = ""
	}
	for b := range w.behindBy {
		if h, ok := out[b.host]; !ok || h == "" || b.held < h {
			out[b.host] = b.held
		}
	}
	return out
}

// RobotsUnreachable is the Sites pane's reason for a site whose robots.txt does
// not answer.
const RobotsUnreachable = "robots.txt unreachable"

// RobotsHeld is the Sites pane's reason for a site whose robots.txt redirects to
// held, a host the operator holds.
func RobotsHeld(held string) string { return "robots → " + held + " held" }

// RobotsWaiting is the robots.txt wait of Totals without the URLs of the hosts in
// disabled: a host on the host_disable_list (the operator's :disable, every egress
// refused) holds its URLs until it comes off whatever robots.txt answers, so they
// wait for the operator, among the deferred, not for robots.txt. Waited still
// counts them: they were set aside under robots_unreachable.
func (c *Counters) RobotsWaiting(disabled map[string]bool) view.RobotsWaiting {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &c.waiting
	r := view.RobotsWaiting{URLs: int64(len(w.urls)), Sites: len(w.hosts), Waited: w.waited}
	for host := range disabled {
		if n := w.hosts[host]; n > 0 {
			r.URLs -= int64(n)
			r.Sites--
		}
	}
	return r
}

// URLDone counts a URL finished without a page once its state is committed.
func (c *Counters) URLDone() { c.URLsDone.Add(1) }

// AddError counts a URL that ended without a stored page under kind: among the skips
// when the kind is one (skips.go), among the errors otherwise.
func (c *Counters) AddError(kind string) {
	if i := skipIndex(kind); i >= 0 {
		c.skipped.add(i, 1)
		return
	}
	c.mu.Lock()
	if c.errors == nil {
		c.errors = map[string]int64{}
	}
	c.errors[kind]++
	c.mu.Unlock()
}

// AddWarning counts a warning of kind: something read was not quite what it said
// (a feed's malformed XML, an invalid date, a sitemap child out of scope), with no
// URL failed by it. Warnings are counted apart from errors, so a crawl whose
// sitemaps carry bad dates does not read as a failing one.
func (c *Counters) AddWarning(kind string) {
	c.mu.Lock()
	if c.warnings == nil {
		c.warnings = map[string]int64{}
	}
	c.warnings[kind]++
	c.mu.Unlock()
}

// Totals are the counts so far, with lanesPeak lanes alive at most at once.
func (c *Counters) Totals(lanesPeak int) view.Totals {
	t := view.Totals{
		PagesFetched: c.PagesFetched.Load(),
		PagesStored:  c.PagesStored.Load(),
		BytesFetched: c.BytesFetched.Load(),
		Refused:      c.Refused.Load(),
		URLsQueued:   c.URLsQueued.Load(),
		URLsDone:     c.URLsDone.Load(),
		Deferred:     c.Deferred.Load(),
		LanesPeak:    lanesPeak,
		Errors:       map[string]int64{},
		Warnings:     map[string]int64{},
		Skipped:      c.skipped.byKind(),
		ByClass:      map[string]int64{},
	}
	for i := range c.ByClass {
		if n := c.ByClass[i].Load(); n > 0 {
			t.ByClass[statusClasses[i]] = n
		}
	}
	t.ConfirmFetches = c.ConfirmFetches.Load()
	c.mu.Lock()
	for k, v := range c.errors {
		t.Errors[k] = v
	}
	for k, v := range c.warnings {
		t.Warnings[k] = v
	}
	t.Robots = view.RobotsWaiting{URLs: int64(len(c.waiting.urls)), Sites: len(c.waiting.hosts), Waited: c.waiting.waited}
	c.mu.Unlock()
	return t
}

// statusClasses name the classes of HTTP status codes (RFC 9110 section 15), with
// "other" for codes outside 100..599.
var statusClasses = [...]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// Response counts one response received: pages fetched, by status class.
func (c *Counters) Response(status int) {
	c.PagesFetched.Add(1)
	class := status / 100
	if class < 1 || class > 5 {
		class = 0
	}
	c.ByClass[class].Add(1)
}

// Telemetry adds the front's figures to a monitoring scrape: the store's commits
// and write queue, the pages stored by age.
func (f *Front) Telemetry(t *view.Telemetry) {
	l := f.Store.CommitLatency()
	t.StoreCommit = &view.Histogram{Count: l.Count, Sum: l.Sum, Buckets: l.Buckets}
	t.StoreBusy = f.Store.WriterBusy()
	t.StoreQueue = f.Store.WriteQueue()
	t.StoredByAge = make([]int64, len(f.Counters.StoredByAge))
	for i := range f.Counters.StoredByAge {
		t.StoredByAge[i] = f.Counters.StoredByAge[i].Load()
	}
}
