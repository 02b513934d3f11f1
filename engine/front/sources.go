package front

import (
	"net/url"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// What news discovery (engine/feeds) and live steering ask of the front about the
// sources they read: feeds, sitemaps, entries and searches.

// SourceItems are source URLs as the steering queue's items.
func SourceItems(srcs []string) []revisit.Item {
	items := make([]revisit.Item, len(srcs))
	for i, u := range srcs {
		items[i] = revisit.Item{URL: u, Host: HostOf(u)}
	}
	return items
}

// MarkOutAny records URLs as withdrawn whatever hand-out holds them (MarkOut with
// lease 0). Called without the lock.
func (f *Front) MarkOutAny(urls []string) {
	out := make(map[string]uint64, len(urls))
	for _, u := range urls {
		out[u] = 0 // any hand-out
	}
	f.Mu.Lock()
	f.MarkOut(out)
	f.Mu.Unlock()
}

// NotQueued are the URLs of urls not queued as revisits now. Called without the lock.
func (f *Front) NotQueued(urls []string) []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var idle []string
	for _, u := range urls {
		if !f.marks.Queued(u) {
			idle = append(idle, u)
		}
	}
	return idle
}

// QueueSitemaps queues the sitemaps an origin's robots.txt names (or its
// /sitemap.xml) as links, those the scope allows.
func (f *Front) QueueSitemaps(urls []string) {
	var out []store.URL
	for _, n := range urls {
		pu, err := url.Parse(n)
		if err != nil {
			continue
		}
		if ok, _ := f.Scope.Allows(pu, 0); !ok {
			f.Counters.AddWarning("discovery_sitemap_out_of_scope")
			continue
		}
		out = append(out, f.LinkRecord(n, 0, 0))
	}
	if len(out) == 0 {
		return
	}
	ns := make([]string, len(out))
	for i, r := range out {
		ns[i] = r.URL
	}
	f.Dedupe.CheckURLs(ns)
	f.Submit(out, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
}
