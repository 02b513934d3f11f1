package engine

import (
	"encoding/json"
	"testing"
	"time"
)

// The sizing estimate counts the lanes a worker runs as lanes.max stands now: the
// operator who lowers it at run time reads more workers needed, in the snapshot
// (the Egress and Nodes panes) and in --stats-json, not the figure of the start.
func TestSizingFollowsLanesMaxSetAtRunTime(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	o.Lanes.Max = 4
	// A round that must end within a millisecond needs many lanes: the estimate
	// is then over one worker, and it grows as lanes.max falls.
	o.Rounds.ExpectTime = time.Millisecond
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second) // the inputs (pages a round, access time) stay put from here
	before := e.Snapshot().Sizing
	if before == nil || before.LanesPerWorker != 4 || before.Workers < 2 {
		t.Fatalf("sizing at lanes.max 4: %+v, want 4 lanes per worker and over one worker", before)
	}
	if err := e.SetMaxLanes(1); err != nil {
		t.Fatal(err)
	}
	after := e.Snapshot().Sizing
	if after == nil || after.LanesPerWorker != 1 || after.Workers <= before.Workers {
		t.Fatalf("sizing after lanes.max 1: %+v (before: %d lanes, %d workers); want 1 lane per worker and more workers",
			after, before.LanesPerWorker, before.Workers)
	}
	b, err := json.Marshal(e.Stats())
	if err != nil {
		t.Fatal(err)
	}
	var stats struct {
		Sizing struct {
			Lanes   int `json:"lanes_per_worker"`
			Workers int `json:"workers_needed"`
		} `json:"sizing"`
	}
	if err := json.Unmarshal(b, &stats); err != nil {
		t.Fatal(err)
	}
	if stats.Sizing.Lanes != 1 || stats.Sizing.Workers != after.Workers {
		t.Fatalf("--stats-json sizing %+v, want lanes_per_worker 1 and workers_needed %d (%s)", stats.Sizing, after.Workers, b)
	}
}
