package feeds

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// readFeed hands d a read of host's feed listing three new stories, and schedules
// its next read as the crawl does; it returns when that read is due.
func readFeed(d *Discovery, host string, n int, at time.Time) time.Time {
	src := "http://" + host + "/feed"
	var entries []discover.Entry
	var listing []string
	var fresh []model.URL
	for i := n; i < n+3; i++ {
		u := fmt.Sprintf("http://%s/story/%d", host, i)
		entries = append(entries, discover.Entry{URL: u})
		listing = append(listing, u)
		fresh = append(fresh, model.URL{URL: u})
	}
	doc := &discover.Doc{Kind: discover.KindFeed, Entries: entries}
	d.readDocument(frontier.Task{URL: src, Host: host}, &fetch.Result{}, doc, nil, at)
	rv := &model.Revisit{URL: src}
	d.SchedulePoll(src, doc, fresh, listing, rv, at)
	return rv.Next
}

// :site rm of one of two sites declared on one registered domain parks that site's
// feed and leaves its sibling's polled, though the sibling now holds the removed
// site's host as the rest of the domain: the Poller forgets the removed one's
// feed, a read of it in a lane's hand is not scheduled again, and the Sites pane
// lists it under no site. :site add of its host (named after the host: news holds
// the domain) polls it again at the pace it had. Before, the removal went by
// registered domain and, news being on it too, parked nothing.
func TestSiteRmParksItsOwnFeedsNotItsSiblings(t *testing.T) {
	t.Parallel()
	var book atomic.Pointer[sites.Book]
	before := newsAndBlog()
	book.Store(before)
	d := unitDiscovery(&book)
	at := time.Now()
	for i := range 4 {
		readFeed(d, "news.example.test", 3*i, at.Add(time.Duration(i)*time.Hour))
		readFeed(d, "blog.example.test", 3*i, at.Add(time.Duration(i)*time.Hour))
	}
	newsFeed, blogFeed := "http://news.example.test/feed", "http://blog.example.test/feed"
	rate := d.poller.Rate(blogFeed)

	after := sites.New(before.Sites()[:1], nil, nil) // blog removed: news alone holds example.test
	book.Store(after)
	d.WithdrawSite("blog", before, true)
	if d.poller.Knows(blogFeed) || !d.poller.Knows(newsFeed) {
		t.Errorf("after :site rm blog the Poller knows blog's feed %v, news's %v: want only news's", d.poller.Knows(blogFeed), d.poller.Knows(newsFeed))
	}
	if next := readFeed(d, "blog.example.test", 12, at.Add(4*time.Hour)); next != revisit.Never {
		t.Errorf("blog's feed, read from a lane's hand after its removal, is next due %v, want never", next)
	}
	if next := readFeed(d, "news.example.test", 12, at.Add(4*time.Hour)); next == revisit.Never {
		t.Error("news's feed is parked with blog's")
	}
	for _, r := range d.View() {
		if slices.Contains(r.Feeds, blogFeed) {
			t.Errorf("the removed site's feed is listed under %s: %v", r.Site, r.Feeds)
		}
	}
	if r := rowOf(d, "news"); r == nil || !slices.Equal(r.Feeds, []string{newsFeed}) {
		t.Errorf("news's row after blog's removal: %+v, want its own feed", r)
	}

	readded := sites.New(append(slices.Clone(after.Sites()), config.SiteOptions{Name: "blog.example.test", Kind: config.SiteNews, Entry: "http://blog.example.test/"}), nil, nil)
	book.Store(readded)
	d.RestoreSite("blog.example.test", readded, true)
	if !d.poller.Knows(blogFeed) || d.poller.Rate(blogFeed) < rate/2 {
		t.Errorf("after :site add the Poller knows blog's feed %v at %.3f/h, want it back at about %.3f/h", d.poller.Knows(blogFeed), d.poller.Rate(blogFeed), rate)
	}
	if next := readFeed(d, "blog.example.test", 15, at.Add(5*time.Hour)); next == revisit.Never {
		t.Error("blog's feed is still parked after :site add")
	}
	if r := rowOf(d, "blog.example.test"); r == nil || !slices.Equal(r.Feeds, []string{blogFeed}) {
		t.Errorf("the re-added site's row: %+v, want its feed", r)
	}
}

// A removed site that held the rest of its registered domain keeps it parked
// under its sibling declared before it, but a site declared after the removal
// holds its hosts again: their feeds are polled, as the book gives them that site.
func TestSiteDeclaredAfterARemovalTakesItsHostsBack(t *testing.T) {
	t.Parallel()
	var book atomic.Pointer[sites.Book]
	before := sites.New([]config.SiteOptions{{Name: "paper", Kind: config.SiteNews, Entry: "http://www.paper.test/"}}, nil, nil)
	book.Store(before)
	d := unitDiscovery(&book)
	at := time.Now()
	for i := range 3 {
		readFeed(d, "www.paper.test", 3*i, at.Add(time.Duration(i)*time.Hour))
		readFeed(d, "sport.paper.test", 3*i, at.Add(time.Duration(i)*time.Hour))
	}
	empty := sites.New(nil, nil, nil)
	book.Store(empty)
	d.WithdrawSite("paper", before, true)
	if d.poller.Knows("http://www.paper.test/feed") || d.poller.Knows("http://sport.paper.test/feed") {
		t.Fatal("the feeds of the removed site's hosts (its entry's and the rest of its domain) are still polled")
	}
	sport := sites.New([]config.SiteOptions{{Name: "sport", Kind: config.SiteNews, Entry: "http://sport.paper.test/"}}, nil, nil)
	book.Store(sport)
	d.RestoreSite("sport", sport, true)
	if !d.poller.Knows("http://sport.paper.test/feed") || !d.poller.Knows("http://www.paper.test/feed") {
		t.Errorf("a site declared after the removal, holding the whole domain: polled sport %v, www %v, want both",
			d.poller.Knows("http://sport.paper.test/feed"), d.poller.Knows("http://www.paper.test/feed"))
	}
}
