package engine

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// orderWeb is one host whose pages each link to the next three, and which notes the
// order its pages were asked for.
type orderWeb struct {
	mu   sync.Mutex
	seen []string
}

func (w *orderWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(rw, r)
		return
	}
	w.mu.Lock()
	w.seen = append(w.seen, r.URL.RequestURI())
	w.mu.Unlock()
	var n int
	fmt.Sscanf(r.URL.Path, "/p/%d", &n)
	rw.Header().Set("Content-Type", "text/html")
	var b strings.Builder
	for i := n + 1; i <= n+3 && i < 16; i++ {
		fmt.Fprintf(&b, `<a href="/p/%d">%d</a> `, i, i)
	}
	fmt.Fprintf(rw, "<html><body><p>page %d</p>%s</body></html>", n, b.String())
}

func (w *orderWeb) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// An operator's new source goes before the task a lane already holds. The
// host is capped at 4 requests/s, so its lane spends nearly all its time at the gate
// with its next page in hand; a seed added there takes that page's slot, and the
// page follows it (nothing is lost or fetched twice). Before the trade the page in
// hand always went first.
func TestOperatorSeedTakesTheSlotOfTheTaskInHand(t *testing.T) {
	t.Parallel()
	w := &orderWeb{}
	srv := httptest.NewServer(w)
	defer srv.Close()
	o := config.DefaultOptions()
	o.Seeds = []string{srv.URL + "/p/0"}
	o.DB = t.TempDir() + "/crawl.db"
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.HostRate = 4
	o.Revisit.Enabled = false
	e := startEngine(t, o)
	waitFor(t, "three pages fetched", func() bool { return len(w.requests()) >= 3 })

	seed := srv.URL + "/p/0?operator=1"
	before := len(w.requests())
	if _, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: seed}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a request after the seed was added", func() bool { return len(w.requests()) > before })
	next := w.requests()[before]
	if next != "/p/0?operator=1" {
		t.Fatalf("the first request after :seed add was %s; the operator's seed should take the slot of the page in hand", next)
	}
	waitDone(t, e, 30*time.Second)
	count := map[string]int{}
	for _, u := range w.requests() {
		count[u]++
	}
	for i := range 16 {
		if u := fmt.Sprintf("/p/%d", i); count[u] != 1 {
			t.Errorf("%s requested %d times, want once (the page given back is fetched later, once)", u, count[u])
		}
	}
}
