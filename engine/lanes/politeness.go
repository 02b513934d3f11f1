package lanes

import (
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/lanes/internal/waitline"
	"github.com/crawlconsole/crawlconsole/engine/lanes/pace"
)

// Reason names the term that sets a host's current gap (shown in the Lanes and
// Groups panes).
type Reason string

// The terms of a host's gap, largest wins.
const (
	ReasonDelay      Reason = "delay"       // the configured floor: lanes.delay_min or 1/host_rate
	ReasonCrawlDelay Reason = "crawl-delay" // robots.txt Crawl-delay, capped by fetch.max_crawl_delay
	ReasonLatency    Reason = "latency"     // delay_factor × the host's last response time
	ReasonBackoff    Reason = "backoff"     // overload back-off (429/503 without Retry-After, timeouts, rising latency)
)

// Adaptive configures how a host's gap follows the server. The zero value
// turns every adaptive term off: the gap is then the configured delay alone.
//
// The latency term is Heritrix's (WorkQueueFrontier "delay-factor": wait a multiple
// of the last fetch's duration); the back-off is what Nutch 1.19+ and StormCrawler do
// on 429/503 answers without Retry-After: exponential, with jitter, capped.
type Adaptive struct {
	// DelayFactor: the gap after a response is at least DelayFactor × that response's
	// time. 0 turns the latency term off.
	DelayFactor float64
	// MaxDelay caps the latency term (0: BackoffMax caps it, if set).
	MaxDelay time.Duration
	// BackoffMin is the first back-off after an overload signal; each further signal
	// doubles it. 0 turns the back-off off.
	BackoffMin time.Duration
	// BackoffMax caps the back-off.
	BackoffMax time.Duration
	// ForgiveAfter: a host that sent no overload signal for this long is forgiven its
	// back-off. Before that, each calm answer halves it.
	ForgiveAfter time.Duration
	// Jitter returns a number in [0,1) (tests inject one); nil is math/rand/v2.
	Jitter func() float64
}

// Pacer is a pluggable pacing policy (pace.Pacer; the gate takes its gap as one
// more term).
type Pacer = pace.Pacer

// Response is what a finished request told the gate about the server (pace.Response).
type Response = pace.Response

// Signals of rising latency: riseRun answers in a row each this many times slower
// than the host's usual and slower by at least riseFloor. One slow answer is a slow
// page, a garbage collection or a busy client more often than a sinking server, and
// below the floor jitter on a fast host is not a signal.
const (
	riseFactor = 3
	riseFloor  = 100 * time.Millisecond
	riseRun    = 3
	maxLevel   = 24 // 2^24 × any sane BackoffMin is past any sane BackoffMax
)

// hostState is one host's aggregate state across every egress.
type hostState struct {
	inflight int
	free     chan struct{} // closed when inflight drops to 0; made by freed, for a waiter
	lastEnd  time.Time     // end of the latest response, any egress

	interval    time.Duration // host cap / Crawl-delay, as of the last Acquire
	intervalWhy Reason

	latency    time.Duration // last response time
	usual      time.Duration // moving average of response times (rising-latency signal)
	slowRun    int           // answers in a row well above usual
	level      int           // back-off level; 0 = none
	backoff    time.Duration // current back-off, jitter included
	lastSignal time.Time

	urgent     int           // urgent requests waiting (Wait.Urgent)
	urgentDone chan struct{} // closed when urgent drops to 0

	waitline.Line // the requests waiting for the host, from any egress
}

// urge counts an urgent request in (+1) or out (-1) of the host's wait.
func (h *hostState) urge(d int) {
	if h.urgent == 0 && d > 0 {
		h.urgentDone = make(chan struct{})
	}
	h.urgent += d
	if h.urgent == 0 {
		close(h.urgentDone)
	}
}

func (h *hostState) take() {
	h.inflight++
}

// freed is keyState.freed for the host across egresses.
func (h *hostState) freed() chan struct{} {
	if h.free == nil {
		h.free = make(chan struct{})
	}
	return h.free
}

// serial says whether the host takes one request at a time: while a cap or a
// back-off holds, the gap runs from the end of one response, so a second request
// may not overlap the first.
func (h *hostState) serial(now time.Time, a Adaptive) bool {
	return h.interval > 0 || h.level > 0
}

// gap is the host's current end-to-start gap and the term that sets it.
func (h *hostState) gap(now time.Time, a Adaptive) (time.Duration, Reason) {
	gap, why := h.interval, h.intervalWhy
	if a.DelayFactor > 0 && h.latency > 0 {
		lt := time.Duration(a.DelayFactor * float64(h.latency))
		if a.MaxDelay > 0 {
			lt = min(lt, a.MaxDelay)
		} else if a.BackoffMax > 0 {
			lt = min(lt, a.BackoffMax)
		}
		if lt > gap {
			gap, why = lt, ReasonLatency
		}
	}
	if h.level > 0 && h.backoff > gap {
		gap, why = h.backoff, ReasonBackoff
	}
	return gap, why
}

// give ends one request to the host and learns from its answer; stall is how long
// the crawler itself stood still while the request was out (internal/stall).
func (h *hostState) give(now, start time.Time, r Response, a Adaptive, stall time.Duration) {
	if h.inflight > 0 {
		h.inflight--
		if h.inflight == 0 && h.free != nil {
			close(h.free)
			h.free = nil
		}
	}
	if now.After(h.lastEnd) {
		h.lastEnd = now
	}
	if r.Status == 0 && !r.Timeout {
		return
	}
	lat := r.Latency
	if lat == 0 {
		lat = now.Sub(start)
	}
	rising := false
	if !r.Timeout && lat > 0 { // a timeout's duration is the client's limit, not the server's pace
		// The server's share of the answer's time: a crawler that stood still
		// while the answer was out read it late, and every host would look slow.
		// What is left is judged as before, so a server that slows down on a
		// crawler that runs is backed off as soon as ever.
		srv := max(lat-stall, time.Microsecond)
		if h.usual > 0 && srv > riseFactor*h.usual && srv-h.usual >= riseFloor {
			h.slowRun++
		} else {
			h.slowRun = 0
		}
		rising = h.slowRun >= riseRun
		h.latency = lat
		if h.usual == 0 {
			h.usual = srv
		} else {
			h.usual += (srv - h.usual) / 8
		}
	}
	overloaded := r.Timeout || rising ||
		((r.Status == http.StatusTooManyRequests || r.Status == http.StatusServiceUnavailable) && !r.RetryAfter)
	switch {
	case a.BackoffMin <= 0:
	case overloaded:
		h.level = min(h.level+1, maxLevel)
		h.lastSignal = now
		h.backoff = h.backoffAt(a, true)
	case h.level > 0 && a.ForgiveAfter > 0 && now.Sub(h.lastSignal) >= a.ForgiveAfter:
		h.level, h.backoff = 0, 0 // forgiven: a quiet period passed
	case h.level > 0:
		h.level-- // a calm answer: halve the back-off
		h.backoff = h.backoffAt(a, false)
	}
}

// backoffAt is the back-off of the current level: BackoffMin doubled per level
// above the first, up to half again more with jitter (so hosts and crawlers that
// were refused together do not come back together), capped at BackoffMax.
func (h *hostState) backoffAt(a Adaptive, jitter bool) time.Duration {
	if h.level == 0 {
		return 0
	}
	b := a.BackoffMin << (h.level - 1)
	if b <= 0 { // overflow
		b = a.BackoffMax
	}
	if jitter {
		j := a.Jitter
		if j == nil {
			j = rand.Float64
		}
		b += time.Duration(j() * float64(b) / 2)
	}
	if a.BackoffMax > 0 && b > a.BackoffMax {
		b = a.BackoffMax
	}
	return b
}

// idle says the host's state can no longer delay anyone and holds no back-off.
func (h *hostState) idle(now time.Time, a Adaptive) bool {
	if h.inflight > 0 || h.level > 0 || h.urgent > 0 || len(h.Waiting) > 0 {
		return false
	}
	gap, _ := h.gap(now, a)
	return now.Sub(h.lastEnd) > gap
}
