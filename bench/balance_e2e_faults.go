package main

import (
	"fmt"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// e2eFaultPath is what of a round M4's fault path explains: a worker starved of
// CPU past its lease (three heartbeat periods) cuts its request in flight and asks
// again once renewed, or the master declares it dead and gives its hosts to
// another; either way the sandbox may have answered the first request already.
type e2eFaultPath struct {
	cut  map[string]int // by URL: requests the workers cut at their lease's end
	dead map[int]bool   // workers (index) the master declared dead
}

// e2eFaults reads the fault path's warnings from the master's and the workers'
// event rings.
func e2eFaults(m *engine.Engine, workers []*engine.Worker) e2eFaultPath {
	f := e2eFaultPath{cut: map[string]int{}, dead: map[int]bool{}}
	for _, w := range workers {
		for _, ev := range w.Engine().EventsSince(0, 1<<20) {
			if u, ok := strings.CutPrefix(ev.Msg, lanes.LeaseCut+" "); ok {
				u, _, _ = strings.Cut(u, " ")
				f.cut[u]++
			}
		}
	}
	for _, ev := range m.EventsSince(0, 1<<20) {
		var i int
		if _, err := fmt.Sscanf(ev.Msg, "worker w%d is dead (", &i); err == nil {
			f.dead[i-1] = true
		}
	}
	return f
}

// explain tells whether every answer to a URL but the last (by: the workers
// answered, in order) is the fault path's: a request for it cut at a lease's end,
// or an answer to a worker declared dead. Anything else is a page dealt twice.
func (f e2eFaultPath) explain(url string, by []int) bool {
	faults := f.cut[url]
	for _, i := range by[:max(len(by)-1, 0)] {
		if f.dead[i] {
			faults++
		}
	}
	return len(by)-1 <= faults
}
