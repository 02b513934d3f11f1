package ui

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A row cuts a long message at the pane's width, and the cut-off end is where a
// warning names its fix: enter opens the selected row and shows the whole message,
// wrapped, with every field of the event; esc (or enter) closes it again.
func TestLogRowOpensToTheWholeMessage(t *testing.T) {
	const msg = "robots.txt of 127.0.0.1:8000 and every page of the seed were refused: ssrf_blocked, " +
		"the address is private (loopback) and private addresses are refused unless named, so that a page cannot " +
		"make the crawler reach the box's own services; to crawl it, start the crawl again with --allow-private 127.0.0.0/8"
	for _, size := range [][2]int{{80, 24}, {120, 40}, {250, 40}} {
		h := newHarness(t, size[0], size[1], Options{})
		h.ctrl.Log(view.LevelWarn, 3, "127.0.0.1:8000", msg)
		h.refresh()
		h.press("3", "end")
		if strings.Contains(h.view(), "--allow-private 127.0.0.0/8") {
			t.Fatalf("%dx%d: the row shows the whole message already; the test needs a longer one", size[0], size[1])
		}
		h.press("enter")
		body := h.body()
		// The message is wrapped: joined again, its words are all there in order.
		var words []string
		for _, l := range strings.Split(body, "\n") {
			words = append(words, strings.Fields(l)...)
		}
		if !strings.Contains(strings.Join(words, " "), msg) {
			t.Fatalf("%dx%d: the opened row lacks the whole message:\n%s", size[0], size[1], body)
		}
		for _, f := range []string{"level   WARN", "lane    3", "host    127.0.0.1:8000", "time    "} {
			if !strings.Contains(body, f) {
				t.Fatalf("%dx%d: the opened row lacks the field %q:\n%s", size[0], size[1], f, body)
			}
		}
		h.press("esc")
		h.mustNotShow("--allow-private 127.0.0.0/8")
		h.mustShow("TIME     LEVEL")
	}
}
