package pane

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/meter"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// PagesPerSec is the crawl's fetch rate as the header, the progress lines and ctl
// status print it. Until the engine's window is full its rate is the mean of the
// few samples it has, which start a second after the crawl (the pages of that
// second are in none): "pages 1  0 pages/s" three seconds in. Then the rate is
// the pages fetched over the time since the start, every page counted.
func PagesPerSec(s *view.Snapshot) float64 {
	up := s.At.Sub(s.StartedAt)
	if len(s.RateHistory) >= meter.RateWindow || up < time.Second || s.State == view.StatePaused || s.StartedAt.IsZero() {
		return s.PagesPerSec
	}
	return float64(s.Totals.PagesFetched) / up.Seconds()
}
