package engine

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
)

// slowRenderSite's /a/N pages build their body once the page's script has its
// /gate/N answer, and only then link to /r/N; the home page and /s/N are plain.
// /a/1's gate answers at once (that page teaches that /a/ needs rendering); the
// others' only once /s/6 was requested, so their renders last until the lane has
// fetched the plain pages queued behind them (or, should the lane wait for them,
// until gateGuard, counted in heldTooLong).
type slowRenderSite struct {
	mu          sync.Mutex
	log         map[string]time.Time // path -> when its request came
	s6          chan struct{}        // closed when /s/6 is requested
	heldTooLong int                  // gates answered at gateGuard, /s/6 not requested
}

// gateGuard bounds a gate's wait for /s/6, so a lane that waits for the renders
// fails the test instead of hanging it.
const gateGuard = 10 * time.Second

func newSlowRenderSite() *slowRenderSite {
	return &slowRenderSite{log: map[string]time.Time{}, s6: make(chan struct{})}
}

func (s *slowRenderSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.mu.Lock()
	if _, ok := s.log[p]; !ok {
		s.log[p] = time.Now()
		if p == "/s/6" {
			close(s.s6)
		}
	}
	s.mu.Unlock()
	if strings.HasPrefix(p, "/gate/") {
		if p != "/gate/1" {
			select {
			case <-s.s6:
			case <-time.After(gateGuard):
				s.mu.Lock()
				s.heldTooLong++
				s.mu.Unlock()
			case <-r.Context().Done():
			}
		}
		io.WriteString(w, "ok")
		return
	}
	w.Header().Set("Content-Type", "text/html")
	switch {
	case p == "/robots.txt":
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	case p == "/":
		io.WriteString(w, `<html><body><a href="/a/1">1</a><a href="/a/2">2</a><a href="/a/3">3</a>`)
		for i := 1; i <= 6; i++ {
			fmt.Fprintf(w, `<a href="/s/%d">s%d</a>`, i, i)
		}
		io.WriteString(w, `</body></html>`)
	case strings.HasPrefix(p, "/a/"):
		fmt.Fprintf(w, `<html><body><div id="root"></div><noscript>JavaScript needed</noscript><script>
fetch('/gate/%[1]s').then(function(){ var root = document.getElementById('root'), a = document.createElement('a'), t = document.createElement('p');
a.href = '/r/%[1]s'; a.textContent = 'more'; t.textContent = '%[2]s'; root.appendChild(t); root.appendChild(a); });</script></body></html>`,
			strings.TrimPrefix(p, "/a/"), strings.Repeat("The story built by script, one sentence again. ", 10))
	default:
		fmt.Fprintf(w, `<html><body><p>%s</p></body></html>`, p)
	}
}

// order is the paths requested, in order, with the time since the first.
func (s *slowRenderSite) order() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	type req struct {
		path string
		at   time.Time
	}
	var rs []req
	for p, at := range s.log {
		rs = append(rs, req{p, at})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].at.Before(rs[j].at) })
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s@%dms ", r.path, r.at.Sub(rs[0].at).Milliseconds())
	}
	return b.String()
}

func (s *slowRenderSite) at(path string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.log[path]
	return t, ok
}

// A page's render runs beside its lane's next fetches: once the first page of
// /a/ taught that the section needs rendering, the plain pages queued behind the
// next two, whose renders last until the last plain page is requested, are
// fetched without waiting for those renders, and the crawl still reads every
// rendered DOM (the links only they have are fetched before the crawl ends).
func TestRenderDoesNotHoldTheLane(t *testing.T) {
	rendertest.NeedBrowser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := newSlowRenderSite()
	srv := &http.Server{Handler: site}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o := robotsOptions(t, "http://"+ln.Addr().String()+"/")
	o.Lanes.Max = 1
	o.Render.Timeout = 15 * time.Second
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	e.Close()
	for i := 1; i <= 3; i++ {
		if _, ok := site.at(fmt.Sprintf("/r/%d", i)); !ok {
			t.Errorf("/r/%d never fetched: the rendered DOM of /a/%d was not read before the crawl ended", i, i)
		}
	}
	if _, ok := site.at("/s/6"); !ok {
		t.Fatalf("/s/6 never fetched; requests: %s", site.order())
	}
	// The renders of /a/2 and /a/3 last until /s/6 is requested: a lane held by
	// them would reach /s/6 only after their gates gave up.
	site.mu.Lock()
	held := site.heldTooLong
	site.mu.Unlock()
	if held > 0 {
		t.Errorf("%d renders waited %v for /s/6: the lane waited for the renders; requests: %s", held, gateGuard, site.order())
	}
}
