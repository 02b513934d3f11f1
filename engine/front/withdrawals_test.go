package front

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// endingCrawl is a fakeCrawl whose frontier side ends a withdrawn task only when
// the test lets it (the store's reads and writes of a loaded box).
type endingCrawl struct {
	*fakeCrawl
	ending  chan frontier.Task // a withdrawn task's end has begun
	release chan struct{}      // let it finish
}

func (c *endingCrawl) Withdrawn(t frontier.Task) {
	c.ending <- t
	<-c.release
}

// A search withdrawn as it reaches the queue (its keyword removed, here in an
// earlier run's steering log replayed before the resume) keeps the crawl busy
// until its end is handed to the store, not only until a flush takes it off the
// list of those waiting. In between, Busy said idle: the crawl could be judged
// dry with a withdrawal unwritten (one box's end check still waits for the flush
// under way, through FlushDeferred; a worker's idle check asks no store).
func TestAWithdrawnTaskKeepsTheCrawlBusyUntilItsEndIsWritten(t *testing.T) {
	f, fc, _ := storeFront(t, &config.Options{QueueMemory: 100}, nil)
	c := &endingCrawl{fakeCrawl: fc, ending: make(chan frontier.Task, 1), release: make(chan struct{})}
	f.crawl = c
	search := frontier.Task{URL: "http://a.test/search?q=flood&page=4", Host: "a.test", Site: "chirp", Keyword: "flood"}

	f.Mu.Lock()
	f.MarkOut(map[string]uint64{search.URL: 0})
	f.Place(search) // paged in from the store: withdrawn, its end goes to a flush
	busy := f.Busy()
	f.Mu.Unlock()
	if !busy {
		t.Fatal("a withdrawn search waiting for its flush left the crawl idle")
	}
	if got := <-c.ending; got.URL != search.URL {
		t.Fatalf("the flush ends %s, want %s", got.URL, search.URL)
	}
	f.Mu.Lock()
	busy = f.Busy()
	f.Mu.Unlock()
	if !busy {
		t.Error("the crawl is idle while a withdrawn search's end is being written: the end of crawl check would read the store before it")
	}
	close(c.release)
	<-c.idle // the flush checks the idle state once the end is handed over
	c.wg.Wait()
	f.Mu.Lock()
	busy = f.Busy()
	f.Mu.Unlock()
	if busy {
		t.Error("the crawl stays busy after the withdrawn search's end was handed to the store")
	}
	if len(fc.placed) != 0 {
		t.Errorf("the withdrawn search reached the crew: %v", fc.placed)
	}
}
