package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// slowHost is one host whose every page takes `took` to answer and links to the
// next few pages; it records when each request started and ended, as the server
// sees them.
type slowHost struct {
	addr  string
	took  time.Duration
	pages int
	mu    sync.Mutex
	spans [][2]time.Time
}

func newSlowHost(t *testing.T, took time.Duration, pages int) *slowHost {
	t.Helper()
	h := &slowHost{took: took, pages: pages}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	h.addr = ln.Addr().String()
	return h
}

func (h *slowHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	time.Sleep(h.took) // the server's own pace, the thing under test
	var n int
	fmt.Sscanf(r.URL.Path, "/p/%d", &n)
	w.Header().Set("Content-Type", "text/html")
	body := "<html><body>"
	if n+1 < h.pages {
		body += fmt.Sprintf(`<a href="/p/%d">next</a>`, n+1)
	}
	body += "</body></html>"
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	h.mu.Lock()
	h.spans = append(h.spans, [2]time.Time{start, time.Now()})
	h.mu.Unlock()
	w.Write([]byte(body))
}

// gaps are the server-side gaps from the end of one response to the start of the
// next request.
func (h *slowHost) gaps() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := append([][2]time.Time(nil), h.spans...)
	sort.Slice(s, func(i, j int) bool { return s[i][0].Before(s[j][0]) })
	var out []time.Duration
	for i := 1; i < len(s); i++ {
		out = append(out, s[i][0].Sub(s[i-1][1]))
	}
	return out
}

// End to end: the server sees at least the host gap between the end of one response
// and the next request, and the gap follows its latency. A cap that spaced request
// starts would hand a slow server the next request right after it answered.
func TestHostGapAsTheServerSeesIt(t *testing.T) {
	t.Parallel()
	const took = 120 * time.Millisecond
	for _, c := range []struct {
		name     string
		hostRate float64
		polite   config.PolitenessOptions
		want     time.Duration
	}{
		{"host cap from the end of the response", 1 / 0.2, config.FixedPoliteness(), 200 * time.Millisecond},
		{"delay factor × latency", 0, config.PolitenessOptions{DelayFactor: 2}, 2 * took},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSlowHost(t, took, 6)
			o := testDefaults()
			o.Seeds = []string{"http://" + h.addr + "/p/0"}
			o.DB = filepath.Join(t.TempDir(), "crawl.db")
			o.AllowPrivate = []string{"127.0.0.0/8"}
			o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, time.Millisecond
			o.HostRate, o.Politeness = c.hostRate, c.polite
			e := startEngine(t, o)
			waitDone(t, e, 30*time.Second)
			gaps := h.gaps()
			if len(gaps) < 4 {
				t.Fatalf("only %d gaps", len(gaps))
			}
			for i, g := range gaps {
				// The server stamps its end just before the last bytes leave, the
				// client its end when they arrive: allow a few ms of transit.
				if g < c.want-5*time.Millisecond {
					t.Fatalf("gap %d: the server saw %v from the end of a response to the next request, want >= %v (all: %v)", i, g, c.want, gaps)
				}
			}
		})
	}
}
