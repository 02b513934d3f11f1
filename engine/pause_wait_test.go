package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestPauseStopsALaneWaitingWithATaskInHand: a lane that ran dry and took over tasks
// from a busy lane (lanes.Board.Next) holds its next task while it waits out the M1
// pause. Pausing the crawl or the task's host during that wait must still stop the
// request, as it does for any lane. The lane's Front.Hold, after the wait, is what
// stops the crawl's pause; a host's pause is stopped there too and again by mayLeave
// right before the request leaves, so the host case fails only without both.
func TestPauseStopsALaneWaitingWithATaskInHand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		pause  func(e *Engine) // under e.mu, as Pause and PauseHost do
		resume func(e *Engine)
	}{
		{"crawl", func(e *Engine) { e.paused = true }, func(e *Engine) { e.Resume() }},
		{"host", func(e *Engine) { e.lanes.Run.SetHostPaused("127.0.0.1", true) }, func(e *Engine) { e.PauseHost("127.0.0.1", false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			requested := map[string]time.Time{}
			// The slow egress's pages (all but the seed) are answered once the case
			// is reached: its lane keeps tasks queued behind one in flight while the
			// fast egress's lane runs dry and takes them over, however slow the box.
			reached := make(chan struct{})
			var reach sync.Once
			defer reach.Do(func() { close(reached) })
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				requested[r.URL.Path] = time.Now()
				mu.Unlock()
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				if strings.HasPrefix(r.RemoteAddr, "127.0.0.2:") && r.URL.Path != "/p/0" {
					select { // egress 0 is slow: egress 1 runs dry first
					case <-reached:
					case <-r.Context().Done():
					}
				}
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, "<html><body>")
				if r.URL.Path == "/p/0" {
					// Twenty links: the fast egress's lane runs dry while the
					// slow one's still has tasks to take over.
					for i := 1; i <= 20; i++ {
						fmt.Fprintf(w, `<a href="/p/%d">x</a>`, i)
					}
				}
				fmt.Fprint(w, "</body></html>")
			})}
			go srv.Serve(ln)
			defer srv.Close()

			o := testDefaults()
			o.Seeds = []string{"http://" + ln.Addr().String() + "/p/0"}
			o.DB = filepath.Join(t.TempDir(), "crawl.db")
			o.AllowPrivate = []string{"127.0.0.0/8"}
			o.Scope.SameSite = false
			o.Egress = []string{"bind:127.0.0.2", "bind:127.0.0.3"}
			o.Rotation.PerNode = 0
			o.Lanes.Max = 4
			const delay = 400 * time.Millisecond
			o.Lanes.DelayMin, o.Lanes.DelayMax = delay, delay
			o.HostRate = 0
			o.Politeness = config.FixedPoliteness() // the slow egress must stay slow: no host gap shared with the fast one
			e := startEngine(t, o)

			// Wait for a lane waiting out its pause with a task in hand that was not
			// requested yet, and pause right then, under the engine's lock. What
			// may still reach the server is what was requested already and what
			// lanes had in flight then (on a loaded box a request sent before the
			// pause can reach the handler well after it): judged by those sets, not
			// by a margin on the clock.
			path := func(u string) string { return u[strings.Index(u[len("http://"):], "/")+len("http://"):] }
			deadline := time.Now().Add(patience)
			victim := ""
			allowed := map[string]bool{}
			for victim == "" && time.Now().Before(deadline) {
				e.mu.Lock()
				mu.Lock()
				for _, ls := range e.lanes.Run.Slots() {
					if ls.Status == view.LaneWaiting && ls.Task.URL != "" && ls.Task.URL == ls.Current {
						if _, done := requested[path(ls.Current)]; !done {
							victim = path(ls.Current)
						}
					}
				}
				if victim != "" {
					tc.pause(e)
					for p := range requested {
						allowed[p] = true
					}
					for _, ls := range e.lanes.Run.Slots() {
						if ls.Status == view.LaneFetching && ls.Current != "" {
							allowed[path(ls.Current)] = true
						}
					}
				}
				mu.Unlock()
				e.mu.Unlock()
				if victim != "" {
					reach.Do(func() { close(reached) })
				}
				time.Sleep(500 * time.Microsecond)
			}
			if victim == "" {
				t.Fatal("no lane ever waited with a task taken over: the test did not reach its case")
			}
			pausedAt := time.Now()
			// Judged once no lane has the victim in hand waiting or fetching: its
			// lane has ended its wait and passed the point where a request would
			// leave. Held there (the crawl's pause) it shows paused; set aside (the
			// host's) it has the victim no more; a lane that sent it anyway lets it
			// go only once answered, after the server saw the request.
			waitFor(t, "the lane waiting with "+victim+" to end its wait", func() bool {
				e.mu.Lock()
				defer e.mu.Unlock()
				for _, ls := range e.lanes.Run.Slots() {
					if ls.Task.URL != "" && path(ls.Task.URL) == victim && (ls.Status == view.LaneWaiting || ls.Status == view.LaneFetching) {
						return false
					}
				}
				return true
			})
			mu.Lock()
			var after []string
			for p, at := range requested {
				if !allowed[p] {
					after = append(after, fmt.Sprintf("%s +%v", p, at.Sub(pausedAt).Round(time.Millisecond)))
				}
			}
			mu.Unlock()
			if len(after) > 0 {
				t.Fatalf("paused while a lane waited with %s in hand; requested since: %v", victim, after)
			}
			// Resumed, the held task goes out, and the crawl ends: a task the
			// pause took off the lane's hand and queued again (the host's
			// pause) must be released, or the crawl waits for it for ever.
			tc.resume(e)
			waitFor(t, victim+" fetched after the resume", func() bool {
				mu.Lock()
				defer mu.Unlock()
				_, ok := requested[victim]
				return ok
			})
			waitDone(t, e, 60*time.Second)
		})
	}
}
