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
// the home page and /s/N are plain. /a/2 asks its /done/2 of marker, another host
// (the host gate keeps the lane's requests and a render's to one host in one
// line), which answers it only once /s/6 was requested: that render cannot end
// before the lane fetched /s/6, unless the lane waits for it.
type slowRenderSite struct {
	mu     sync.Mutex
	log    map[string]time.Time // path -> when its request came
	marker string               // host:port of the marker server
	s6     chan struct{}        // closed at /s/6's request
}

// marker answers /done/2 once /s/6 was requested, or after a step's patience
// (a lane the render holds never gets there), and logs when it answered.
func (s *slowRenderSite) markerHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nAllow: /\n")
			return
		}
		select {
		case <-s.s6:
		case <-time.After(patience):
		case <-r.Context().Done():
		}
		s.mu.Lock()
		s.log["answered "+r.URL.Path] = time.Now()
		s.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		io.WriteString(w, "done")
	})
}

func (s *slowRenderSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if _, ok := s.log[r.URL.Path]; !ok {
		s.log[r.URL.Path] = time.Now()
		if r.URL.Path == "/s/6" {
			close(s.s6)
		}
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
		done := "/done/" + n
		if n == "2" {
			done = "http://" + s.marker + done
		}
		fmt.Fprintf(w, `<html><body><div id="root"></div><noscript>JavaScript needed</noscript><script>
setTimeout(function(){ fetch('%s').catch(function(){}).then(function(){
var root = document.getElementById('root'), a = document.createElement('a'), t = document.createElement('p');
a.href = '/r/%s'; a.textContent = 'more'; t.textContent = '%s'; root.appendChild(t); root.appendChild(a); }); }, 1000);</script></body></html>`,
			done, n, strings.Repeat("The story built by script, one sentence again. ", 10))
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
	mln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	site := &slowRenderSite{log: map[string]time.Time{}, marker: mln.Addr().String(), s6: make(chan struct{})}
	srv, msrv := &http.Server{Handler: site}, &http.Server{Handler: site.markerHandler()}
	go srv.Serve(ln)
	go msrv.Serve(mln)
	t.Cleanup(func() { srv.Close(); msrv.Close() })
	o := robotsOptions(t, "http://"+ln.Addr().String()+"/")
	o.Lanes.Max = 1
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	// The render, and its request for /done/2, outlast the marker's bound.
	o.Render.Timeout, o.Fetch.Timeout = patience+30*time.Second, patience+30*time.Second
	o.Render.AllowHosts = []string{"127.0.0.2"}
	e := startEngine(t, o)
	waitDone(t, e, 2*patience)
	e.Close()
	for i := 1; i <= 3; i++ {
		if _, ok := site.at(fmt.Sprintf("/r/%d", i)); !ok {
			t.Errorf("/r/%d never fetched: the rendered DOM of /a/%d was not read before the crawl ended", i, i)
		}
	}
	done2, ok1 := site.at("answered /done/2")
	s6, ok2 := site.at("/s/6")
	if !ok1 || !ok2 {
		t.Fatalf("/done/2 never answered or /s/6 never fetched; requests: %s", site.order())
	}
	// Judged by the order of events, not by a margin of the wall clock: the
	// render of /a/2 cannot end before /done/2 is answered, which waits for
	// /s/6; a lane held by that render fetches /s/6 only once it ended, after
	// the marker's bound.
	if !s6.Before(done2) {
		t.Errorf("/s/6 fetched %v after /done/2 was answered, at the marker's bound: the lane waited for the render of /a/2; requests: %s",
			s6.Sub(done2), site.order())
	}
}
