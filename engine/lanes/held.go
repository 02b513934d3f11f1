package lanes

import (
	"errors"
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
	host = strings.ToLower(host)
	r.Mu.Lock()
	paused := r.heldHosts[host]
	r.Mu.Unlock()
	if paused {
		return true
	}
	if r.Pool == nil {
		return false
	}
	_, off := r.Pool.Rotation().DisabledUntil(host)
	return off
}

// errHostHeld is the answer of a request not sent because the operator held its
// host while the lane waited to send it (robotsFor, a refusal's confirming refetch).
var errHostHeld = errors.New("not asked: the operator holds the host")

// heldInHand ends the turn of t, unsent, whose host the operator held while the
// lane had it in hand: a disabled host's task is deferred to the disable's end, a
// paused host's goes back to its lane's queue to wait for the resume (swapped:
// the lane takes its next task without a pause). A hold lifted meanwhile places
// it again. begun: the store has it in progress (Record.Begin), to undo unless
// deferred.
func (r *Runner) heldInHand(s *Slot, t frontier.Task, begun bool) (swapped bool) {
	r.Front.Logf(view.LevelDebug, s.Lane.ID, t.Host, "%s not asked for: the operator holds %s; it waits for the hold's end", t.URL, t.Host)
	if r.deferDisabled(t) {
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

// heldBegun is fetchWithRetry's answer for a begun task held in hand (heldInHand):
// set aside (kindSwapped), or moved (deferred, placed again).
func (r *Runner) heldBegun(s *Slot, t frontier.Task) (*fetch.Result, []fetch.Exchange, string, bool) {
	if r.heldInHand(s, t, true) {
		return nil, nil, kindSwapped, false
	}
	return nil, nil, "", true
}
