package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// buildStories is the Stories pane's data: a wire story run by five outlets, a
// press release on two, and an article under its AMP and print URLs.
func buildStories() *view.StoriesView {
	v := &view.StoriesView{Pages: 4210, Stories: 4188, Grouped: 3}
	outlets := []string{"capital-digest.com", "copper-register.net", "harbor-times.com", "valley-courier.org", "daily-ledger.net"}
	wire := view.StoryRow{ID: "9f3c2a7d18e4b601", Sites: 5}
	for i, o := range outlets {
		wire.Pages = append(wire.Pages, view.StoryPage{
			URL:  fmt.Sprintf("http://www.%s/2026/11/28/cold-wave-warning-%d", o, i),
			Site: o, Published: Epoch.Add(-time.Duration(95-i*17) * time.Minute), Fetched: Epoch.Add(-time.Duration(90-i*17) * time.Minute),
		})
	}
	release := view.StoryRow{ID: "41d07be2c95a3f10", Sites: 2, Pages: []view.StoryPage{
		{URL: "http://www.valley-academy.edu/news/lantern-festival", Site: "valley-academy.edu", Fetched: Epoch.Add(-3 * time.Hour)},
		{URL: "http://www.capital-digest.com/culture/lanterns-light-up-twenty-parks", Site: "capital-digest.com", Fetched: Epoch.Add(-2 * time.Hour)},
	}}
	amp := view.StoryRow{ID: "c0ffee5ba11ad042", Sites: 1, Pages: []view.StoryPage{
		{URL: "http://www.harbor-times.com/port/ferry-services-suspended", Site: "harbor-times.com", Fetched: Epoch.Add(-5 * time.Hour)},
		{URL: "http://www.harbor-times.com/amp/port/ferry-services-suspended", Site: "harbor-times.com", Fetched: Epoch.Add(-4 * time.Hour)},
		{URL: "http://www.harbor-times.com/print/port/ferry-services-suspended", Site: "harbor-times.com", Fetched: Epoch.Add(-4*time.Hour + 10*time.Minute)},
	}}
	v.Rows = []view.StoryRow{wire, release, amp}
	return v
}

func cloneStories(v *view.StoriesView) *view.StoriesView {
	return cloned(v, func(cp *view.StoriesView) {
		cp.Rows = clonedRows(cp.Rows, func(r *view.StoryRow) { r.Pages = slices.Clone(r.Pages) })
	})
}
