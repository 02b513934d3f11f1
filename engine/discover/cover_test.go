package discover

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"testing"
	"time"
)

// coverWeb is a site publishing one article per step, listed by sources that each
// show a window of the newest articles, some of them only part of the site.
type coverWeb struct{ n int }

func coverHash(i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "http://www.example.com/story/%d", i)
	return h.Sum64()
}

// latest lists the newest n articles (among those keep accepts).
func (w *coverWeb) latest(n int, keep func(int) bool) []uint64 {
	var out []uint64
	for i := w.n - 1; i >= 0 && len(out) < n; i-- {
		if keep == nil || keep(i) {
			out = append(out, coverHash(i))
		}
	}
	return out
}

// ownHost keeps the stories of a sitemap that may speak only for its own host
// (every other one).
func ownHost(i int) bool { return i%2 == 0 }

// frontAndOwnHostSitemap reads a front page linking the newest 20 stories of every
// section each step, and a sitemap of its own host's newest sitemapURLs stories
// every third step, for steps steps: the front page comes to cover the sitemap. It
// returns the last read's verdict.
func frontAndOwnHostSitemap(c *Coverage, w *coverWeb, steps, sitemapURLs int) (got map[string]string) {
	for step := range steps {
		w.n++
		got = c.Observe("example.com", "front", w.latest(20, nil))
		if step%3 == 0 {
			got = c.Observe("example.com", "sitemap", w.latest(sitemapURLs, ownHost))
		}
	}
	return got
}

// freezeFront makes the front page stop changing (a redesign that dropped the
// article list) while the shadowed sitemap is read at the longest interval, until
// the sitemap stands again or 200 steps pass. It returns the last verdict and the
// sitemap's reads.
func freezeFront(c *Coverage, w *coverWeb) (got map[string]string, reads int) {
	frozen := w.latest(20, nil)
	for step := range 200 {
		w.n++
		if got = c.Observe("example.com", "front", frozen); got["sitemap"] == "" {
			break
		}
		if step%24 == 0 { // the sitemap at the longest interval
			reads++
			got = c.Observe("example.com", "sitemap", w.latest(100, ownHost))
		}
	}
	return got, reads
}

func TestCoverageShadowsASourceAnotherListsFirst(t *testing.T) {
	// A front page linking the newest 20 articles of every section, read every
	// step; a sitemap that may speak only for its own host (every other article),
	// read every third step. The sitemap brings nothing the front page has not
	// listed already: it is shadowed, by the front page. The front page is not: half
	// of what it lists the sitemap never does.
	c := &Coverage{}
	got := frontAndOwnHostSitemap(c, &coverWeb{n: 30}, 60, 1000)
	if got["sitemap"] != "front" || len(got) != 1 {
		t.Fatalf("shadowed %v, want the sitemap shadowed by the front page only", got)
	}
}

func TestCoverageKeepsOneOfTwoFeedsOfTheSameItems(t *testing.T) {
	// An RSS and an Atom feed of the same 50 items, read in turn: each covers the
	// other, so exactly one is read at its own rate (the first by URL, same size).
	c := &Coverage{}
	w := &coverWeb{n: 50}
	var got map[string]string
	for range 40 {
		w.n++
		c.Observe("example.com", "http://www.example.com/rss", w.latest(50, nil))
		w.n++
		got = c.Observe("example.com", "http://www.example.com/atom", w.latest(50, nil))
	}
	if len(got) != 1 || got["http://www.example.com/rss"] != "http://www.example.com/atom" {
		t.Fatalf("shadowed %v, want the rss feed shadowed by the atom feed (first by URL)", got)
	}
}

func TestCoverageDoesNotShadowASourceThatListsItemsFirst(t *testing.T) {
	// A news sitemap (the last two days) and an archive sitemap (older than two
	// days): the archive's new entries are the news sitemap's of two days ago, so the
	// archive is shadowed; the news sitemap lists each article first, long before
	// the archive does, and stays read at its own rate.
	c := &Coverage{}
	w := &coverWeb{n: 100}
	var got map[string]string
	for range 80 {
		w.n++
		news := w.latest(10, nil)
		archive := w.latest(1000, func(i int) bool { return i < w.n-10 })
		c.Observe("example.com", "news", news)
		got = c.Observe("example.com", "archive", archive)
	}
	if len(got) != 1 || got["archive"] != "news" {
		t.Fatalf("shadowed %v, want the archive shadowed by the news sitemap only", got)
	}
}

func TestCoverageLetsAShadowedSourceBackWhenTheOtherStopsListing(t *testing.T) {
	// The front page shadows the sitemap (of its own host's articles); then the
	// front page stops changing (a redesign that dropped the article list). The
	// sitemap, still read now and then, brings URLs the front page never lists,
	// and is read at its own rate again.
	c := &Coverage{}
	w := &coverWeb{n: 30}
	if got := frontAndOwnHostSitemap(c, w, 60, 100); got["sitemap"] != "front" {
		t.Fatalf("shadowed %v, want the sitemap shadowed first", got)
	}
	got, reads := freezeFront(c, w)
	if got["sitemap"] != "" {
		t.Fatalf("the sitemap is still shadowed by a front page that no longer lists anything new: %v", got)
	}
	if reads > 2 {
		t.Errorf("it took %d reads of the shadowed sitemap to let it back, want at most 2", reads)
	}
}

func TestCoverageForgetsASourceThatIsNoLongerPolled(t *testing.T) {
	// The front page shadows the sitemap, then is no longer a source (its site's
	// feeds cover it): the sitemap is not shadowed by something nobody reads.
	c := &Coverage{}
	frontAndOwnHostSitemap(c, &coverWeb{n: 30}, 60, 100)
	if got := c.Shadowed("example.com"); got["sitemap"] != "front" {
		t.Fatalf("shadowed %v, want the sitemap shadowed first", got)
	}
	c.Forget("example.com", "front")
	if got := c.Shadowed("example.com"); len(got) != 0 {
		t.Fatalf("shadowed %v after the front page was forgotten, want none", got)
	}
}

func TestPollerReadsAShadowedSourceAtTheLongestIntervalAndGivesItsShareAway(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	p := &Poller{Budget: 4} // polls per hour over all sources
	at := t0
	for _, s := range []string{"a", "b"} {
		p.Observe(s, at, 0, false)
	}
	for range 48 {
		at = at.Add(time.Hour)
		p.Observe("a", at, 2, false)
		p.Observe("b", at, 2, false)
	}
	both := p.Interval("a")
	p.Shadow("b", true)
	if got := p.Interval("b"); got != 24*time.Hour {
		t.Errorf("shadowed source's interval %v, want the longest (24h)", got)
	}
	if got := p.Interval("a"); got >= both {
		t.Errorf("the other source's interval %v with b shadowed, want shorter than %v (b's share goes to it)", got, both)
	}
	p.Shadow("b", false)
	if got := p.Interval("b"); got != both {
		t.Errorf("interval %v once b is no longer shadowed, want %v again", got, both)
	}
}

func TestCoverageKeepsNothingOfASiteWithOneSource(t *testing.T) {
	// Most sites of a wide crawl have one feed or sitemap: nothing to compare it
	// with, so none of its listings is kept.
	c := &Coverage{}
	w := &coverWeb{n: 1000}
	for range 10 {
		w.n++
		if got := c.Observe("example.com", "sitemap", w.latest(1000, nil)); len(got) != 0 {
			t.Fatalf("a site's only source shadowed: %v", got)
		}
	}
	s := c.sites["example.com"]
	if x := s.srcs[0]; x.listing != nil || len(x.ring) != 0 || len(s.listedBy) != 0 {
		t.Errorf("kept %d listed, %d anew, %d listers for a site with one source, want none", len(x.listing), len(x.ring), len(s.listedBy))
	}
}

func TestCoverageNeverShadowsTheSourceThatListsFirst(t *testing.T) {
	// A feed lists each article when it is published; a sitemap of the same
	// articles is regenerated late (an hour behind). Each is read when the Poller
	// says, a shadowed one at the longest interval. The sitemap is shadowed by the
	// feed; the feed never is. (Judged at the shadowed sitemap's daily reads, the
	// feed's articles looked covered by it — listed there, hours later — and the two
	// came to cover each other: the feed, the smaller, went to one read a day.)
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	p := &Poller{}
	c := &Coverage{}
	published := func(at time.Time) int { return int(at.Sub(t0) / (20 * time.Minute)) }
	list := func(upTo, n int) []uint64 {
		var out []uint64
		for i := upTo; i > upTo-n && i >= 0; i-- {
			out = append(out, coverHash(i))
		}
		return out
	}
	listing := map[string]func(time.Time) []uint64{
		"feed":    func(at time.Time) []uint64 { return list(published(at), 20) },
		"sitemap": func(at time.Time) []uint64 { return list(published(at.Add(-time.Hour)), 200) },
	}
	next := map[string]time.Time{"feed": t0, "sitemap": t0.Add(time.Minute)}
	prev := map[string]map[uint64]bool{}
	feedShadowed, reads := 0, 0
	var verdict map[string]string
	for {
		src := "feed"
		if next["sitemap"].Before(next["feed"]) {
			src = "sitemap"
		}
		at := next[src]
		if at.After(t0.Add(10 * 24 * time.Hour)) {
			break
		}
		l := listing[src](at)
		fresh := 0
		seen := map[uint64]bool{}
		for _, h := range l {
			seen[h] = true
			if prev[src] != nil && !prev[src][h] {
				fresh++
			}
		}
		prev[src] = seen
		p.Observe(src, at, fresh, false)
		verdict = c.Observe("example.com", src, l)
		for _, s := range []string{"feed", "sitemap"} {
			p.Shadow(s, verdict[s] != "")
		}
		next[src] = at.Add(p.Interval(src))
		if at.After(t0.Add(24 * time.Hour)) {
			reads++
			if verdict["feed"] != "" {
				feedShadowed++
			}
		}
	}
	if feedShadowed > 0 {
		t.Errorf("the feed, which lists every article an hour before the sitemap, was shadowed after %d of %d reads from day 2 on", feedShadowed, reads)
	}
	if verdict["sitemap"] != "feed" {
		t.Errorf("at the end %v, want the late sitemap shadowed by the feed", verdict)
	}
}

func TestCoverageShadowsOnlyByStandingSources(t *testing.T) {
	// Three nested sources: a short feed of everything, a feed of the even
	// articles, a long sitemap of every fourth. Both narrower ones are shadowed,
	// and each by a source that is not shadowed itself (taken largest first, the
	// sitemap went to the even feed, which the short feed of everything shadows).
	c := &Coverage{}
	w := &coverWeb{n: 800}
	var got map[string]string
	for range 80 {
		w.n++
		got = c.Observe("example.com", "c-all", w.latest(10, nil))
		got = c.Observe("example.com", "a-even", w.latest(20, func(i int) bool { return i%2 == 0 }))
		got = c.Observe("example.com", "b-fourth", w.latest(200, func(i int) bool { return i%4 == 0 }))
	}
	if len(got) != 2 || got["c-all"] != "" {
		t.Fatalf("shadowed %v, want a-even and b-fourth shadowed, c-all standing", got)
	}
	for s, by := range got {
		if got[by] != "" {
			t.Errorf("%s is shadowed by %s, which is shadowed itself", s, by)
		}
	}
}

// What Coverage learned survives a restart (Export, Import through JSON, as the
// engine stores it): the sitemap the front page covers is shadowed from the start,
// not read at its own rate until 8 new URLs show it again; the kept judgments go on
// working (it is let back when the front page stops listing); a damaged state is
// left out and counted.
func TestCoverageIsKeptAcrossARestart(t *testing.T) {
	c := &Coverage{}
	w := &coverWeb{n: 30}
	frontAndOwnHostSitemap(c, w, 60, 100)
	b, err := json.Marshal(c.Export())
	if err != nil {
		t.Fatal(err)
	}
	var states map[string]CoverState
	if err := json.Unmarshal(b, &states); err != nil {
		t.Fatal(err)
	}
	r := &Coverage{}
	if n := r.Import(states); n != 0 {
		t.Fatalf("%d sites left out of an undamaged state", n)
	}
	if got := r.Shadowed("example.com"); got["sitemap"] != "front" || len(got) != 1 {
		t.Fatalf("after a restart shadowed %v, want the sitemap shadowed by the front page at once", got)
	}
	if got := r.Observe("example.com", "sitemap", nil); got["sitemap"] != "front" { // a 304 first
		t.Errorf("a 304 of the sitemap after the restart let it back: %v", got)
	}
	for range 3 {
		w.n++
		r.Observe("example.com", "front", w.latest(20, nil))
	}
	if got := r.Observe("example.com", "sitemap", w.latest(100, ownHost)); got["sitemap"] != "front" {
		t.Errorf("the first reads after the restart let the sitemap back: %v", got)
	}
	if got, _ := freezeFront(r, w); got["sitemap"] != "" {
		t.Errorf("after a restart the sitemap stays shadowed by a front page that no longer lists anything new: %v", got)
	}

	damaged := map[string]CoverState{
		"example.com": {Sources: []CoverSourceState{{URL: "front", Ring: "!!"}, {URL: "sitemap"}}},
		"example.org": {Sources: []CoverSourceState{{URL: "only"}}},
	}
	d := &Coverage{}
	if n := d.Import(damaged); n != 2 {
		t.Errorf("%d of 2 damaged sites left out", n)
	}
	if got := d.Shadowed("example.com"); len(got) != 0 {
		t.Errorf("a damaged state shadows %v", got)
	}
}
