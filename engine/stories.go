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
// as this process parsed it. A worker's signed result carries no text, and a master
// that parsed every page again would spend on it the CPU the workers saved it: the
// live view of a distributed crawl stays empty (the JSONL export groups its pages).
func (e *Engine) groupStory(t frontier.Task, res *fetch.Result, text page.Text, at time.Time) {
	if res.Signed != nil {
		return
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
