package engine

import (
	"regexp"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A lane opens and retires with every adjacency group, hundreds of times a minute
// at full speed: those rows are kept below the Log pane's default level, so that
// the operator's own events and the warnings are what the pane shows.
func TestLaneOpeningsAndRetirementsLogBelowDebug(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 3, 20, 0)
	e := startEngine(t, testOptions(t, w))
	waitDone(t, e, 30*time.Second)
	laneRe := regexp.MustCompile(`^lane \d+ (opened on \S+|retired)$`)
	lanes := 0
	for _, ev := range e.EventsSince(0, 0) {
		if !laneRe.MatchString(ev.Msg) {
			continue
		}
		lanes++
		if ev.Level >= view.LevelDebug {
			t.Fatalf("%q logged at %v: the Log pane shows it by default", ev.Msg, ev.Level)
		}
	}
	if lanes == 0 {
		t.Fatal("no lane opened or retired in the log: the crawl ran no lane?")
	}
}
