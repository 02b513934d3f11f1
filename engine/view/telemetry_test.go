package view

import (
	"testing"
	"time"
)

func TestAgeBand(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ago  time.Duration
		zero bool
		want string
	}{
		{-time.Hour, false, "lt_1h"}, {59 * time.Minute, false, "lt_1h"}, {time.Hour, false, "1h_6h"}, {7 * time.Hour, false, "6h_24h"},
		{48 * time.Hour, false, "1d_7d"}, {10 * 24 * time.Hour, false, "7d_30d"}, {400 * 24 * time.Hour, false, "gt_30d"}, {0, true, "undated"},
	} {
		pub := at.Add(-c.ago)
		if c.zero {
			pub = time.Time{}
		}
		if got := AgeBands[AgeBand(pub, at)]; got != c.want {
			t.Errorf("published %v before storing: band %s, want %s", c.ago, got, c.want)
		}
	}
}
