package ui

import (
	"strings"
	"testing"
)

// The Lanes pane (on a wide terminal) and the Groups pane show, per host,
// the current politeness gap and the term that sets it.
func TestPanesShowHostGap(t *testing.T) {
	t.Run("lanes pane, wide", func(t *testing.T) {
		h := newHarness(t, 140, 40, Options{})
		h.press("1")
		h.mustShow("GAP")
		for sub, want := range map[string]string{
			"news-06.sandbox.test/":   "60s backoff",
			"news-03.sandbox.test/":   "5.0s crawl",
			"blog-05.sandbox.test/":   "latency",
			"social-01.sandbox.test/": "2.0s delay",
		} {
			if row := h.rowOf(sub); !strings.Contains(row, want) {
				t.Errorf("row of %s should show gap %q: %q", sub, want, row)
			}
		}
	})
	t.Run("groups pane, expanded host", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("2", "j", "l")
		h.mustShow("host    social-01.sandbox.test  (3 tasks)  gap 2.0s delay")
	})
}
