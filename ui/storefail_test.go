package ui

import (
	"strconv"
	"strings"
	"testing"
)

// TestHeaderShowsAStoreFailure: when the store failed and the crawl stopped itself,
// the header's first line says STORE FAILED with the store's reason, at
// every supported width; a long reason keeps its end, where the cause is.
func TestHeaderShowsAStoreFailure(t *testing.T) {
	const reason = "store: commit batch of 73 operations: database or disk is full"
	for _, w := range []int{80, 120, 200} {
		t.Run("width "+strconv.Itoa(w), func(t *testing.T) {
			h := newHarness(t, w, 40, Options{Title: "crawl"})
			h.ctrl.FailStore(reason)
			h.refresh()
			head := h.line(0)
			if !strings.Contains(head, "STORE FAILED: ") || !strings.Contains(head, "disk is full") {
				t.Fatalf("header at width %d: %q; want STORE FAILED and the cause", w, head)
			}
			if strings.Contains(head, "RUNNING") {
				t.Errorf("header still says RUNNING: %q", head)
			}
		})
	}
}
