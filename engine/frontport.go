package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// frontCrawl is the engine as its front's crawl (front.Crawl): the crew that
// fetches, the revisit runtime, the idle check, the background work, the clock and
// the log.
type frontCrawl struct{ e *Engine }

var _ front.Crawl = frontCrawl{}

func (p frontCrawl) Place(t frontier.Task)         { p.e.crew.Place(t) }
func (p frontCrawl) Counts() (waiting, inHand int) { return p.e.crew.Counts() }
func (p frontCrawl) CountsAtHandOut() bool         { return p.e.crew.CountsAtHandOut() }
func (p frontCrawl) PlacesEarly() bool             { return p.e.crew.PlacesEarly() }
func (p frontCrawl) CheckIdle()                    { p.e.checkIdle() }
func (p frontCrawl) Dry() bool                     { return p.e.discoveryIdle() }
func (p frontCrawl) Withdrawn(t frontier.Task)     { p.e.front.Withdrawn(t) }
func (p frontCrawl) Stopping() bool                { return p.e.ctx.Err() != nil }
func (p frontCrawl) Now() time.Time                { return p.e.now() }

func (p frontCrawl) Withdraw(drop func(frontier.Task) bool) (int, func() int) {
	return p.e.crew.Withdraw(drop)
}

func (p frontCrawl) TakeOff(match func(frontier.Task) bool) {
	p.e.lanes.OffBoard(p.e.lanes.Board.Withdraw(match))
}

func (p frontCrawl) Defer(t frontier.Task, until time.Time) { p.e.lanes.Defer(t, until) }

func (p frontCrawl) Recall(match func(frontier.Task) bool) int { return p.e.crew.Recall(match) }

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

func (p frontCrawl) DirectRefusals() bool { return p.e.lanes.Pool == nil }

func (p frontCrawl) LinkedFrom(hash uint64, u string) { p.e.parentURLs.Add(hash, u) }

func (p frontCrawl) Running() bool  { return p.e.state == view.StateRunning }
func (p frontCrawl) FlushDeferred() { p.e.lanes.FlushDeferred() }

func (p frontCrawl) Wake()   { p.e.broadcast() }
func (p frontCrawl) Cancel() { p.e.cancel() }
