package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// The front's side of M2 over the crawl's revisit runtime (Parts.Revisit: the
// tracker and policy, the classifier, the scheduler, the pane).

// RevisitState is the revisit state of a page about to be fetched
// (refresh.Runtime.State): prev is nil for a first fetch; track is false when the
// state could not be read. Called without the lock.
func (f *Front) RevisitState(t frontier.Task) (prev *revisit.Page, track bool) {
	f.Mu.Lock()
	requeued := f.marks.Queued(t.URL)
	f.Mu.Unlock()
	return f.Revisit.State(t, requeued)
}

// observe applies one fetch outcome to a page's state in its class now
// (refresh.Runtime.Observe) and returns the state to store. prev is nil for a first
// fetch.
func (f *Front) observe(u string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit {
	return f.Revisit.Observe(u, f.ClassOf(HostOf(u)), prev, now, o)
}

// inWindow tells whether a page on host first fetched at first is inside its
// class's revisit window now (M2/M3).
func (f *Front) inWindow(host string, first, now time.Time) bool {
	return f.Revisit.Windows.Active(f.ClassOf(host), first, now)
}
