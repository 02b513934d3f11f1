package engine

import (
	"testing"
	"time"
)

// A feed's item on another host (a feedproxy redirect, a podcast host, an
// aggregator's entry) is what the site says it published: it is fetched and stored,
// one hop past the crawl's sites and past the trap guards (its path dates it years
// ahead, as a calendar's would), and the crawl does not spread from it. With
// discovery.feed_items_off_site off, the feed speaks for its own site only.
func TestFeedItemOffSiteIsStoredOneHop(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		a := newDiscoSite(t)
		b := newDiscoSiteOn(t, "127.0.0.2") // not a seed: off the crawl's sites
		a.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><p>front page</p></body></html>`
		a.raw["/feed.xml"] = static("application/rss+xml", `<rss version="2.0"><channel><title>a</title>`+
			`<item><link>http://`+b.host+`/~r/a/2150/01/01/story</link></item>`+
			`<item><link>http://`+a.host+`/news/1</link></item></channel></rss>`)
		a.pages["/news/1"] = `<html><body><p>news</p></body></html>`
		b.pages["/~r/a/2150/01/01/story"] = `<html><body><p>the story</p><a href="/more">more on b</a></body></html>`
		b.pages["/more"] = `<html><body><p>b's own page</p></body></html>`
		o := robotsOptions(t, "http://"+a.host+"/")
		o.Scope.SameSite = true // the crawl keeps to its seeds' sites
		o.Discovery.FeedItemsOffSite = on
		e := startEngine(t, o)
		waitDone(t, e, 30*time.Second)
		want := 0
		if on {
			want = 1
		}
		if n := b.requested("/~r/a/2150/01/01/story"); n != want {
			t.Errorf("feed_items_off_site %v: the feed's item on another host fetched %d times, want %d (log %v)", on, n, want, b.paths())
		}
		if n := b.requested("/more"); n != 0 {
			t.Errorf("feed_items_off_site %v: the crawl spread from the off-site item to %s's /more", on, b.host)
		}
		if n := a.requested("/news/1"); n != 1 {
			t.Errorf("feed_items_off_site %v: the feed's own item fetched %d times, want 1", on, n)
		}
	}
}
