package engine

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// hitWeb serves /p/N pages; page 0 links to pages 1..links-1. It counts the page
// requests it answers.
type hitWeb struct {
	links int
	mu    sync.Mutex
	hits  map[string]int // path -> requests
}

func (w *hitWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(rw, r)
		return
	}
	w.mu.Lock()
	w.hits[r.URL.Path]++
	w.mu.Unlock()
	rw.Header().Set("Content-Type", "text/html")
	var b strings.Builder
	if r.URL.Path == "/p/0" {
		for i := 1; i < w.links; i++ {
			fmt.Fprintf(&b, `<a href="/p/%d">%d</a> `, i, i)
		}
	}
	fmt.Fprintf(rw, "<html><body><p>%s</p>%s</body></html>", r.URL.Path, b.String())
}

func (w *hitWeb) pages() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.hits)
}

// The operator pauses a host with many URLs queued; another host's pages, added
// while it is paused, are all fetched and stored while it stays paused (two
// egresses, lanes.max 2: the paused host's URLs are enough to fill every lane
// slot), and none of the paused host's are asked for until it is resumed.
func TestAPausedHostsURLsLeaveTheLanesToOtherHosts(t *testing.T) {
	t.Parallel()
	paused := &hitWeb{hits: map[string]int{}}
	healthy := &hitWeb{links: 5, hits: map[string]int{}}
	ph := serveOn(t, "127.0.0.21", paused)
	hh := serveOn(t, "127.0.0.22", healthy)
	o := testOptions(t, &miniWeb{hosts: []string{ph}})
	o.Seeds = nil
	for i := range 20 {
		o.Seeds = append(o.Seeds, fmt.Sprintf("http://%s/p/%d", ph, i))
	}
	o.Egress = []string{"bind:127.0.0.62", "bind:127.0.0.63"}
	o.Rotation.PerNode = 0
	o.Lanes.Max = 2
	e := startWithHostPaused(t, o, ph)
	host := strings.Split(ph, ":")[0]
	waitFor(t, "the paused host's 20 seeds queued", func() bool { return e.Snapshot().QueueDepth >= 18 })
	if _, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: "http://" + hh + "/p/0"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(patience)
	for healthy.pages() < healthy.links {
		if time.Now().After(deadline) {
			t.Fatalf("%s paused with 20 URLs queued: %d of the other host's %d pages fetched after %v\n%s",
				host, healthy.pages(), healthy.links, patience, stuckState(e))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := paused.pages(); n != 0 {
		t.Fatalf("%d pages of the paused host were asked for while it was paused", n)
	}
	if err := e.PauseHost(host, false); err != nil {
		t.Fatal(err)
	}
	waitDone(t, e, time.Minute)
	e.Close()
	got := storedPages(t, o.DB)
	if len(got) != 20+healthy.links {
		t.Fatalf("stored %d pages, want the paused host's 20 and the other's %d", len(got), healthy.links)
	}
}

// startWithHostPaused starts an engine on o with the host of hostport paused
// before its first fetch.
func startWithHostPaused(t *testing.T, o config.Options, hostport string) *Engine {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.PauseHost(strings.Split(hostport, ":")[0], true); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	return e
}
