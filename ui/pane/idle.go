package pane

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// IdleWait is what an IDLE crawl waits for, and until when: the sooner of the
// declared sites' next round and the next revisit (M2: a crawl whose discovery ran
// dry keeps its pages fresh), the round on a tie; "" when the crawl is not idle or
// waits for neither. The sooner, since it is when the crawl goes on: a revisit due
// in a minute said "next round in 59m" of a crawl about to fetch.
func IdleWait(s *view.Snapshot) (what string, at time.Time) {
	if s.State != view.StateIdle {
		return "", time.Time{}
	}
	round, revisit := s.NextRound, s.NextRevisit
	switch {
	case !round.IsZero() && (revisit.IsZero() || !revisit.Before(round)):
		return "round", round
	case !revisit.IsZero():
		return "revisit", revisit
	}
	return "", time.Time{}
}
