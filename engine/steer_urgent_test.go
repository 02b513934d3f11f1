package engine

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/lanes/pace"
	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// orderWeb is one host whose pages each link to the next three, and which notes the
// order its pages were asked for.
type orderWeb struct {
	mu   sync.Mutex
	seen []string
	// onRequest, when set, is told the count of pages asked for so far as each one
	// is asked for, before it is answered.
	onRequest func(n int)
}

func (w *orderWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(rw, r)
		return
	}
	w.mu.Lock()
	w.seen = append(w.seen, r.URL.RequestURI())
	asked := len(w.seen)
	w.mu.Unlock()
	if w.onRequest != nil {
		w.onRequest(asked)
	}
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

// parkedHost is a pacing policy the test switches: parked, it asks an hour's gap
// of the host (longer than any test waits), so the request that asks for its gap
// then waits at the gate, its page in hand and unsent, until something stops its
// wait; unparked, it adds nothing to the host's own gap.
type parkedHost struct {
	mu     sync.Mutex
	parked bool
	asked  chan struct{} // closed when a request asks for its gap while parked
}

func newParkedHost() *parkedHost { return &parkedHost{asked: make(chan struct{})} }

func (p *parkedHost) park() {
	p.mu.Lock()
	p.parked = true
	p.mu.Unlock()
}

func (p *parkedHost) unpark() {
	p.mu.Lock()
	p.parked = false
	p.mu.Unlock()
}

func (p *parkedHost) Observe(string, pace.Response, time.Duration) {}

func (p *parkedHost) Gap(string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.parked {
		return 0
	}
	select {
	case <-p.asked:
	default:
		close(p.asked)
	}
	return time.Hour
}

// An operator's new source goes before the task a lane already holds. The host's
// lane is caught at the gate with its next page in hand: the host is parked when
// its third page is served, so the lane's next request waits out an hour's gap,
// which only the operator's task can cut short. A seed added there takes that
// page's slot, and the page follows it (nothing is lost or fetched twice). Without
// the trade the page in hand would go first, an hour later.
func TestOperatorSeedTakesTheSlotOfTheTaskInHand(t *testing.T) {
	t.Parallel()
	park := newParkedHost()
	w := &orderWeb{onRequest: func(n int) {
		if n == 3 {
			park.park()
		}
	}}
	srv := httptest.NewServer(w)
	defer srv.Close()
	o := testDefaults()
	o.Seeds = []string{srv.URL + "/p/0"}
	o.DB = t.TempDir() + "/crawl.db"
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.HostRate = 4 // the host takes one request at a time: the parked one holds its line
	o.Pacer = park
	o.Revisit.Enabled = false
	e := startEngine(t, o)
	select {
	case <-park.asked: // the lane's next request waits at the gate, an hour away
	case <-time.After(patience):
		t.Fatalf("no request came to the gate after the third page: %v", w.requests())
	}
	// The request in hand keeps its hour: only a stop (the trade) or the crawl's end
	// ends its wait. The seed's own request waits for the host's gap alone.
	park.unpark()

	seed := srv.URL + "/p/0?operator=1"
	before := len(w.requests())
	if _, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: seed}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a request after the seed was added (the page in hand waits an hour)", func() bool { return len(w.requests()) > before })
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
