package worker

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// maxLanes are boardLanes that keep the lanes.max last set.
type maxLanes struct {
	boardLanes
	max int
}

func (l *maxLanes) SetMaxLanes(n int) error { l.max = n; return nil }

// A worker the master counted dead when the operator set lanes.max (a control sent
// to the live workers only) gets it with its rejoin's reply; a reply read after a
// newer control (numbered higher) does not undo it.
func TestARejoinBringsTheMastersLanesMax(t *testing.T) {
	lanes := &maxLanes{max: 16}
	n := &Node{lanes: lanes, lease: NewLease(nil), o: config.WorkerOptions{Node: "w1"}, inc: "i1"}
	n.rejoined(time.Now(), &wire.JoinReply{Lease: time.Minute, LanesMax: 3, LanesSeq: 5}, nil)
	if lanes.max != 3 {
		t.Fatalf("lanes.max %d after a rejoin whose reply says 3", lanes.max)
	}

	if err := n.setMaxLanes(7, 4); err != nil { // the operator's next value, sent as the rejoin was answered
		t.Fatal(err)
	}
	n.rejoined(time.Now(), &wire.JoinReply{Lease: time.Minute, LanesMax: 3, LanesSeq: 6}, nil)
	if lanes.max != 4 {
		t.Fatalf("lanes.max %d after a control numbered 7 (4) and a rejoin reply numbered 6 (3); want 4", lanes.max)
	}
	n.rejoined(time.Now(), &wire.JoinReply{Lease: time.Minute}, nil) // a master that never set it
	if lanes.max != 4 {
		t.Fatalf("lanes.max %d after a rejoin whose reply sets none; want 4 kept", lanes.max)
	}
}
