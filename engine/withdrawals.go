package engine

import (
	"errors"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// endSteeredOut ends a withdrawn task in the store: skipped, kind steered_out. A
// stored page is kept (the URL stays processed) and is no longer revisited; its
// revisit plan comes back with the source (requeue).
func (e *Engine) endSteeredOut(t frontier.Task) {
	_, _, err := e.st.PageValidators(t.URL)
	stored := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		stored = t.Refetch // unreadable: the master's mark, or none
	}
	state := store.Failed
	if stored {
		state = store.Processed
		e.st.SetRevisitNext([]string{t.URL}, revisit.Never)
	}
	e.fr.Finish(t, stored, 0, state, SkipSteeredOut)
}

func (f localFront) withdrawn(t frontier.Task) { f.e.endSteeredOut(t) }
