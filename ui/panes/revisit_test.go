package panes

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

func TestLongDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {45 * time.Second, "45s"}, {time.Minute, "1m"}, {123 * time.Second, "2m03s"},
		{time.Hour, "1h"}, {5*time.Hour + 2*time.Minute + 40*time.Second, "5h02m"},
		{3*24*time.Hour + 4*time.Hour, "3d04h"}, {7 * 24 * time.Hour, "7d"}, {14*24*time.Hour + 5*time.Hour, "14d"},
	}
	for _, tc := range tests {
		if got := longDuration(tc.d); got != tc.want {
			t.Errorf("longDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	buckets := []struct {
		b    view.IntervalBucket
		want string
	}{
		{view.IntervalBucket{Max: time.Minute}, "<1m"},
		{view.IntervalBucket{Min: time.Hour, Max: 6 * time.Hour}, "1h-6h"},
		{view.IntervalBucket{Min: 7 * 24 * time.Hour}, ">=7d"},
	}
	for _, tc := range buckets {
		if got := bucketLabel(tc.b); got != tc.want {
			t.Errorf("bucketLabel(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

// The due table's cells say what they mean: under a second either way is "now"
// (it said "-0s"), a page fetched once has learned no T yet ("-", not "0s"), and a
// page without an article whose last comparison gave no reason is "no article",
// not "no article: -".
func TestDueCellsSayWhatTheyMean(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{-400 * time.Millisecond, "now"}, {300 * time.Millisecond, "now"}, {-2 * time.Second, "-2s"}, {90 * time.Second, "1m30s"}} {
		if got := nextIn(c.d); got != c.want {
			t.Errorf("nextIn(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := learnedT(&view.RevisitDue{Fetches: 1}); got != "-" {
		t.Errorf("T of a page fetched once: %q, want -", got)
	}
	if got := learnedT(&view.RevisitDue{Fetches: 3, T: 2 * time.Hour}); got != "2h" {
		t.Errorf("T of a page fetched thrice: %q, want 2h", got)
	}
	if got := changeWhy(&view.RevisitDue{Fallback: true, ChangeReason: "-"}); got != "no article" {
		t.Errorf("WHY of a page without an article and no reason: %q", got)
	}
}
