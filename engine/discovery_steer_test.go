package engine

import (
	"fmt"
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
