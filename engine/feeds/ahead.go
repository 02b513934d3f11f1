package feeds

import (
	"sync"

	"github.com/crawlconsole/crawlconsole/store/model"
)

// aheadMarks are the URLs a source's read has just listed as new (articles
// published since its previous read), waiting for the store to confirm their insert:
// front.Front.Placing then marks them to go ahead of their lane's ordinary tasks
// (lanes.Board.AddAhead).
//
// Why: the lane that reads a feed is, at a crawl's fetch budget, busy all the time,
// and its queue always holds reads that came due while it fetched. In arrival order
// the articles a read found waited behind those reads and the articles of other
// reads: on the live discovery bench (seed 1, 0.7 of the budget) half of each
// article's latency (p50 2,280 of 4,438 s) was this wait, after its source had
// listed it. A listed article is known news; a due read only may find some.
//
// A source's first read is not marked (what it lists is a backlog, as the Poller
// counts it), nor a read all of whose entries are new (it may have overflowed: an
// archive sitemap read late), and a read marks at most aheadPerRead URLs, so one
// large listing never holds the lanes' other work back for long.
type aheadMarks struct {
	mu   sync.Mutex // its own lock: Placing asks under the engine's lock, which d.mu must not nest in
	urls map[string]struct{}
}

const (
	aheadPerRead = 64
	// aheadMax bounds the marks of URLs the store never confirmed (already known
	// there, say): past it they are dropped, and those URLs go in arrival order.
	aheadMax = 4096
)

// mark marks fresh, the links a read of a source the Poller already knew brought
// that are new to the crawl, unless the read was full of new entries.
func (a *aheadMarks) mark(fresh []model.URL, full bool) {
	if full || len(fresh) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.urls == nil || len(a.urls)+len(fresh) > aheadMax {
		a.urls = map[string]struct{}{}
	}
	for i, u := range fresh {
		if i == aheadPerRead {
			break
		}
		a.urls[u.URL] = struct{}{}
	}
}

// take reports whether u was marked, and unmarks it.
func (a *aheadMarks) take(u string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.urls[u]; !ok {
		return false
	}
	delete(a.urls, u)
	return true
}
