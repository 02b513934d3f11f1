package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/stories"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// groupStory puts a newly stored article in its story (engine/stories): the same
// article found under other URLs and on other sites. text is the page's main text
// as this process parsed it; a worker's result carries the fingerprint instead
// (fetch.Signed.Story), so a master groups its workers' pages without parsing them
// again. published is the page's own date (zero when it gives none): a story lists
// its earliest publisher first, by that date where pages have one.
func (e *Engine) groupStory(t frontier.Task, res *fetch.Result, text page.Text, published, at time.Time) {
	var fp uint64
	var ok bool
	if res.Signed != nil {
		fp, ok = res.Signed.Story, res.Signed.HasStory
	} else {
		fp, ok = stories.Fingerprint(text)
	}
	if !ok {
		return
	}
	if pages, _, _ := e.stories.Len(); pages >= maxStoryPages {
		e.stories.Reset() // bounded memory: the window starts again
	}
	e.stories.Add(stories.Page{URL: t.URL, Site: frontier.Site(t.Host), SimHash: fp, Published: published, Fetched: at})
}

// maxStoryPages bounds the pages the live book holds (some 350 bytes each with the
// index: `go run ./bench stories`), about 70 MB. Past it the book starts again
// empty: the console shows the stories of the latest window, and the JSONL export,
// which groups every stored page, is the complete account.
const maxStoryPages = 200_000

// storiesView is the Stories pane's data; nil until a story has two pages.
func (e *Engine) storiesView() *view.StoriesView {
	pages, all, grouped := e.stories.Len()
	if grouped == 0 {
		return nil
	}
	v := &view.StoriesView{Pages: pages, Stories: all, Grouped: grouped}
	for _, s := range e.stories.Grouped(view.StoryRows) {
		row := view.StoryRow{ID: s.ID, Sites: s.Sites}
		for _, p := range s.Pages {
			row.Pages = append(row.Pages, view.StoryPage{URL: p.URL, Site: p.Site, Published: p.Published, Fetched: p.Fetched})
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
