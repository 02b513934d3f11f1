package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// An article a feed's read lists anew is fetched before the tasks its lane had
// queued when that read came back (the links of pages fetched before), not after
// them: at a crawl's fetch budget the lane is always busy, and in arrival order the
// news waited behind the crawl. The feed's second read (asked for with revisit now)
// comes while a tree of pages, three links each, is being crawled on the same lane.
// Before, every page queued before the read was fetched before the article.
func TestArticlesAReadListsGoAheadOfTheLanesQueue(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.raw["/feed.xml"] = func(n int) (string, []byte) {
		items := []string{"/a/1", "/p/0"}
		if n > 0 {
			items = append([]string{"/a/2"}, items...)
		}
		var b strings.Builder
		b.WriteString(`<rss version="2.0"><channel><title>news</title>`)
		for _, p := range items {
			fmt.Fprintf(&b, `<item><link>http://%s%s</link></item>`, h, p)
		}
		b.WriteString(`</channel></rss>`)
		return "application/rss+xml", []byte(b.String())
	}
	const pages = 400
	for n := range pages {
		var b strings.Builder
		for c := 3*n + 1; c <= 3*n+3 && c < pages; c++ {
			fmt.Fprintf(&b, `<a href="/p/%d">%d</a> `, c, c)
		}
		s.pages[fmt.Sprintf("/p/%d", n)] = "<html><body>" + b.String() + "</body></html>"
	}
	s.pages["/a/1"] = "<html><body>one</body></html>"
	s.pages["/a/2"] = "<html><body>two</body></html>"
	feed := "http://" + h + "/feed.xml"
	o := discoveryPollOptions(t, feed)
	o.Discovery.Probe = config.ProbeOff
	o.Discovery.MinPoll, o.Discovery.MaxPoll = time.Hour, time.Hour // read again only when asked
	o.Lanes.Max = 1
	o.HostRate = 200 // the tree's pages in 2 s; the order is the subject, not the pace
	// A loopback site's response time is this box's load, not a server's: with the
	// default politeness a loaded box's answers of a few hundred ms set the lane's
	// gaps to a second or more (5x each), and three slow ones in a row back the host
	// off for a minute, doubling, while the tree's 400 pages wait on one lane.
	o.Politeness = config.FixedPoliteness()
	// From the feed's second read on, the tree's pages are answered only once the
	// crawl has placed the article that read lists (or fetched it): what is judged is
	// where the article goes in the lane's queue, not how fast the store's batch
	// comes back against the lane (under load the lane fetched half the queue first).
	release := make(chan struct{})
	var reads atomic.Int32
	s.mu.Lock()
	s.hold = func(path string, _ int) {
		if path == "/feed.xml" {
			reads.Add(1)
			return
		}
		if reads.Load() >= 2 && strings.HasPrefix(path, "/p/") {
			select {
			case <-release:
			case <-time.After(patience):
			}
		}
	}
	s.mu.Unlock()
	e := startEngine(t, o)
	fetchedPages := func() int {
		n := 0
		for _, p := range s.paths() {
			if strings.HasPrefix(p, "/p/") {
				n++
			}
		}
		return n
	}
	waitFor(t, "20 pages of the tree fetched", func() bool { return fetchedPages() >= 20 })
	if err := e.RevisitNow(feed); err != nil {
		t.Fatal(err)
	}
	article := "http://" + h + "/a/2"
	waitFor(t, "the feed's second read listed /a/2 and the crawl placed it", func() bool {
		if s.requested("/a/2") > 0 {
			return true
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		return slices.ContainsFunc(e.lanes.Board.Tasks(), func(t frontier.Task) bool { return t.URL == article })
	})
	close(release)
	for deadline := time.Now().Add(patience); s.requested("/a/2") == 0 || fetchedPages() < pages; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for the article of the feed's second read (requested %d times) and the whole tree fetched (%d requests of %d pages): %+v\n%s",
				s.requested("/a/2"), fetchedPages(), pages, e.Stats(), stuckState(e))
		}
	}
	log := s.paths()
	e.Close()

	read := -1 // the feed's second read
	for i, p := range log {
		if p == "/feed.xml" {
			if read == -2 {
				read = i
				break
			}
			read = -2
		}
	}
	at := slices.Index(log, "/a/2")
	if read < 0 || at < read {
		t.Fatalf("request log %v: want a second /feed.xml read, then /a/2", log)
	}
	// The pages queued before the read came back: children of pages fetched before
	// it, not fetched themselves by then.
	fetchedBy := map[int]bool{}
	for _, p := range log[:read] {
		var n int
		if _, err := fmt.Sscanf(p, "/p/%d", &n); err == nil {
			fetchedBy[n] = true
		}
	}
	var queued, after int
	for i, p := range log[read+1:] {
		var n int
		if _, err := fmt.Sscanf(p, "/p/%d", &n); err != nil || n == 0 || !fetchedBy[(n-1)/3] {
			continue
		}
		queued++
		if read+1+i > at {
			after++
		}
	}
	t.Logf("%d requests before the feed's second read; %d pages queued then were fetched after it, %d of them after /a/2 (%d requests between the read and /a/2)",
		read, queued, after, at-read-1)
	if queued < 4 {
		t.Fatalf("only %d pages were queued at the feed's second read: the test needs a queue to jump", queued)
	}
	if after*2 < queued {
		t.Errorf("/a/2 came after %d of the %d pages queued before the read that listed it: want it ahead of at least half", queued-after, queued)
	}
}
