package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// frontCrawl is the engine as its front's crawl (front.Crawl): the crew that
// fetches, the revisit runtime, the idle check, the background work, the clock and
// the log.
type frontCrawl struct{ e *Engine }

var _ front.Crawl = frontCrawl{}

func (p frontCrawl) Place(t frontier.Task)         { p.e.crew.place(t) }
func (p frontCrawl) Counts() (waiting, inHand int) { return p.e.crew.counts() }
func (p frontCrawl) CountsAtHandOut() bool         { return p.e.crew.countsAtHandOut() }
func (p frontCrawl) PlacesEarly() bool             { return p.e.crew.placesEarly() }
func (p frontCrawl) CheckIdle()                    { p.e.checkIdle() }
func (p frontCrawl) Withdrawn(t frontier.Task)     { p.e.front.withdrawn(t) }
func (p frontCrawl) Stopping() bool                { return p.e.ctx.Err() != nil }
func (p frontCrawl) Now() time.Time                { return p.e.now() }

func (p frontCrawl) Withdraw(drop func(frontier.Task) bool) (int, func() int) {
	return p.e.crew.withdraw(drop)
}

func (p frontCrawl) TakeOff(match func(frontier.Task) bool) {
	p.e.offBoard(p.e.board.Withdraw(match))
}

func (p frontCrawl) Defer(t frontier.Task, until time.Time) { p.e.deferTask(t, until) }

func (p frontCrawl) Classify(host string) (site, class string) {
	s := p.e.sites.Load().SiteOf(host)
	if s != nil {
		return s.Name, p.e.classIn(s, host)
	}
	return frontier.Site(host), p.e.classIn(nil, host)
}

func (p frontCrawl) Go(f func()) bool {
	if p.e.ctx.Err() != nil {
		return false
	}
	p.e.wg.Add(1)
	go func() {
		defer p.e.wg.Done()
		f()
	}()
	return true
}

func (p frontCrawl) Logf(level view.Level, host, format string, args ...any) {
	p.e.logf(level, 0, host, format, args...)
}

func (p frontCrawl) LaneLogf(level view.Level, lane int, host, format string, args ...any) {
	p.e.logf(level, lane, host, format, args...)
}

func (p frontCrawl) RevisitState(t frontier.Task) (*revisit.Page, bool) { return p.e.revisitState(t) }

func (p frontCrawl) Observe(u string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit {
	return p.e.observeRevisit(u, prev, now, o)
}

func (p frontCrawl) KeepReplacedText(u string, rv *store.Revisit) { p.e.rv.KeepReplacedText(u, rv) }
func (p frontCrawl) Discovery() *feeds.Discovery                  { return p.e.disc }
func (p frontCrawl) DirectRefusals() bool                         { return p.e.pool == nil }
func (p frontCrawl) CountCost(t frontier.Task, res *fetch.Result) { p.e.countCost(t, res) }

func (p frontCrawl) SaveCaptures(o lanes.Outcome, refetch, keepPage bool) *store.Capture {
	return p.e.saveCaptures(o, refetch, keepPage)
}

func (p frontCrawl) Collect(t frontier.Task, res *fetch.Result, published, now time.Time) {
	p.e.collect(t, res, published, now)
}

func (p frontCrawl) IsSource(u string) bool                       { return p.e.sites.Load().IsSource(u) }
func (p frontCrawl) RefetchResults(known []string, now time.Time) { p.e.refetchResults(known, now) }

func (p frontCrawl) GroupStory(t frontier.Task, res *fetch.Result, text page.Text, published, at time.Time) {
	p.e.groupStory(t, res, text, published, at)
}

func (p frontCrawl) NoteStored(t frontier.Task, published, at time.Time) {
	p.e.noteStored(t, published, at)
}

func (p frontCrawl) SourceFetched(site string, at time.Time) { p.e.siteTally.SourceFetched(site, at) }
func (p frontCrawl) LinkedFrom(hash uint64, u string)        { p.e.parentURLs.Add(hash, u) }

func (p frontCrawl) Running() bool                               { return p.e.state == view.StateRunning }
func (p frontCrawl) DueRevisits(now time.Time) ([]string, error) { return p.e.rv.Tick(now) }
func (p frontCrawl) Requeued(n int)                              { p.e.rv.Requeued.Add(int64(n)) }
func (p frontCrawl) FlushDeferred()                              { p.e.flushDeferred() }

func (p frontCrawl) InWindow(host string, first, now time.Time) bool {
	return p.e.rv.Windows.Active(p.e.classOf(host), first, now)
}

func (p frontCrawl) Wake()   { p.e.broadcast() }
func (p frontCrawl) Cancel() { p.e.cancel() }
