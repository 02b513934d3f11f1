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
// when this process parsed it; a worker's signed result is read again from the body.
func (e *Engine) groupStory(t frontier.Task, res *fetch.Result, text page.Text, at time.Time) {
	if res.Signed != nil {
		var ok bool
		if text, ok = page.MainText(res.Body, res.Header.Get("Content-Type")); !ok {
			return
		}
	}
	fp, ok := stories.Fingerprint(text)
	if !ok {
		return
	}
	if pages, _, _ := e.stories.Len(); pages >= maxStoryPages {
		e.stories.Reset() // bounded memory: the window starts again
	}
	e.stories.Add(stories.Page{URL: t.URL, Site: frontier.Site(t.Host), SimHash: fp, Fetched: at})
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
