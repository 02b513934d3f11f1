package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// A page that never settles costs its render's whole time cap, and a page whose
// script never yields burns a core for it. Two watches end them sooner:
//
//   - the yield watch asks the page's renderer a trivial question every
//     yieldEvery; one left unanswered for Config.YieldLimit (default
//     yieldLimit, at most half the cap) while a renderer of the browser ran that
//     long on the CPU means its script holds the main thread (a loop that never
//     yields): the render ends there (ErrNoYield), its context recycled, instead
//     of at the cap. The limit is the page's own running time, not the wall's: a
//     renderer starved of CPU on a loaded box (a busy crawl box, other browsers
//     beside it) leaves the question unanswered as long, but runs nothing, and
//     its page is rendered once it gets the CPU. Where a process's CPU time
//     cannot be read (no /proc: not Linux) the wall's limit judges alone. The
//     renderer is not told from the others: a page starved while another tab's
//     script loops can be judged with it, a rare pair on a box that slow.
//   - the settle sees a polling page: its DOM unchanged for domStill while it
//     asks the same URLs again and again (pollRepeats repeats since the DOM last
//     changed). It has built what it will: its DOM is read then (ErrUnsettled's
//     note), not at the cap.
//
// A host with a page that did not settle is remembered (Service): its next
// pages render in a hurry (Job.Hurry), their watches and cap halved.

// ErrNoYield says a page's script held the renderer's main thread past the yield
// watch's limit: the render was ended, and the page is kept as fetched.
var ErrNoYield = errors.New("the page's script did not yield")

// errUnsettled ends the settle of a page that polls forever with a DOM that no
// longer changes.
var errUnsettled = errors.New("render: the page polls without changing its DOM")

const (
	yieldEvery  = 250 * time.Millisecond
	yieldLimit  = 3 * time.Second
	domStill    = time.Second
	pollRepeats = 3
	// busyProbe is how often the settle looks at a page whose network is busy.
	busyProbe = 250 * time.Millisecond
	// recentMax bounds the completions a render remembers for the poll check.
	recentMax = 32
)

// hurry is a watch's or cap's length for a job: halved for a host whose pages
// did not settle before.
func hurry(j *Job, d time.Duration) time.Duration {
	if j.Hurry {
		return d / 2
	}
	return d
}

// completion is one of the page's requests answered.
type completion struct {
	at  time.Time
	key string // its URL without the query (a poll's cache-buster)
}

// recent keeps a render's last completions.
type recent struct {
	mu sync.Mutex
	cs []completion
}

func (c *recent) add(url string) {
	k, _, _ := strings.Cut(url, "?")
	c.mu.Lock()
	if len(c.cs) >= recentMax {
		c.cs = append(c.cs[:0], c.cs[1:]...)
	}
	c.cs = append(c.cs, completion{time.Now(), k})
	c.mu.Unlock()
}

// repeats counts the completions after since whose URL was answered before in
// that stretch: a poll's second and later answers.
func (c *recent) repeats(since time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	n := 0
	for _, x := range c.cs {
		if x.at.Before(since) {
			continue
		}
		if seen[x.key] {
			n++
		}
		seen[x.key] = true
	}
	return n
}

// watchYield runs the yield watch until done closes or the render ends.
func (t *tab) watchYield(r *run, limit, cap time.Duration, done <-chan struct{}) {
	tick := time.NewTicker(yieldEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-r.ctx.Done():
			return
		case <-tick.C:
		}
		hung := t.unanswered(r, limit, done)
		select {
		case <-done:
			return
		default:
		}
		if hung && r.ctx.Err() == nil && t.ctx.Err() == nil {
			r.noYield.Store(true)
			r.fail(fmt.Sprintf("%v for %v: ended before the %v cap", ErrNoYield, limit, cap))
			return
		}
	}
}

// unanswered asks the page's renderer a trivial question and waits for the
// answer: false once it came (or the render ended), true once it was left
// unanswered for limit while a renderer of the browser ran limit on the CPU (less
// the first yieldEvery, before its CPU time is first read: most questions are
// answered by then, and /proc is not walked for them).
func (t *tab) unanswered(r *run, limit time.Duration, done <-chan struct{}) bool {
	qctx, stop := context.WithCancel(t.ctx)
	defer stop()
	answered := make(chan struct{})
	go func() {
		chromedp.Run(qctx, chromedp.Evaluate[int](`1`))
		close(answered)
	}()
	asked := time.Now()
	tick := time.NewTicker(yieldEvery)
	defer tick.Stop()
	var cpu0 map[process]time.Duration
	for {
		select {
		case <-answered:
			return false
		case <-done:
			return false
		case <-r.ctx.Done():
			return false
		case <-tick.C:
		}
		if cpu0 == nil {
			if cpu0 = rendererCPU(t.browser); cpu0 == nil {
				cpu0 = map[process]time.Duration{} // not readable: the wall judges
			}
		}
		if time.Since(asked) < limit {
			continue
		}
		if len(cpu0) == 0 || ranFor(cpu0, rendererCPU(t.browser)) >= limit-yieldEvery {
			return true
		}
	}
}

// noYieldErr is the yield watch's reason as an error that is ErrNoYield.
func noYieldErr(why string) error {
	return &noYield{why}
}

type noYield struct{ why string }

func (e *noYield) Error() string        { return e.why }
func (e *noYield) Is(target error) bool { return target == ErrNoYield }
