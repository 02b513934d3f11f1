package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// The crawl rounds over the declared sites (M3, seed 003) keep their state in
// sites.Rounds and run over the queue and the store in the front (front.StartRound,
// front.EndRound); the engine's clock starts them.

// CostTable returns the cost table: the latest closed round of every site and
// site+keyword (M3).
func (e *Engine) CostTable() []revisit.CostRow { return e.fr.Rounds.CostRows() }

// startRounds starts the round loop once: at Start when sites are declared, or when
// the first site is added while the crawl runs (engine/steer). The first round's sources
// are queued by the caller.
func (e *Engine) startRounds() {
	if e.fr.Rounds.Begin(e.now()) {
		e.wg.Add(1)
		go e.runRounds()
	}
}

// runRounds starts a round every rounds.every until the engine stops (the first
// round started with the crawl): the round that ran is closed, then the next one
// queues the sites' entry and search URLs again.
func (e *Engine) runRounds() {
	defer e.wg.Done()
	e.every(e.opts.Rounds.Every, func(now time.Time) {
		e.fr.EndRound(now)
		e.fr.StartRound(now)
	})
}
