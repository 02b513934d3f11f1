package engine

import (
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// feedsPort is the engine as news discovery's crawl (feeds.Crawl): its queue, its
// counts, its log and its clock. Discovery calls it off e.mu, with none of its
// own locks held.
type feedsPort struct{ e *Engine }

var _ feeds.Crawl = feedsPort{}

// newFeeds builds the discovery state of a crawl with a store and reads what
// earlier runs learned (nil when discovery is off).
func (e *Engine) newFeeds() *feeds.Discovery {
	o := feeds.Options{Discovery: e.opts.Discovery, Revisit: e.opts.Revisit, MaxBodyBytes: int64(e.opts.Fetch.MaxBodyBytes)}
	for i := range e.opts.Sites {
		o.Declared = append(o.Declared, e.opts.Sites[i].Domain())
	}
	for _, s := range e.opts.Seeds {
		o.Declared = append(o.Declared, frontier.Site(front.HostOf(s)))
	}
	o.SiteOf = func(host string) string {
		if s := e.sites.Load().SiteOf(host); s != nil {
			return s.Name
		}
		return ""
	}
	return feeds.New(o, feedsPort{e}, e.st)
}

func (p feedsPort) Now() time.Time    { return p.e.now() }
func (p feedsPort) Count(kind string) { p.e.c.AddError(kind) }

func (p feedsPort) Logf(level view.Level, host, format string, args ...any) {
	p.e.logf(level, 0, host, format, args...)
}

func (p feedsPort) Requeue(urls []string, now time.Time) (int, error) {
	return p.e.fr.Requeue(urls, now, true)
}

func (p feedsPort) NotQueued(urls []string) []string {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	var idle []string
	for _, u := range urls {
		if !p.e.fr.Marks().Queued(u) {
			idle = append(idle, u)
		}
	}
	return idle
}

func (p feedsPort) NewsSite(host string) bool {
	s := p.e.sites.Load().SiteOf(host)
	return s != nil && s.Kind == config.SiteNews
}

// QueueSitemaps queues the sitemaps an origin's robots.txt names (or its
// /sitemap.xml) as links, those the scope allows.
func (p feedsPort) QueueSitemaps(urls []string) {
	e := p.e
	var out []store.URL
	for _, n := range urls {
		pu, err := url.Parse(n)
		if err != nil {
			continue
		}
		if ok, _ := e.scope.Allows(pu, 0); !ok {
			e.c.AddError("discovery_sitemap_out_of_scope")
			continue
		}
		out = append(out, e.fr.LinkRecord(n, 0, 0))
	}
	if len(out) == 0 {
		return
	}
	ns := make([]string, len(out))
	for i, r := range out {
		ns[i] = r.URL
	}
	e.dedupe.CheckURLs(ns)
	e.fr.Submit(out, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
}

func (p feedsPort) Withdraw(urls []string) int { return p.e.fr.Withdraw(sourceItems(urls)) }
func (p feedsPort) KeepSources(urls []string)  { p.e.fr.KeepSources(sourceItems(urls)) }

func (p feedsPort) MarkOut(urls []string) {
	out := make(map[string]uint64, len(urls))
	for _, u := range urls {
		out[u] = 0 // any hand-out
	}
	p.e.mu.Lock()
	p.e.fr.MarkOut(out)
	p.e.mu.Unlock()
}

// sourceItems are feed and sitemap URLs as the steering queue's items.
func sourceItems(srcs []string) []revisit.Item {
	items := make([]revisit.Item, len(srcs))
	for i, u := range srcs {
		items[i] = revisit.Item{URL: u, Host: front.HostOf(u)}
	}
	return items
}
