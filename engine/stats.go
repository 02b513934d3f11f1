package engine

import "github.com/crawlconsole/crawlconsole/engine/view"

// endState is the state Stats gives: once the crawl is stopped, DONE if it had run
// dry, STOPPED if it was stopped with URLs left; before, the header's state.
func (e *Engine) endState() view.State {
	nextRound := e.fr.NextRoundAt()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fr.Failure() == nil && (e.state == view.StateDone || e.state == view.StateStopping) {
		select {
		case <-e.done:
			return view.StateDone
		default:
			return view.StateStopped
		}
	}
	waiting := e.lanes.Board.Queued()
	for _, v := range e.lanes.Board.View() {
		waiting += v.Queued
	}
	return e.stateNow(nextRound, waiting)
}
