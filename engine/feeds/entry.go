package feeds

import (
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// PollEntry makes a seed's page a discovery source while its site has no feed or
// sitemap the crawl knows of that speaks for the whole site, so that sites with
// neither are found as well as without discovery. A feed speaks for its site; a sitemap only for its own host
// and the hosts whose robots.txt names it, so one whose last read had to refuse some
// of the site's pages (off_host: an undeclared sitemap, or hosts whose robots.txt the
// crawl has not read yet) leaves the entry page polled too (discovery.covers). The
// page revisit estimator spends a small budget over every stored page and, by design,
// gives up on a page that changes faster than that budget can follow, which an entry
// page of a busy newsroom does: its new articles then waited days. Here the Poller
// learns the entry page's rate from the links each fetch lists that the last did not,
// as it does a feed's, and the page is due at the sooner of the two schedules (never
// later than the revisit policy's). fresh and known are the page's links as extract
// gave them: new to the crawl, and already known.
func (d *Discovery) PollEntry(t frontier.Task, fresh []model.URL, known []string, rv *model.Revisit, at time.Time) {
	if d == nil || rv == nil || t.Depth != 0 || t.ParentHash != 0 || d.removedSource(t.URL) {
		return // a removed site's page fetched from a lane's hand teaches nothing
	}
	d.follow()
	d.mu.Lock()
	if site := d.unitOf(t.Host); !slices.Contains(d.entries[site], t.URL) {
		d.entries[site] = append(d.entries[site], t.URL)
	}
	d.mu.Unlock()
	if d.covers(t.Host) {
		d.poller.Forget(t.URL) // polled while it was not covered: its share goes to the sources
		d.forgetListed(t.URL)
		return
	}
	// Its rate is what it lists anew since its last read, as a feed's is: counting
	// links new to the crawl would credit another path to the same articles (a
	// section host's own front page, refetched by the page revisit policy) and make
	// a busy front page look quiet (live bench, seed 1: a site of 27 articles a day
	// learned at 3 a day). Its listing is the links the crawl would follow (extract:
	// resolved, in scope, past the trap guards and nofollow), new or known, so that
	// rotating off-site ads or per-request tokens do not read as news.
	listing := Listing(fresh, known)
	newLinks := len(fresh)
	if n, ok := d.listedAnew(t.URL, listing); ok {
		newLinks = n
	}
	full := newLinks > 0 && newLinks >= len(listing)
	if d.poller.Knows(t.URL) {
		d.ahead.mark(fresh, full)
	}
	d.poller.ObserveRead(t.URL, at, newLinks, len(fresh), full)
	d.observeCoverage(t.URL, listing, false)
	if next := at.Add(d.poller.Interval(t.URL)); rv.Next.IsZero() || next.Before(rv.Next) {
		rv.Next = next
	}
}

// Listing is a read's listing: the links extract gave, new to the crawl and known.
func Listing(fresh []model.URL, known []string) []string {
	listing := make([]string, 0, len(fresh)+len(known))
	for _, u := range fresh {
		listing = append(listing, u.URL)
	}
	return append(listing, known...)
}
