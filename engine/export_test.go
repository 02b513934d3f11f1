package engine

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// StallWorker holds w's engine lock as a process stalled on a loaded box would: the
// worker answers no control request, and sends no heartbeat, until resume is
// called (more than once is harmless).
func StallWorker(w *Worker) (resume func()) {
	w.e.mu.Lock()
	var once sync.Once
	return func() { once.Do(w.e.mu.Unlock) }
}

// IdleReport says what the end-of-crawl test (checkIdle) weighs, for a test's
// failure message: a crawl not done names what it still waits for.
func IdleReport(e *Engine) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	waiting, inHand := e.crew.Counts()
	return fmt.Sprintf("state %v, paused %v, board %d, waiting %d, in hand %d, revisit marks pending %d, front busy %v, spilled %v",
		e.state, e.paused, e.lanes.Board.Len(), waiting, inHand, e.fr.Marks().Pending(), e.fr.Busy(), e.fr.Spilled())
}

// RobotsDownSite serves a loopback site whose robots.txt answers 503 (unreachable:
// RFC 9309 has the site's URLs wait) and whose every other path is a page; it
// returns the site's first page and the count of pages it served.
func RobotsDownSite(t testing.TB) (seed string, pages *atomic.Int64) {
	t.Helper()
	pages = new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		pages.Add(1)
		fmt.Fprint(w, "<html>page</html>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/p/0", pages
}
