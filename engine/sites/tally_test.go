package sites

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The Sites pane's figures: new pages in the last hour and day from the minute
// ring, the median publish-to-store delay over pages that stated a publish time.
func TestSiteTally(t *testing.T) {
	t.Parallel()
	var tl Tally
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i, ago := range []time.Duration{time.Minute, 30 * time.Minute, 2 * time.Hour, 23 * time.Hour, 25 * time.Hour} {
		at := now.Add(-ago)
		pub := time.Time{}
		if i < 3 {
			pub = at.Add(-time.Duration(i+1) * 10 * time.Minute) // 10, 20, 30 min late
		}
		tl.Stored("harbor", at, pub, false)
	}
	r := view.SiteRow{Name: "harbor"}
	tl.Fill(&r, now)
	if r.Stored != 5 || r.NewHour != 2 || r.NewDay != 4 || r.PublishDelay != 20*time.Minute {
		t.Errorf("row %+v: want stored 5, new 2 in the hour, 4 in the day, median delay 20m", r)
	}
}
