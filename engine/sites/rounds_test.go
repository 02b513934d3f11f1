package sites

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// The round list keeps known URLs only while inside their class window, leaves out
// URLs not fetched yet (they are queued already), and mixes hosts.
func TestRoundListFiltersKnownAndInterleaves(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_000_000, 0)
	var urls []string
	index := URLIndex{}
	for _, h := range []string{"a.com", "b.com", "c.com"} {
		for i := range 20 {
			u := fmt.Sprintf("https://%s/%d", h, i)
			urls = append(urls, u)
			switch {
			case i < 10:
				index[u] = now.Add(-time.Hour) // inside web_com's window
			case i < 15:
				index[u] = now.Add(-30 * 24 * time.Hour) // window closed
			}
		}
	}
	urls = append(urls, "https://chirp.example/p/1")
	index["https://chirp.example/p/1"] = now.Add(-4 * 24 * time.Hour) // soc window is 3 days
	classes := revisit.Classifier{Social: map[string]bool{"chirp.example": true}}
	got := roundList(urls, index, classes, revisit.DefaultWindows(), now, rand.New(rand.NewSource(7)))
	if len(got) != 30 {
		t.Fatalf("round list has %d URLs, want the 30 inside their window: %v", len(got), got)
	}
	seen := map[string]bool{}
	hostRuns := 0
	for i, u := range got {
		var n int
		fmt.Sscanf(u[strings.LastIndexByte(u, '/')+1:], "%d", &n)
		if n >= 10 || seen[u] {
			t.Errorf("%s: outside its window, not fetched yet, or listed twice", u)
		}
		seen[u] = true
		if i > 0 && hostOf(got[i-1]) == hostOf(u) {
			hostRuns++
		}
	}
	// Sorted input would give 27 same-host neighbours; random host picks give about
	// a third of 29. 20 is far in the tail (p < 1e-6).
	if hostRuns > 20 {
		t.Errorf("%d same-host neighbours in %v: not interleaved", hostRuns, got)
	}
}
