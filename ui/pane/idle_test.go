package pane

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// An idle crawl says the sooner of its next round and its next revisit: that is
// when it goes on.
func TestIdleWaitSaysTheSoonerOfRoundAndRevisit(t *testing.T) {
	now := time.Unix(1700000000, 0)
	round, revisit := now.Add(59*time.Minute), now.Add(time.Minute)
	for _, c := range []struct {
		state          view.State
		round, revisit time.Time
		what           string
		at             time.Time
	}{
		{view.StateIdle, round, revisit, "revisit", revisit},
		{view.StateIdle, revisit, round, "round", revisit},
		{view.StateIdle, round, round, "round", round},
		{view.StateIdle, round, time.Time{}, "round", round},
		{view.StateIdle, time.Time{}, revisit, "revisit", revisit},
		{view.StateIdle, time.Time{}, time.Time{}, "", time.Time{}},
		{view.StateRunning, round, revisit, "", time.Time{}},
	} {
		s := &view.Snapshot{State: c.state, NextRound: c.round, NextRevisit: c.revisit}
		if what, at := IdleWait(s); what != c.what || !at.Equal(c.at) {
			t.Errorf("%s, round %v, revisit %v: %q at %v; want %q at %v", c.state, c.round.Sub(now), c.revisit.Sub(now), what, at.Sub(now), c.what, c.at.Sub(now))
		}
	}
}
