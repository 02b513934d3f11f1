package engine

import (
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
)

// stallSite's home page builds a link to /a/1 with script, then asks /api/slow
// 20 times at once, which answers only once the client gives up: the render ends
// at its time cap with a request still out and the others waiting for the host.
type stallSite struct {
	mu                  sync.Mutex
	slow                int
	slowEnded, articled time.Time
}

func (s *stallSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><html><body><div id="root"></div><noscript>Turn on JavaScript</noscript><script>
var a = document.createElement('a'); a.href = '/a/1'; a.textContent = 'story'; document.getElementById('root').appendChild(a);
for (var i = 0; i < 20; i++) { fetch('/api/slow?i=' + i); }</script></body></html>`)
	case "/api/slow":
		s.mu.Lock()
		s.slow++
		s.mu.Unlock()
		<-r.Context().Done()
		s.mu.Lock()
		s.slowEnded = time.Now()
		s.mu.Unlock()
	case "/a/1":
		s.mu.Lock()
		s.articled = time.Now()
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body><article><h1>Story</h1><p>Plain text.</p></article></body></html>`)
	default:
		http.NotFound(w, r)
	}
}

// A page's flood of requests to its host goes through the host's politeness, one
// at a time, and holds the host no longer than the page's time cap: the request
// still out when the cap ends the render is ended by the crawler, not by the
// host, which is not backed off as for a timeout of its own (a back-off of an
// hour here), so the page's links are fetched at the host's usual gap.
func TestRenderCapIsNoTimeoutOfTheHost(t *testing.T) {
	t.Parallel()
	rendertest.NeedBrowser(t)
	// The cap ends the render; it must leave the box time to load the page and send
	// its request, which an idle box does in well under a second. A render that
	// ended before the request reached the host shows nothing of the property:
	// that crawl is run again with the longer cap a loaded box needs.
	for _, renderCap := range []time.Duration{4 * time.Second, 15 * time.Second} {
		if renderCapCrawl(t, renderCap) {
			return
		}
		t.Logf("the render's %v cap ended before the page's request reached the host (a loaded box): crawled again with a longer cap", renderCap)
	}
	t.Fatal("the page's request never reached the host within the render's cap")
}

// renderCapCrawl crawls a stallSite with the given render cap and judges it; false
// says the crawl showed nothing: the page's request never reached the host before
// the cap.
func renderCapCrawl(t *testing.T, renderCap time.Duration) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := &stallSite{}
	srv := &http.Server{Handler: site}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o := robotsOptions(t, "http://"+ln.Addr().String()+"/")
	o.Lanes.Max = 1
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	o.Render.Sites = []config.RenderSite{{Host: "127.0.0.1", Mode: "always"}}
	// The yield watch gets half the cap (a loaded box's first script), and the
	// fetch's own limit is far past the cap.
	o.Render.Timeout = renderCap
	o.Render.YieldLimit = renderCap / 2
	o.Fetch.Timeout = 5 * time.Minute
	// A back-off of the host would hold /a/1 an hour: the crawl would not end
	// within waitDone's patience, which a loaded box's usual gap never nears.
	o.Politeness.BackoffMin, o.Politeness.BackoffMax = time.Hour, 2*time.Hour
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	site.mu.Lock()
	defer site.mu.Unlock()
	if site.slow == 0 {
		return false
	}
	if site.slow != 1 || site.slowEnded.IsZero() {
		t.Fatalf("the server saw /api/slow %d times, the last ended %v; want once (the page's 20 at once wait for the host, one at a time), ended by the render's cap", site.slow, site.slowEnded)
	}
	if site.articled.IsZero() {
		t.Fatal("/a/1, linked from the rendered DOM, was not fetched")
	}
	if d := site.articled.Sub(site.slowEnded); d >= o.Politeness.BackoffMin {
		t.Errorf("/a/1 fetched %v after the render's cap ended the page's request; want at the host's usual gap, not after a back-off of an hour", d.Round(time.Millisecond))
	}
	return true
}
