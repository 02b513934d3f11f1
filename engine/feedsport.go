package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
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
	o.Sites = e.sites.Load // discovery keeps its state per declared site, following live steering
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

func (p feedsPort) NotQueued(urls []string) []string { return p.e.fr.NotQueued(urls) }

func (p feedsPort) NewsSite(host string) bool {
	s := p.e.sites.Load().SiteOf(host)
	return s != nil && s.Kind == config.SiteNews
}

func (p feedsPort) QueueSitemaps(urls []string) { p.e.fr.QueueSitemaps(urls) }
func (p feedsPort) Withdraw(urls []string) int  { return p.e.fr.Withdraw(front.SourceItems(urls)) }
func (p feedsPort) KeepSources(urls []string)   { p.e.fr.KeepSources(front.SourceItems(urls)) }
func (p feedsPort) MarkOut(urls []string)       { p.e.fr.MarkOutAny(urls) }
