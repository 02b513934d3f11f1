package store

import (
	"strings"
	"testing"
)

// The lanes' line counts responses, not pages: a lane that got one refused answer
// read "the closed ones fetched 1 pages" beside "pages 0".
func TestStatsTextCountsLaneResponses(t *testing.T) {
	st := Stats{Lanes: LaneSummary{Opened: 2, Pages: 1, ByEgress: []EgressLanes{{Egress: "e1", Opened: 1, Pages: 1}}}}
	var b strings.Builder
	if err := st.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "the closed ones got 1 response,") || !strings.Contains(out, "1 lane, 1 response") || strings.Contains(out, "1 pages") {
		t.Errorf("stats text:\n%s", out)
	}
}
