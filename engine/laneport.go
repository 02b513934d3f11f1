package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// lanesPort is the engine as its lanes' crawl (local.Crawl): where their deferrals
// and history go (e.front: this process's store, or the master), the crawl's pause,
// idle check, log and clock. The record of their tasks is e.front itself, handed to
// the lanes as it is (local.Parts.Record).
type lanesPort struct{ e *Engine }

var _ local.Crawl = lanesPort{}

func (p lanesPort) DeferURLs(list []lanes.Deferred) { p.e.front.DeferURLs(list) }
func (p lanesPort) RequeueDeferred()                { p.e.front.RequeueDeferred() }
func (p lanesPort) Undefer(urls []string, now time.Time) {
	p.e.front.Undefer(urls, now)
}
func (p lanesPort) LaneOpened(lane int, egress string, at time.Time) {
	p.e.front.LaneOpened(lane, egress, at)
	p.Logf(view.LevelTrace, lane, "", "lane %d opened on %s", lane, egress)
}
func (p lanesPort) LaneRetired(lane int, at time.Time, done int64) {
	p.e.front.LaneRetired(lane, at, done)
}

// LaneRanDry: the crawl may have run dry with the lane (checked under e.mu);
// the lane's end is written without it, as Wait does.
func (p lanesPort) LaneRanDry(lane int, at time.Time, done int64) {
	p.CheckIdle()
	p.e.mu.Unlock()
	p.LaneRetired(lane, at, done)
	p.Logf(view.LevelTrace, lane, "", "lane %d retired", lane)
	p.e.mu.Lock()
}

func (p lanesPort) Paused() bool   { return p.e.paused }
func (p lanesPort) Wake()          { p.e.broadcast() }
func (p lanesPort) CheckIdle()     { p.e.checkIdle() }
func (p lanesPort) Now() time.Time { return p.e.now() }

func (p lanesPort) Logf(level view.Level, lane int, host, format string, args ...any) {
	p.e.logf(level, lane, host, format, args...)
}

// Wait releases e.mu until something is resumed or the engine stops. Caller
// holds e.mu; it is held again on return. false means stop.
func (p lanesPort) Wait() bool {
	e := p.e
	w := e.wake
	e.mu.Unlock()
	select {
	case <-w:
	case <-e.ctx.Done():
	}
	e.mu.Lock()
	return e.ctx.Err() == nil
}
