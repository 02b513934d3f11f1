package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// NewFeeds builds the news discovery of a crawl with a store, over this front as
// its crawl (feeds.Crawl), and keeps it: the pages the front records feed it. The
// caller reads what earlier runs learned (Load).
func (f *Front) NewFeeds() *feeds.Discovery {
	o := feeds.Options{Discovery: f.Opts.Discovery, Revisit: f.Opts.Revisit, MaxBodyBytes: int64(max(f.Opts.Fetch.MaxBodyBytes, f.Opts.Discovery.MaxDocumentBytes))}
	for _, s := range f.Opts.Seeds {
		o.Seeded = append(o.Seeded, frontier.Site(HostOf(s)))
	}
	o.Sites = f.Sites.Load // discovery keeps its state per declared site, following live steering
	f.disc = feeds.New(o, feedsPort{f}, f.Store)
	return f.disc
}

// feedsPort is the front as news discovery's crawl (feeds.Crawl): its queue, its
// counts, the crawl's log and clock. Discovery calls it off the lock, with none of
// its own locks held.
type feedsPort struct{ f *Front }

var _ feeds.Crawl = feedsPort{}

func (p feedsPort) Now() time.Time    { return p.f.crawl.Now() }
func (p feedsPort) Count(kind string) { p.f.Counters.AddWarning(kind) }

func (p feedsPort) Logf(level view.Level, host, format string, args ...any) {
	p.f.crawl.Logf(level, host, format, args...)
}

func (p feedsPort) Requeue(urls []string, now time.Time) (int, error) {
	return p.f.Requeue(urls, now)
}

func (p feedsPort) NotQueued(urls []string) []string { return p.f.NotQueued(urls) }

func (p feedsPort) NewsSite(host string) bool {
	s := p.f.Sites.Load().SiteOf(host)
	return s != nil && s.Kind == config.SiteNews
}

func (p feedsPort) QueueSitemaps(urls []string) { p.f.QueueSitemaps(urls) }
func (p feedsPort) Withdraw(urls []string) int  { return p.f.Withdraw(SourceItems(urls)) }
func (p feedsPort) KeepSources(urls []string)   { p.f.KeepSources(SourceItems(urls)) }
func (p feedsPort) MarkOut(urls []string)       { p.f.MarkOutAny(urls) }
