package engine

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
)

// spaSite is a site whose home page builds its article list with script from a
// JSON API; it logs each request with its User-Agent.
type spaSite struct {
	host string
	mu   sync.Mutex
	log  []string // "path UA"
}

func (s *spaSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.URL.Path+" "+r.UserAgent())
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/robots.txt":
		io.WriteString(w, "User-agent: *\nDisallow: /api/private\n")
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><html><body><div id="root"></div><noscript>Turn on JavaScript</noscript><script src="/app.js"></script></body></html>`)
	case r.URL.Path == "/app.js":
		w.Header().Set("Content-Type", "application/javascript")
		io.WriteString(w, `fetch('/api/private').catch(()=>{});
fetch('/api/list').then(r=>r.json()).then(a=>{const root=document.getElementById('root');
for(const x of a){const l=document.createElement('a');l.href=x;l.textContent='story '+x;root.appendChild(l);}});`)
	case r.URL.Path == "/api/list":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `["/a/1","/a/2","/a/3"]`)
	case strings.HasPrefix(r.URL.Path, "/a/"):
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><article><h1>Story %s</h1><p>%s</p></article></body></html>`, r.URL.Path, strings.Repeat("Plain text of a story. ", 40))
	default:
		http.NotFound(w, r)
	}
}

func (s *spaSite) requests(path string) (n int, agents []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.log {
		p, ua, _ := strings.Cut(l, " ")
		if p == path {
			n++
			agents = append(agents, ua)
		}
	}
	return n, agents
}

// A home page whose links are built by script: the crawl renders it, follows the
// links only the rendered DOM has, sends the page's own requests as the crawler
// (its User-Agent, robots.txt obeyed) and fetches the page itself once.
func TestCrawlRendersScriptBuiltPage(t *testing.T) {
	t.Parallel()
	rendertest.NeedBrowser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := &spaSite{host: ln.Addr().String()}
	srv := &http.Server{Handler: site}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o := robotsOptions(t, "http://"+site.host+"/")
	o.UserAgent = "crawlconsole-test/1 (+render)"
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	o.Render.Timeout = time.Minute         // a patience for a loaded box, not a property under test
	o.Render.YieldLimit = 20 * time.Second // likewise: a starved renderer is slow to answer, not a script that never yields
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	for _, p := range []string{"/a/1", "/a/2", "/a/3"} {
		if n, _ := site.requests(p); n != 1 {
			t.Errorf("%s fetched %d times; want 1 (its link exists only in the rendered DOM)", p, n)
		}
	}
	if n, _ := site.requests("/"); n != 1 {
		t.Errorf("home page fetched %d times; want 1 (the render uses the plain fetch's body)", n)
	}
	if n, _ := site.requests("/api/private"); n != 0 {
		t.Errorf("/api/private (disallowed by robots.txt) requested %d times by the page", n)
	}
	for _, p := range []string{"/app.js", "/api/list"} {
		n, agents := site.requests(p)
		if n != 1 || agents[0] != o.UserAgent {
			t.Errorf("%s requested %d times with agents %q; want once, as the crawler", p, n, agents)
		}
	}
	if r := e.Snapshot().Hosts.Render["127.0.0.1"]; r.Renders != 1 || r.Seconds <= 0 {
		t.Errorf("the Hosts view's renders of 127.0.0.1: %+v; want 1 render and its time", r)
	}
	hs := e.Renderer().HostFigures("127.0.0.1")
	if hs.Renders != 1 || hs.Requests != 3 || !hs.Dynamic {
		t.Errorf("host figures %+v; want 1 render with 3 requests (app.js, the API, the private call robots.txt refused), judged dynamic", hs)
	}
	// The next run on this database knows the home page's section needs
	// rendering before it sees a page: no learning render again.
	again, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if known, dynamic := again.Renderer().Decider.Verdict("127.0.0.1", "http://"+site.host+"/"); !known || !dynamic {
		t.Errorf("restarted on the store: the home section's verdict known=%v dynamic=%v; want it kept as needing rendering", known, dynamic)
	}
}
