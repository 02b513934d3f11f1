package engine

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A URL that a site's own feed lists is what the site says its pages are: the trap
// guards do not second-guess it. The same URL found only as a link on another site's
// page is still a calendar running off and is held back. Before, the guard dropped the
// feed's entry too, so an event dated years ahead that the site announced was never
// fetched.
func TestFeedListedURLIsNoTrapCandidate(t *testing.T) {
	t.Parallel()
	a := newDiscoSite(t)
	b := newDiscoSiteOn(t, "127.0.0.2")
	const far = "/events/2150/01/01/gala.html" // past calendar_years (10) from now
	a.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><p>front page</p></body></html>`
	a.raw["/feed.xml"] = static("application/rss+xml", `<rss version="2.0"><channel><title>a</title>`+
		`<item><link>http://`+a.host+far+`</link></item>`+
		`<item><link>http://`+a.host+`/news/1</link></item></channel></rss>`)
	a.pages[far] = `<html><body><p>the gala, announced</p></body></html>`
	a.pages["/news/1"] = `<html><body><p>news</p></body></html>`
	b.pages["/"] = `<html><body><a href="` + far + `">gala</a></body></html>`
	b.pages[far] = `<html><body><p>the gala, only linked</p></body></html>`
	o := robotsOptions(t, "http://"+a.host+"/")
	o.Seeds = append(o.Seeds, "http://"+b.host+"/")
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	if n := a.requested(far); n != 1 {
		t.Errorf("the feed's own entry %s fetched %d times, want 1 (log %v)", far, n, a.paths())
	}
	if n := b.requested(far); n != 0 {
		t.Errorf("the link-only %s fetched %d times: the calendar guard let it through", far, n)
	}
	if got := skippedAs(e, frontier.TrapCalendar); got != 1 {
		t.Errorf("trap_calendar counted %d, want 1 (the link on the other site)", got)
	}
	if n := e.Snapshot().Totals.PagesStored; n != 5 {
		t.Errorf("%d pages stored, want 5 (two front pages, the feed, its news item and the announced gala)", n)
	}
}

// A feed a page announces (<link rel="alternate">) is a document the site names, not
// a step of a URL series: Hugo gives each year of an archive its feed
// (/year/2012/index.xml), and the calendar guard must not hold it back for its year.
// A plain link to a page of that year, on the same page, still is.
func TestAnnouncedFeedOfAnOldYearIsNoTrapCandidate(t *testing.T) {
	t.Parallel()
	a := newDiscoSite(t)
	const feed = "/year/1990/index.xml" // past calendar_years (10) from now
	const page = "/year/1990/list.html"
	a.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="` + feed + `"></head>` +
		`<body><a href="` + page + `">1990</a></body></html>`
	a.raw[feed] = static("application/rss+xml", `<rss version="2.0"><channel><title>1990</title>`+
		`<item><link>http://`+a.host+`/p/a-story-of-1990/</link></item></channel></rss>`)
	a.pages["/p/a-story-of-1990/"] = `<html><body><p>a story</p></body></html>`
	a.pages[page] = `<html><body><p>the year's list</p></body></html>`
	e := startEngine(t, robotsOptions(t, "http://"+a.host+"/"))
	waitDone(t, e, 30*time.Second)
	if n := a.requested(feed); n != 1 {
		t.Errorf("the announced feed %s fetched %d times, want 1 (log %v)", feed, n, a.paths())
	}
	if n := a.requested("/p/a-story-of-1990/"); n != 1 {
		t.Errorf("the feed's story fetched %d times, want 1 (log %v)", n, a.paths())
	}
	if n := a.requested(page); n != 0 {
		t.Errorf("the linked %s fetched %d times: the calendar guard let it through", page, n)
	}
	if got := skippedAs(e, frontier.TrapCalendar); got != 1 {
		t.Errorf("trap_calendar counted %d, want 1 (the plain link)", got)
	}
}
