package view

import (
	"strings"
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

// The console's line for the pool says what the browser is doing when none
// serves: starting, stopping (a restart, one killed for not answering), idle.
func TestRenderStatsSayStopping(t *testing.T) {
	for _, c := range []struct {
		r    RenderStats
		want string
	}{
		{RenderStats{Starting: true, Renders: 3}, "starting"},
		{RenderStats{Stopping: true, Renders: 3}, "stopping"},
		{RenderStats{Renders: 3}, "idle"},
	} {
		if got := c.r.Compact(); got != c.want+", 3 renders" {
			t.Errorf("Compact of %+v: %q; want %q", c.r, got, c.want+", 3 renders")
		}
		if got := c.r.String(); !strings.HasPrefix(got, "browser: "+c.want+" ·") {
			t.Errorf("String of %+v: %q; want it to say %s", c.r, got, c.want)
		}
	}
}
