package engine

import (
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// robotsSite is a loopback site for the robots.txt end-to-end tests: it logs every
// path requested and serves pages from a table; robots.txt comes from a function.
type robotsSite struct {
	host   string // "127.0.0.x:port"
	mu     sync.Mutex
	log    []string
	robots func(w http.ResponseWriter, r *http.Request)
	pages  map[string]string // path -> HTML
	header map[string]string // path -> X-Robots-Tag
	onPage func(path string) // called before a page is served
}

func newRobotsSite(t *testing.T, ip string) *robotsSite {
	t.Helper()
	s := &robotsSite{pages: map[string]string{}, header: map[string]string{}}
	s.host = serveOn(t, ip, s)
	return s
}

func (s *robotsSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.URL.Path)
	robots, hook := s.robots, s.onPage
	body, ok := s.pages[r.URL.Path]
	xrt := s.header[r.URL.Path]
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		if robots == nil {
			http.NotFound(w, r)
			return
		}
		robots(w, r)
		return
	}
	if hook != nil {
		hook(r.URL.Path)
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	if xrt != "" {
		w.Header().Set("X-Robots-Tag", xrt)
	}
	fmt.Fprint(w, body)
}

func (s *robotsSite) requested(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return countOf(s.log, path)
}

func robotsOptions(t *testing.T, seed string) config.Options {
	o := testDefaults()
	o.Seeds = []string{seed}
	o.DB = filepath.Join(t.TempDir(), "c.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = false
	o.HostRate = 0
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	return o
}

// RFC 9309 §2.3.1.2: http://a/robots.txt redirected to another host is obeyed there
// (before, the cross-host redirect was read as "no robots.txt": allow all).
func TestRobotsRedirectedToAnotherHostIsObeyed(t *testing.T) {
	t.Parallel()
	www := newRobotsSite(t, "127.0.0.2")
	www.robots = func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}
	site := newRobotsSite(t, "127.0.0.1")
	site.robots = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+www.host+"/robots.txt", http.StatusMovedPermanently)
	}
	site.pages["/"] = `<a href="/private/secret">x</a><a href="/open">y</a>`
	site.pages["/open"] = `<p>open</p>`
	site.pages["/private/secret"] = `<p>secret</p>`
	e := startEngine(t, robotsOptions(t, "http://"+site.host+"/"))
	waitDone(t, e, 20*time.Second)
	e.Close()
	if site.requested("/open") != 1 || www.requested("/robots.txt") == 0 {
		t.Fatalf("/open fetched %d times, www robots.txt %d: the crawl did not run as expected", site.requested("/open"), www.requested("/robots.txt"))
	}
	if n := site.requested("/private/secret"); n != 0 {
		t.Fatalf("/private/secret fetched %d times: the redirected robots.txt was not obeyed", n)
	}
}

// RFC 9309 §2.3.1.4: a 429 on robots.txt disallows the site (not allow all) until robots.txt answers again; then the crawl goes on.
func TestRobots429BlocksUntilItRecovers(t *testing.T) {
	t.Parallel()
	site := newRobotsSite(t, "127.0.0.1")
	var tries atomic.Int64
	var recovered atomic.Bool
	site.robots = func(w http.ResponseWriter, r *http.Request) {
		if tries.Add(1) <= 2 {
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		recovered.Store(true)
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}
	var early atomic.Int64 // pages asked for while robots.txt still answered 429
	site.onPage = func(string) {
		if !recovered.Load() {
			early.Add(1)
		}
	}
	site.pages["/"] = `<a href="/private/x">x</a><a href="/open">y</a>`
	site.pages["/open"] = `<p>open</p>`
	o := robotsOptions(t, "http://"+site.host+"/")
	o.Etiquette.RobotsRetry = 20 * time.Millisecond
	e := startEngine(t, o)
	defer e.Close()
	waitFor(t, "the site crawled after robots.txt recovered", func() bool { return site.requested("/open") == 1 })
	if early.Load() != 0 {
		t.Fatalf("%d pages fetched while robots.txt answered 429", early.Load())
	}
	if tries.Load() < 3 || site.requested("/private/x") != 0 {
		t.Fatalf("robots.txt tried %d times, /private/x fetched %d times; want ≥3 and 0", tries.Load(), site.requested("/private/x"))
	}
	// The seed, deferred at each 429, counts once; it waits no more once fetched.
	st := e.Stats()
	if got := st.Errors["robots_unreachable"]; got != 1 {
		t.Fatalf("robots_unreachable %d, want 1: the one URL deferred, however often", got)
	}
	if w := st.RobotsWaiting; w == nil || *w != (view.RobotsWaiting{URLs: 0, Sites: 0, Waited: 1}) {
		t.Fatalf("robots_waiting %+v after robots.txt answered; want none waiting, 1 waited", w)
	}
}

// RFC 9309 §2.4: robots.txt is cached at most etiquette.robots_cache_for; a long crawl
// then fetches it again and obeys the new rules (engine clock injected).
func TestRobotsRulesChangeAfterCacheLifetime(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		advance    time.Duration
		wantB      int // fetches of /b: allowed only by the new rules
		wantC      int // fetches of /c: allowed only by the old rules
		wantRobots int
	}{
		{"within the lifetime the old rules stand", time.Hour, 0, 1, 1},
		{"after the lifetime the new rules apply", 25 * time.Hour, 1, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var skew atomic.Int64
			site := newRobotsSite(t, "127.0.0.1")
			var rules atomic.Value
			rules.Store("User-agent: *\nDisallow: /b\n")
			site.robots = func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, rules.Load().(string)) }
			site.pages["/"] = `<a href="/a">a</a>`
			site.pages["/a"] = `<a href="/b">b</a><a href="/c">c</a>`
			site.pages["/b"], site.pages["/c"] = "<p>b</p>", "<p>c</p>"
			site.onPage = func(p string) {
				if p == "/a" { // the site changes its rules while time passes
					rules.Store("User-agent: *\nDisallow: /c\n")
					skew.Add(int64(c.advance))
				}
			}
			o := robotsOptions(t, "http://"+site.host+"/")
			o.Lanes.Max = 1
			o.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
			e := startEngine(t, o)
			waitDone(t, e, 20*time.Second)
			e.Close()
			if b, cc, r := site.requested("/b"), site.requested("/c"), site.requested("/robots.txt"); b != c.wantB || cc != c.wantC || r != c.wantRobots {
				t.Fatalf("/b %d, /c %d, robots.txt %d; want %d, %d, %d", b, cc, r, c.wantB, c.wantC, c.wantRobots)
			}
		})
	}
}
