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

// The delay is how late the crawl stores what a site publishes while it watches:
// the archive a first crawl finds (published before it started) does not count, or
// its age would be the figure.
func TestSiteTallyDelayLeavesOutTheArchive(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tl := Tally{Since: start}
	for i := range 5 { // the archive: published a year before the crawl, stored in its first minutes
		tl.Stored("harbor", start.Add(time.Duration(i)*time.Second), start.AddDate(-1, 0, -i), false)
	}
	r := view.SiteRow{Name: "harbor"}
	tl.Fill(&r, start.Add(time.Minute))
	if r.PublishDelay != 0 || r.Stored != 5 {
		t.Errorf("after the archive alone: delay %v, stored %d; want no delay (-) and 5 stored", r.PublishDelay, r.Stored)
	}
	for i, late := range []time.Duration{2 * time.Minute, 4 * time.Minute, 9 * time.Minute} { // published while watched
		pub := start.Add(time.Duration(i+1) * time.Hour)
		tl.Stored("harbor", pub.Add(late), pub, false)
	}
	tl.Fill(&r, start.Add(4*time.Hour))
	if r.PublishDelay != 4*time.Minute {
		t.Errorf("delay %v: want 4m, the median of the three articles published while the crawl ran", r.PublishDelay)
	}
}
