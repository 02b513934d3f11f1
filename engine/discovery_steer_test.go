package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Issue 18, :site rm: a removed site's feed is no longer read — at most the one read
// a lane had in hand — while another site's feed goes on being read, and not after a
// restart either; :site add of the same domain reads it again at once. Before, the removed site's feed was polled
// for as long as the crawl ran, its share of the Poller's reads with it.
func TestSiteRmStopsReadingItsFeeds(t *testing.T) {
	a := newDiscoSite(t)
	b := newDiscoSiteOn(t, "127.0.0.2")
	start := time.Now()
	for _, s := range []*discoSite{a, b} {
		h := s.host
		s.raw["/feed"] = func(int) (string, []byte) {
			n := int(time.Since(start) / (50 * time.Millisecond))
			var w strings.Builder
			w.WriteString(`<rss version="2.0"><channel><title>news</title>`)
			for i := n; i > n-5 && i >= 0; i-- {
				fmt.Fprintf(&w, `<item><link>http://%s/story/%d</link></item>`, h, i)
			}
			w.WriteString(`</channel></rss>`)
			return "application/rss+xml", []byte(w.String())
		}
		s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed"></head><body>front</body></html>`
	}
	entryA := "http://" + a.host + "/"
	o := discoveryPollOptions(t, entryA)
	o.Seeds = append(o.Seeds, "http://"+b.host+"/")
	o.Sites = []SiteOptions{{Name: "127.0.0.1", Kind: SiteNews, Entry: entryA}}
	o.Discovery.Probe = ProbeOff
	e := startEngine(t, o)
	waitFor(t, "both feeds read 3 times", func() bool { return a.requested("/feed") >= 3 && b.requested("/feed") >= 3 })

	msg, err := e.Steer(Steer{Op: SteerSiteRm, Site: "127.0.0.1"})
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

	if _, err := e.Steer(Steer{Op: SteerSiteAdd, Kind: SiteNews, URL: entryA}); err != nil {
		t.Fatal(err)
	}
	readA = a.requested("/feed")
	waitFor(t, "the re-added site's feed read again", func() bool { return a.requested("/feed") > readA })
}
