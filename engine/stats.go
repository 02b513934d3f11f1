package engine

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// counters are the crawl's running totals: atomics on the hot path, a map under a
// mutex for error kinds.
type counters struct {
	pagesFetched atomic.Int64
	byClass      [len(statusClasses)]atomic.Int64 // pagesFetched by status class (/metrics, stats)
	pagesStored  atomic.Int64
	bytesFetched atomic.Int64
	refused      atomic.Int64
	urlsQueued   atomic.Int64
	urlsDone     atomic.Int64
	deferred     atomic.Int64

	confirmFetches atomic.Int64 // refetches confirming a soft refusal

	dedupeStoreChecks    atomic.Int64 // Maybe verdicts the store settled
	dedupeFalsePositives atomic.Int64 // of those, URLs the store then inserted as new

	skipped skipCounters // URLs skipped by choice, by kind (skips.go)

	storedByAge [7]atomic.Int64 // pages first stored, by view.AgeBand of their publication date

	mu       sync.Mutex
	errors   map[string]int64
	examples map[string][]string // the first URLs of each kind (exampleKinds kinds at most)
}

// exampleKinds bounds the kinds Stats.Examples names: kinds are a fixed vocabulary
// but for a few built from what a site sent, which must not grow the map.
const exampleKinds = 64

// exampleMax is the longest example kept whole: the longest URL the frontier takes.
const exampleMax = frontier.MaxURLLength

// example keeps url as one of the first of its kind, for the end-of-crawl summary.
func (c *counters) example(kind, url string) {
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
	c.examples[kind] = append(ex, url)
}

// exampleURLs copies the examples kept.
func (c *counters) exampleURLs() map[string][]string {
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

// pageCommitted counts a new page once the store committed it (store.Page.Committed).
func (c *counters) pageCommitted() {
	c.pagesStored.Add(1)
	c.urlsDone.Add(1)
}

// storedAged counts a page first stored by how old it said it was (view.AgeBand).
func (c *counters) storedAged(pub, at time.Time) {
	c.storedByAge[view.AgeBand(pub, at)].Add(1)
}

// urlDone counts a URL finished without a page once its state is committed.
func (c *counters) urlDone() { c.urlsDone.Add(1) }

// addError counts a URL that ended without a stored page under kind: among the skips
// when the kind is one (skips.go), among the errors otherwise.
func (c *counters) addError(kind string) {
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

func (c *counters) totals(lanesPeak int) Totals {
	t := Totals{
		PagesFetched: c.pagesFetched.Load(),
		PagesStored:  c.pagesStored.Load(),
		BytesFetched: c.bytesFetched.Load(),
		Refused:      c.refused.Load(),
		URLsQueued:   c.urlsQueued.Load(),
		URLsDone:     c.urlsDone.Load(),
		Deferred:     c.deferred.Load(),
		LanesPeak:    lanesPeak,
		Errors:       map[string]int64{},
		Skipped:      c.skipped.byKind(),
		ByClass:      map[string]int64{},
	}
	for i := range c.byClass {
		if n := c.byClass[i].Load(); n > 0 {
			t.ByClass[statusClasses[i]] = n
		}
	}
	t.ConfirmFetches = c.confirmFetches.Load()
	c.mu.Lock()
	for k, v := range c.errors {
		t.Errors[k] = v
	}
	c.mu.Unlock()
	return t
}

// statusClasses name the classes of HTTP status codes (RFC 9110 section 15), with
// "other" for codes outside 100..599.
var statusClasses = [...]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// response counts one response received: pages fetched, by status class.
func (c *counters) response(status int) {
	c.pagesFetched.Add(1)
	class := status / 100
	if class < 1 || class > 5 {
		class = 0
	}
	c.byClass[class].Add(1)
}

// rateMeter samples pages fetched once a second into a ring (the header sparkline).
type rateMeter struct {
	mu      sync.Mutex
	samples []float64 // pages/s, oldest first
	last    int64
	lastAt  time.Time
}

const rateSamples = 120

func (r *rateMeter) sample(now time.Time, fetched int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.lastAt.IsZero() {
		dt := now.Sub(r.lastAt).Seconds()
		if dt > 0 {
			r.samples = append(r.samples, float64(fetched-r.last)/dt)
			if len(r.samples) > rateSamples {
				r.samples = r.samples[len(r.samples)-rateSamples:]
			}
		}
	}
	r.last, r.lastAt = fetched, now
}

// current is the mean over the last few samples, and a copy of the history.
func (r *rateMeter) current() (float64, []float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hist := append([]float64(nil), r.samples...)
	n := min(5, len(hist))
	if n == 0 {
		return 0, hist
	}
	var sum float64
	for _, v := range hist[len(hist)-n:] {
		sum += v
	}
	return sum / float64(n), hist
}

// eventRing keeps the newest events for the console's log pane.
type eventRing struct {
	mu   sync.Mutex
	buf  []Event
	next int
	seq  uint64
}

const eventRingSize = 2048

func (r *eventRing) add(e Event) Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e.Seq = r.seq
	if len(r.buf) < eventRingSize {
		r.buf = append(r.buf, e)
	} else {
		r.buf[r.next] = e
		r.next = (r.next + 1) % eventRingSize
	}
	return e
}

func (r *eventRing) last() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

func (r *eventRing) since(after uint64, max int) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	n := len(r.buf)
	for i := 0; i < n; i++ {
		e := r.buf[(r.next+i)%n]
		if e.Seq > after {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// endState is the state Stats gives: once the crawl is stopped, DONE if it had run
// dry, STOPPED if it was stopped with URLs left; before, the header's state.
func (e *Engine) endState() State {
	nextRound := e.nextRoundAt()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failure == nil && (e.state == StateDone || e.state == StateStopping) {
		select {
		case <-e.done:
			return StateDone
		default:
			return StateStopped
		}
	}
	waiting := e.board.Queued()
	for _, v := range e.board.View() {
		waiting += v.Queued
	}
	return e.stateNow(nextRound, waiting)
}
