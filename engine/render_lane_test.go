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

// slowRenderSite's /a/N pages, a second after load (a short timer, which the
// render waits for), ask for /done/N and only then build their body, which links
// to /r/N: the request for /done/N marks the render's second, within the render;
// the home page and /s/N are plain.
type slowRenderSite struct {
	mu  sync.Mutex
	log map[string]time.Time // path -> when its request came
}

func (s *slowRenderSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if _, ok := s.log[r.URL.Path]; !ok {
		s.log[r.URL.Path] = time.Now()
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	p := r.URL.Path
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
		n := strings.TrimPrefix(p, "/a/")
		fmt.Fprintf(w, `<html><body><div id="root"></div><noscript>JavaScript needed</noscript><script>
setTimeout(function(){ fetch('/done/%s').catch(function(){}).then(function(){
var root = document.getElementById('root'), a = document.createElement('a'), t = document.createElement('p');
a.href = '/r/%s'; a.textContent = 'more'; t.textContent = '%s'; root.appendChild(t); root.appendChild(a); }); }, 1000);</script></body></html>`,
			n, n, strings.Repeat("The story built by script, one sentence again. ", 10))
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
// next two, which take a second each to render, are fetched without waiting for
// those renders, and the crawl still reads every rendered DOM (the links only
// they have are fetched before the crawl ends).
func TestRenderDoesNotHoldTheLane(t *testing.T) {
	rendertest.NeedBrowser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := &slowRenderSite{log: map[string]time.Time{}}
	srv := &http.Server{Handler: site}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o := robotsOptions(t, "http://"+ln.Addr().String()+"/")
	o.Lanes.Max = 1
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	o.Render.Timeout = 15 * time.Second
	e := startEngine(t, o)
	waitDone(t, e, 60*time.Second)
	e.Close()
	for i := 1; i <= 3; i++ {
		if _, ok := site.at(fmt.Sprintf("/r/%d", i)); !ok {
			t.Errorf("/r/%d never fetched: the rendered DOM of /a/%d was not read before the crawl ended", i, i)
		}
	}
	done2, ok1 := site.at("/done/2")
	s6, ok2 := site.at("/s/6")
	if !ok1 || !ok2 {
		t.Fatalf("/done/2 or /s/6 never fetched; requests: %s", site.order())
	}
	// Judged by the order of the requests, not by a margin of the wall clock: a
	// lane held by the render of /a/2 fetches /s/6 only once that render ended,
	// after its script asked for /done/2 (the page's link to /r/2 waits for that
	// answer); beside the render, /s/6 comes seven fetches a few ms apart after
	// /a/2, while the render waits out its page's second.
	if !s6.Before(done2) {
		t.Errorf("/s/6 fetched %v after the render of /a/2 asked for /done/2: the lane waited for the render; requests: %s",
			s6.Sub(done2), site.order())
	}
}
