package engine

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// An operator's task (a news site's entry added live, which the crawl fetched
// already) is placed while the one lane waits on a paused host's URLs that the
// entry's parent page linked to (adjacent to it by that parent, M1). It is fetched
// at once: no other event has to come first.
func TestAnOperatorsTaskBesideAPausedHostsURLsIsTakenAtOnce(t *testing.T) {
	t.Parallel()
	paused := &hitWeb{hits: map[string]int{}}
	ph := serveOn(t, "127.0.0.24", paused)
	news := &hitWeb{hits: map[string]int{}}
	nh := serveOn(t, "127.0.0.23", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/p/0" {
			news.mu.Lock()
			news.hits[r.URL.Path]++
			news.mu.Unlock()
			rw.Header().Set("Content-Type", "text/html")
			rw.Write([]byte(`<html><body><a href="/p/9">entry</a><a href="http://` + ph + `/p/1">a</a><a href="http://` + ph + `/p/2">b</a></body></html>`))
			return
		}
		news.ServeHTTP(rw, r)
	}))
	o := testOptions(t, &miniWeb{hosts: []string{nh}})
	o.Lanes.Max = 1
	o.Revisit.Enabled = false
	e := startWithHostPaused(t, o, ph)
	host := strings.Split(ph, ":")[0]
	hits := func(path string) int {
		news.mu.Lock()
		defer news.mu.Unlock()
		return news.hits[path]
	}
	waitFor(t, "the entry fetched and the lanes left waiting on the paused host", func() bool {
		if hits("/p/9") == 0 {
			return false
		}
		for _, l := range e.Snapshot().Lanes {
			if l.Status != view.LanePaused {
				return false
			}
		}
		return true
	})
	// What steering places for an operator's source the crawl fetched already (a
	// news site's entry added live): the entry's stored row, marked the operator's.
	entry := "http://" + nh + "/p/9"
	e.mu.Lock()
	e.crew.Place(frontier.Task{URL: entry, Host: strings.Split(nh, ":")[0], ParentHash: frontier.Hash("http://" + nh + "/p/0"),
		Depth: 1, Urgent: true})
	e.mu.Unlock()
	deadline := time.Now().Add(patience)
	for hits("/p/9") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the news site's entry %s, added while the lanes waited on %s, not fetched after %v\n%s",
				entry, host, patience, stuckState(e))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := paused.pages(); n != 0 {
		t.Fatalf("%d pages of the paused host were asked for while it was paused", n)
	}
}
