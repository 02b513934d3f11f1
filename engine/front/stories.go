package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/stories"
)

// groupStory puts a newly stored article in its story (engine/stories): the same
// article found under other URLs and on other sites. text is the page's main text
// as this process parsed it; a worker's result carries the fingerprint instead
// (fetch.Signed.Story), so a master groups its workers' pages without parsing them
// again. published is the page's own date (zero when it gives none): a story lists
// its earliest publisher first, by that date where pages have one.
func (f *Front) groupStory(t frontier.Task, res *fetch.Result, text page.Text, published, at time.Time) {
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
	f.Stories.AddLive(stories.Page{URL: t.URL, Site: frontier.Site(t.Host), SimHash: fp, Published: published, Fetched: at})
}
