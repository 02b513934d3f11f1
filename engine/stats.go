package engine

import (
	"sort"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

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
	buf  []view.Event
	next int
	seq  uint64
}

const eventRingSize = 2048

func (r *eventRing) add(e view.Event) view.Event {
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

func (r *eventRing) since(after uint64, max int) []view.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []view.Event
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
func (e *Engine) endState() view.State {
	nextRound := e.nextRoundAt()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fr.Failure() == nil && (e.state == view.StateDone || e.state == view.StateStopping) {
		select {
		case <-e.done:
			return view.StateDone
		default:
			return view.StateStopped
		}
	}
	waiting := e.board.Queued()
	for _, v := range e.board.View() {
		waiting += v.Queued
	}
	return e.stateNow(nextRound, waiting)
}
