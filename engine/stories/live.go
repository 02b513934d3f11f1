package stories

import "github.com/crawlconsole/crawlconsole/engine/view"

// MaxLivePages bounds the pages a crawl's live book holds (some 350 bytes each
// with the index: `go run ./bench stories`), about 70 MB. Past it the book starts
// again empty: the console shows the stories of the latest window, and the JSONL
// export, which groups every stored page, is the complete account.
const MaxLivePages = 200_000

// AddLive is Add for a crawl's live book: past MaxLivePages the book starts
// again empty before p goes in.
func (b *Book) AddLive(p Page) {
	if pages, _, _ := b.Len(); pages >= MaxLivePages {
		b.Reset() // bounded memory: the window starts again
	}
	b.Add(p)
}

// View is the Stories pane's data; nil until a story has two pages.
func (b *Book) View() *view.StoriesView {
	pages, all, grouped := b.Len()
	if grouped == 0 {
		return nil
	}
	v := &view.StoriesView{Pages: pages, Stories: all, Grouped: grouped}
	for _, s := range b.Grouped(view.StoryRows) {
		row := view.StoryRow{ID: s.ID, Sites: s.Sites}
		for _, p := range s.Pages {
			row.Pages = append(row.Pages, view.StoryPage{URL: p.URL, Site: p.Site, Published: p.Published, Fetched: p.Fetched})
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
