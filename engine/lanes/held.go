package lanes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// HostHeld reports whether the operator holds host: paused (SetHostPaused) or on
// the host_disable_list. A held host gets no request of any kind from this node,
// robots.txt and a robots.txt redirect's hop included, on one box as on a worker
// (whose master sets both). Mu not held.
func (r *Runner) HostHeld(host string) bool {
	if r.pausing.Load() > 0 {
		host = strings.ToLower(host)
		r.Mu.Lock()
		paused := r.heldHosts[host]
		r.Mu.Unlock()
		if paused {
			return true
		}
	}
	if r.Pool == nil || !r.Pool.Rotation().Listed() {
		return false
	}
	host = strings.ToLower(host)
	_, off := r.Pool.Rotation().DisabledUntil(host)
	return off
}

// errHostHeld is the answer of a request not sent because the operator held its
// host while the lane waited to send it (mayLeave).
var errHostHeld = errors.New("not asked: the operator holds the host")

// errLeaseLost wraps Lease's answer for a hand-out the master gave to another
// worker (mayLeave): the request is not sent, and its task is dropped.
var errLeaseLost = errors.New("not asked: lease lost")

// inLease is mayLeave's lease for a redirect's hop inside the client: the hop
// belongs to the request it follows, which passed the lease's wait already.
const inLease = ^uint64(0)

// mayLeave is the one step every request to host passes right before it leaves,
// after its gate wait: a page's, a robots.txt's (lease 0), a refusal's confirming
// refetch, a render's own, a redirect's hop (inLease). It answers ctx's error when
// the crawl or the caller stopped; waits for the worker's lease on the hand-out
// numbered lease (M4), errLeaseLost when the master gave it to another worker;
// then errHostHeld when the operator holds host (paused, disabled): checked after
// the lease's wait, which can be long (a master restarting), so that a hold made
// meanwhile holds the request too. nil: it may leave now.
func (r *Runner) mayLeave(ctx context.Context, host string, lease uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if lease != inLease {
		if err := r.leaseHeld(ctx, lease); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w (%w)", errLeaseLost, err)
		}
	}
	if r.HostHeld(host) {
		return errHostHeld
	}
	return nil
}

// hopHeld is the client's check of a redirect's hop (fetch.Config.Held): a held
// host gets no hop either.
func (r *Runner) hopHeld(host string) bool {
	return errors.Is(r.mayLeave(r.Ctx, host, inLease), errHostHeld)
}

// heldInHand ends the turn of t, unsent, as the operator held host while the
// lane had it in hand (t's own, or the one its site's robots.txt redirects to): a
// disabled host's task is deferred to the disable's end, a paused host's goes
// back to its lane's queue to wait for the resume (swapped: the lane takes its
// next task without a pause), but with DeferBehindPaused a site's behind a paused
// host is deferred (deferBehind). A hold lifted meanwhile places it again. begun: the
// store has it in progress (Record.Begin), to undo unless deferred.
func (r *Runner) heldInHand(s *Slot, t frontier.Task, begun bool, host string) (swapped bool) {
	r.Front.Logf(view.LevelDebug, s.Lane.ID, t.Host, "%s not asked for: the operator holds %s; it waits for the hold's end", t.URL, host)
	if r.deferDisabled(t, host) || r.deferBehind(t, host) {
		return false
	}
	swapped = r.asidePaused(s, t)
	if begun {
		r.Record.Abandon(t, s.Lane.ID)
	}
	if !swapped {
		r.Mu.Lock()
		r.Front.Place(t)
		r.Mu.Unlock()
		r.Front.Flush()
	}
	return swapped
}

// deferBehind defers t when DeferBehindPaused and its site's robots.txt redirects
// to host, which the operator paused, and says whether it did. A master holds back
// the paused host's own tasks, not those of the sites behind it: set aside in a
// worker's lanes, they would stay in its window (Window, the tasks it holds) for
// as long as the pause lasts, and fill it, the worker's other sites dealt nothing
// behind them. Deferred to robots.txt's first retry (etiquette.robots_retry), not
// counted as a robots.txt that does not answer, they come back to ask whether the
// hold ended. Mu not held.
func (r *Runner) deferBehind(t frontier.Task, host string) bool {
	if host == t.Host || !r.DeferBehindPaused {
		return false
	}
	r.Mu.Lock()
	r.Front.DeferBehind(t, r.now().Add(r.Robots.RetryAfter(1)), host)
	r.Mu.Unlock()
	r.Front.Flush()
	return true
}

// notLeft is fetchWithRetry's answer for a begun task whose request mayLeave kept:
// held in hand (heldInHand), set aside (kindSwapped) or moved (deferred, placed
// again); its lease lost (kindLeaseLost); the crawl stopping.
func (r *Runner) notLeft(s *Slot, t frontier.Task, err error) (*fetch.Result, []fetch.Exchange, string, bool) {
	switch {
	case errors.Is(err, errHostHeld):
		if r.heldInHand(s, t, true, t.Host) {
			return nil, nil, kindSwapped, false
		}
		return nil, nil, "", true
	case errors.Is(err, errLeaseLost):
		return nil, nil, kindLeaseLost, false
	}
	return nil, nil, fetch.KindCanceled, false
}
