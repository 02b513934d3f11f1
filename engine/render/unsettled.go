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
//     yieldEvery; one unanswered for Config.YieldLimit (default yieldLimit, at
//     most half the cap) means its
//     script holds the main thread (a loop that never yields): the render ends
//     there (ErrNoYield), its context recycled, instead of at the cap. The limit
//     leaves room for a heavy site's first script on a loaded box.
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
		pctx, stop := context.WithTimeout(t.ctx, limit)
		chromedp.Run(pctx, chromedp.Evaluate[int](`1`))
		hung := pctx.Err() == context.DeadlineExceeded
		stop()
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

// noYieldErr is the yield watch's reason as an error that is ErrNoYield.
func noYieldErr(why string) error {
	return &noYield{why}
}

type noYield struct{ why string }

func (e *noYield) Error() string        { return e.why }
func (e *noYield) Is(target error) bool { return target == ErrNoYield }
