package engine

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// newsSite makes s a news site: a front page linking its feed, which gains a story
// every 50 ms.
func newsSite(s *discoSite) *discoSite {
	start := time.Now()
	s.raw["/feed"] = func(int) (string, []byte) {
		n := int(time.Since(start) / (50 * time.Millisecond))
		var w strings.Builder
		w.WriteString(`<rss version="2.0"><channel><title>news</title>`)
		for i := n; i > n-5 && i >= 0; i-- {
			fmt.Fprintf(&w, `<item><link>http://%s/story/%d</link></item>`, s.host, i)
		}
		w.WriteString(`</channel></rss>`)
		return "application/rss+xml", []byte(w.String())
	}
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed"></head><body>front</body></html>`
	return s
}

// :site rm: a removed site's feed is no longer read — at most the one read
// a lane had in hand — while another site's feed goes on being read, and not after a
// restart either; :site add of the same domain reads it again at once. Otherwise the removed site's
// feed would be polled for as long as the crawl ran, its share of the Poller's reads
// with it.
func TestSiteRmStopsReadingItsFeeds(t *testing.T) {
	t.Parallel()
	a := newsSite(newDiscoSite(t))
	b := newsSite(newDiscoSiteOn(t, "127.0.0.2"))
	entryA := "http://" + a.host + "/"
	o := discoveryPollOptions(t, entryA)
	o.Seeds = append(o.Seeds, "http://"+b.host+"/")
	o.Sites = []config.SiteOptions{{Name: "127.0.0.1", Kind: config.SiteNews, Entry: entryA}}
	o.Discovery.Probe = config.ProbeOff
	e := startEngine(t, o)
	waitFor(t, "both feeds read 3 times", func() bool { return a.requested("/feed") >= 3 && b.requested("/feed") >= 3 })
	feedA := "http://" + a.host + "/feed"
	learned := e.disc.Poller().Rate(feedA)
	prior := (&discover.Poller{}).Rate("never polled")
	if learned < 4*prior {
		t.Fatalf("the feed's learned rate %.3f/h is not above the prior's %.3f/h: nothing to keep", learned, prior)
	}

	msg, err := e.Steer(steer.Change{Op: steer.SiteRm, Site: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "feeds and sitemaps are no longer read") {
		t.Errorf("message %q does not say the site's feeds are no longer read", msg)
	}
	readA, readB := a.requested("/feed"), b.requested("/feed")
	waitFor(t, "the other site's feed read 10 more times", func() bool { return b.requested("/feed") >= readB+10 })
	if got := a.requested("/feed"); got > readA+1 {
		t.Errorf("the removed site's feed was read %d times after :site rm while the other's was read 10 times, want at most the 1 in a lane's hand", got-readA)
	}

	// A restart replays the removal: the feed stays parked.
	e.Close()
	e = startEngine(t, o)
	readA, readB = a.requested("/feed"), b.requested("/feed")
	waitFor(t, "the other site's feed read 10 more times after a restart", func() bool { return b.requested("/feed") >= readB+10 })
	if got := a.requested("/feed"); got > readA {
		t.Errorf("the removed site's feed was read %d times after a restart, want none", got-readA)
	}

	if e.disc.Poller().Knows(feedA) {
		t.Errorf("the removed site's feed takes a share of the polls after a restart")
	}

	if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: entryA}); err != nil {
		t.Fatal(err)
	}
	// It comes back at the pace it had learned, not the prior's (its first read
	// after the pause, a backlog, does not count as a rate).
	if got := e.disc.Poller().Rate(feedA); got < learned/2 {
		t.Errorf("the re-added site's feed is polled at %.3f new URLs/h, want the %.3f/h learned before :site rm (prior %.3f/h)", got, learned, prior)
	}
	readA = a.requested("/feed")
	waitFor(t, "the re-added site's feed read again", func() bool { return a.requested("/feed") > readA })
}

// :site rm of one of two declared sites on the same registered domain leaves the
// domain's feed read: the other site still crawls it.
func TestSiteRmKeepsFeedsOfADomainAnotherSiteShares(t *testing.T) {
	t.Parallel()
	a := newsSite(newDiscoSite(t))
	h := a.host
	a.pages["/local"] = `<html><body>local news</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Sites = []config.SiteOptions{{Name: "front", Kind: config.SiteNews, Entry: "http://" + h + "/"}, {Name: "local", Kind: config.SiteNews, Entry: "http://" + h + "/local"}}
	o.Discovery.Probe = config.ProbeOff
	e := startEngine(t, o)
	waitFor(t, "the feed read 3 times", func() bool { return a.requested("/feed") >= 3 })
	msg, err := e.Steer(steer.Change{Op: steer.SiteRm, Site: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "still read for site front") {
		t.Errorf("message %q does not say the domain's feeds are still read for the other site", msg)
	}
	read := a.requested("/feed")
	waitFor(t, "the feed read 5 more times after the other site's removal ("+msg+")", func() bool { return a.requested("/feed") >= read+5 })
}

// A site added and removed while the crawl ran leaves no steering change to replay
// (the two fold away), but its feed stays parked in the store: after a restart it
// is not read, even when a read of it was in a lane's hand at the stop (the store
// puts that one back in the queue), and :site add reads it again at once. Before,
// only a removal replayed at start let :site add bring it back, and the re-added
// site's feed was never read again (its front page lists a feed the crawl already
// knows); the read in hand at the stop was taken up again after the restart and the
// feed polled on.
func TestSiteAddAfterAFoldedAddAndRmReadsItsFeedAgain(t *testing.T) {
	t.Parallel()
	for _, inHand := range []bool{false, true} {
		t.Run(fmt.Sprintf("read in hand at the stop %v", inHand), func(t *testing.T) {
			t.Parallel()
			a := newsSite(newDiscoSite(t))
			b := newsSite(newDiscoSiteOn(t, "127.0.0.2"))
			feed := a.raw["/feed"]
			var holding atomic.Bool
			held, release := make(chan struct{}, 1), make(chan struct{})
			a.raw["/feed"] = func(n int) (string, []byte) {
				if holding.Load() {
					select {
					case held <- struct{}{}:
					default:
					}
					<-release
				}
				return feed(n)
			}
			defer close(release)
			entryA := "http://" + a.host + "/"
			o := discoveryPollOptions(t, "http://"+b.host+"/")
			o.Discovery.Probe = config.ProbeOff
			e := startEngine(t, o)
			if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: entryA}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the added site's feed read 3 times", func() bool { return a.requested("/feed") >= 3 })
			if inHand {
				holding.Store(true)
				<-held // a read of the feed is in a lane's hand, answered after the stop
			}
			if _, err := e.Steer(steer.Change{Op: steer.SiteRm, Site: "127.0.0.1"}); err != nil {
				t.Fatal(err)
			}
			e.Close()
			holding.Store(false)
			e = startEngine(t, o)
			readA, readB := a.requested("/feed"), b.requested("/feed")
			waitFor(t, "the other site's feed read 10 more times after a restart", func() bool { return b.requested("/feed") >= readB+10 })
			if got := a.requested("/feed"); got > readA {
				t.Errorf("the removed site's feed was read %d times after a restart, want none", got-readA)
			}
			if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: entryA}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the re-added site's feed read again", func() bool { return a.requested("/feed") > readA })
		})
	}
}

// :site rm of one of two sites declared on one registered domain (news. and blog.
// of example.test) stops reading that site's feed, at most the one read in a
// lane's hand, and not after a restart either, while its sibling's is read on; the
// log says so, and the Sites pane lists the removed site's feed under no site (not
// under news, which holds blog's host as the rest of the domain once blog is gone).
// :site add of blog's entry (named after its host: news holds the domain) reads it
// again. Before, the removal went by registered domain: news being on it too, blog's
// feed was read on, listed under news.
func TestSiteRmOfOneOfTwoSitesOnADomainStopsItsFeedsOnly(t *testing.T) {
	t.Parallel()
	news, blog := newsSite(newDiscoSite(t)), newsSite(newDiscoSite(t))
	named := func(s *discoSite, name string) string {
		_, port, _ := net.SplitHostPort(s.host)
		return name + ".example.test:" + port
	}
	nh, bh := named(news, "news"), named(blog, "blog")
	o := discoveryPollOptions(t, "http://"+nh+"/")
	o.Seeds = append(o.Seeds, "http://"+bh+"/")
	o.Resolver = loopResolver{}
	o.Sites = []config.SiteOptions{
		{Name: "news", Kind: config.SiteNews, Entry: "http://" + nh + "/"},
		{Name: "blog", Kind: config.SiteNews, Entry: "http://" + bh + "/"},
	}
	o.Discovery.Probe = config.ProbeOff
	newsFeed, blogFeed := "http://"+nh+"/feed", "http://"+bh+"/feed"
	e := startEngine(t, o)
	waitFor(t, "both feeds read 3 times", func() bool { return news.requested("/feed") >= 3 && blog.requested("/feed") >= 3 })

	msg, err := e.Steer(steer.Change{Op: steer.SiteRm, Site: "blog"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "its feeds and sitemaps are no longer read") || !strings.Contains(msg, "site news") {
		t.Errorf("message %q does not say blog's feeds are no longer read and news's are", msg)
	}
	readN, readB := news.requested("/feed"), blog.requested("/feed")
	waitFor(t, "news's feed read 10 more times", func() bool { return news.requested("/feed") >= readN+10 })
	if got := blog.requested("/feed"); got > readB+1 {
		t.Errorf("blog's feed was read %d times after :site rm blog while news's was read 10 times, want at most the 1 in a lane's hand", got-readB)
	}
	pane := func(e *Engine) map[string][]string {
		feeds := map[string][]string{}
		for _, r := range e.fr.SitesView(time.Now(), e.disc.View(), nil).Sites {
			feeds[r.Name] = r.Feeds
		}
		return feeds
	}
	if got := pane(e); len(got) != 1 || !slices.Equal(got["news"], []string{newsFeed}) {
		t.Errorf("the Sites pane after :site rm blog lists feeds %v, want news with its own feed only", got)
	}
	for _, r := range e.Snapshot().Discovery {
		if slices.Contains(r.Feeds, blogFeed) {
			t.Errorf("the removed site's feed is shown under %s, as if read", r.Site)
		}
	}

	e.Close()
	e = startEngine(t, o)
	readN, readB = news.requested("/feed"), blog.requested("/feed")
	waitFor(t, "news's feed read 10 more times after a restart", func() bool { return news.requested("/feed") >= readN+10 })
	if got := blog.requested("/feed"); got > readB {
		t.Errorf("blog's feed was read %d times after a restart, want none", got-readB)
	}

	if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: "http://" + bh + "/"}); err != nil {
		t.Fatal(err)
	}
	readB = blog.requested("/feed")
	waitFor(t, "blog's feed read again after :site add", func() bool { return blog.requested("/feed") >= readB+3 })
	if got := pane(e); !slices.Equal(got["blog.example.test"], []string{blogFeed}) || !slices.Equal(got["news"], []string{newsFeed}) {
		t.Errorf("the Sites pane after :site add lists feeds %v, want blog.example.test's and news's each its own", got)
	}
}
