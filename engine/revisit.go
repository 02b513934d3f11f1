package engine

import (
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// newRevisitRuntime builds M2's parts from o (already validated) over st (nil on a
// worker): the tracker and policy, the classifier, the scheduler, the pane.
func (e *Engine) newRevisitRuntime(o config.RevisitOptions, st *store.Store) (*refresh.Runtime, error) {
	logf := func(level view.Level, format string, args ...any) { e.logf(level, 0, "", format, args...) }
	return refresh.New(o, st, logf)
}

// classOf tags a host with its page class (M2/M3): declared social sites are soc,
// the rest go by public suffix.
func (e *Engine) classOf(host string) string {
	return e.classIn(e.sites.Load().SiteOf(host), host)
}

// classIn is classOf for a host already looked up in the site book (s may be nil):
// a site's declared class (sites added while the crawl runs included), else the
// classifier's.
func (e *Engine) classIn(s *config.SiteOptions, host string) string {
	if s != nil {
		if c := sites.Class(s); c != "" {
			return c
		}
	}
	return e.rv.Classes.Class(&url.URL{Host: host})
}

// revisitState returns the revisit state of a page about to be fetched
// (refresh.Runtime.State): prev is nil for a first fetch; track is false when the
// state could not be read.
func (e *Engine) revisitState(t frontier.Task) (prev *revisit.Page, track bool) {
	e.mu.Lock()
	requeued := e.fr.Marks().Queued(t.URL)
	e.mu.Unlock()
	return e.revisitStateOf(t, requeued)
}

// revisitStateOf is revisitState for a task the caller knows was (or was not) a
// requeued revisit: a master drops the mark when the result comes in, before it
// records it.
func (e *Engine) revisitStateOf(t frontier.Task, requeued bool) (prev *revisit.Page, track bool) {
	return e.rv.State(t, requeued)
}

// observeRevisit applies one fetch outcome to a page's state in its class now
// (refresh.Runtime.Observe) and returns the state to store. prev is nil for a first
// fetch.
func (e *Engine) observeRevisit(u string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit {
	return e.rv.Observe(u, e.classOf(front.HostOf(u)), prev, now, o)
}

// revisitView is the Revisit pane (refresh.Runtime.View) with the count of revisits
// queued now.
func (e *Engine) revisitView(now time.Time) *view.RevisitView {
	return e.rv.View(now, func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.fr.Marks().Len()
	})
}
