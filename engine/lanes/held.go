package lanes

import (
	"errors"
	"strings"

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

// errHostHeld is robotsFor's answer when the operator held the host while the
// lane waited to ask for its robots.txt: nothing was sent.
var errHostHeld = errors.New("robots.txt not asked: the operator holds the host")

// heldInHand ends the turn of t, unsent and not begun, whose host the operator
// held while the lane had it in hand (process's answer): a disabled host's task is
// deferred to the disable's end, a paused host's goes back to its lane's queue to
// wait for the resume, as after the gate's wait (fetchWithRetry). A hold lifted
// meanwhile places it again.
func (r *Runner) heldInHand(s *Slot, t frontier.Task) (ended, swapped bool) {
	r.Front.Logf(view.LevelDebug, s.Lane.ID, t.Host, "%s not asked for: the operator holds %s (robots.txt not asked either); it waits for the hold's end", t.URL, t.Host)
	if r.deferDisabled(t) {
		return false, false
	}
	if r.asidePaused(s, t) {
		return false, true
	}
	r.Mu.Lock()
	r.Front.Place(t)
	r.Mu.Unlock()
	r.Front.Flush()
	return false, false
}
