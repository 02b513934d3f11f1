package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/store"
)

// requeueDeferred brings back deferred URLs whose time has passed.
func (f localFront) requeueDeferred() {
	e := f.e
	rows, err := e.st.DueDeferred(1000)
	if err != nil || len(rows) == 0 {
		return
	}
	for _, r := range rows {
		e.st.SetState(r.URL, store.Unprocessed, 0, "")
	}
	e.mu.Lock()
	for _, r := range rows {
		e.fr.Place(front.TaskOf(r))
	}
	e.mu.Unlock()
	e.lanes.FlushDeferred()
}
