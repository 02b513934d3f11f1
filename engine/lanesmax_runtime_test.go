package engine

import (
	"strings"
	"testing"
	"time"
)

// Lowering lanes.max while a crawl runs makes it gentler, never stops it: lanes
// above the new cap finish what they hold and retire, the crawl goes on over one
// lane and finishes with every host's pages; raised again, lanes open. With
// several egresses too (a lane that runs dry may take over another's backlog).
func TestLoweringLanesMaxAtRunTimeKeepsCrawling(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		egress []string
	}{
		{"direct", nil},
		{"two egresses", []string{"bind:127.0.0.60", "bind:127.0.0.61"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newMiniWeb(t, 6, 100, time.Millisecond)
			o := testOptions(t, w)
			o.Lanes.Max = 8
			o.Egress = tc.egress
			e := startEngine(t, o)
			waitFor(t, "several lanes", func() bool { return len(e.Snapshot().Lanes) >= 3 })
			if err := e.SetMaxLanes(1); err != nil {
				t.Fatal(err)
			}
			lowered := w.hits.Load()
			waitFor(t, "one lane left under lanes.max 1", func() bool { return len(e.Snapshot().Lanes) <= 1 })
			at := w.hits.Load()
			total := int64(len(w.want()))
			t.Logf("%d of the %d pages left fetched while lanes above the cap finished", at-lowered, total-lowered)
			// Each lane above the cap finishes the task in its hand and stops; a lane
			// whose hosts keep yielding tasks must not go on for as long as they do.
			if at-lowered > (total-lowered)/4 {
				t.Errorf("%d of the %d pages left were fetched before the lanes came down to lanes.max 1", at-lowered, total-lowered)
			}
			waitFor(t, "pages fetched over the one lane", func() bool {
				if n := len(e.Snapshot().Lanes); n > 1 {
					t.Fatalf("%d lanes under lanes.max 1 once they had come down to one", n)
				}
				return w.hits.Load() >= at+20
			})
			if err := e.SetMaxLanes(8); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "lanes opened again under lanes.max 8", func() bool {
				return len(e.Snapshot().Lanes) >= 2 || done(e)
			})
			waitDone(t, e, time.Minute)
			e.Close()
			got := storedPages(t, o.DB)
			if want := w.want(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("stored %d pages, want %d", len(got), len(want))
			}
		})
	}
}

// done reports whether e's crawl has ended.
func done(e *Engine) bool {
	select {
	case <-e.Done():
		return true
	default:
		return false
	}
}
