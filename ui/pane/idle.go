package pane

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// IdleWait is what an IDLE crawl waits for, and until when: the next round of the
// declared sites, else the next revisit (M2: a crawl whose discovery ran dry keeps
// its pages fresh); "" when the crawl is not idle or waits for neither.
func IdleWait(s *view.Snapshot) (what string, at time.Time) {
	switch {
	case s.State != view.StateIdle:
		return "", time.Time{}
	case !s.NextRound.IsZero():
		return "round", s.NextRound
	case !s.NextRevisit.IsZero():
		return "revisit", s.NextRevisit
	}
	return "", time.Time{}
}
