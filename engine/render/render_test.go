package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cookies"
)

const spaShell = `<!doctype html><html><head><title>SPA</title></head><body><div id="root"></div>
<noscript>Enable JavaScript</noscript><script src="/app.js"></script></body></html>`

const spaApp = `fetch('/api/list').then(r=>r.json()).then(a=>{
 const ul=document.createElement('ul');
 for(const x of a){const l=document.createElement('a');l.href=x;l.textContent=x;ul.appendChild(l);}
 document.getElementById('root').appendChild(ul);
 const img=document.createElement('img'); img.src='/pic.png'; document.body.appendChild(img);
 const s=document.createElement('script'); s.src='https://tracker.example/t.js'; document.body.appendChild(s);
});`

// testServer is a site whose pages build themselves; direct counts requests that
// did not come through the job's Fetch (the browser's own network).
type testServer struct {
	*httptest.Server
	direct, via, images, popups atomic.Int64
}

const viaUA = "render-test-client"

func newTestServer(t *testing.T) *testServer {
	ts := &testServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.UserAgent() == viaUA {
			ts.via.Add(1)
		} else {
			ts.direct.Add(1)
		}
		switch r.URL.Path {
		case "/app.js":
			w.Header().Set("Content-Type", "application/javascript")
			io.WriteString(w, spaApp)
		case "/api/list":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `["/a/1","/a/2","/a/3"]`)
		case "/pic.png":
			ts.images.Add(1)
		case "/popup":
			ts.popups.Add(1)
		case "/flood.js":
			w.Header().Set("Content-Type", "application/javascript")
			io.WriteString(w, `for(let i=0;i<10000;i++){fetch('/api/list?i='+i)}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// startBound bounds a test browser's start (Config.StartTimeout): far past a
// start's few seconds on a loaded box, short of go test's own limit.
const startBound = 2 * time.Minute

// job is a render of body as url's document, its requests sent with a plain client.
func (ts *testServer) job(path, body string, status int) Job {
	u := ts.URL + path
	return Job{Egress: "direct", Site: strings.TrimPrefix(ts.URL, "http://"), URL: u, Status: status,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body),
		Fetch: func(ctx context.Context, req *http.Request) (*Response, error) {
			req.Header.Set("User-Agent", viaUA)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
		}}
}

// testPool is a pool closed with the test. Its browser's start has a generous
// bound unless the test sets one: the package's tests start browsers side by
// side, beside other packages' tests, and a start slow on a loaded box is no
// failure of what a test judges.
func testPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = startBound
	}
	p, err := NewPool(cfg)
	if err != nil {
		t.Skip("render: no chromium-headless-shell; apt-get install chromium-headless-shell")
	}
	t.Cleanup(p.Close)
	return p
}

// The page's script builds its list from the JSON API: the rendered DOM has the
// links, every request went through the job's Fetch, the document was not fetched
// again, images and third parties were never asked for; a non-2xx shell renders.
func TestRenderSPAThroughTheCrawler(t *testing.T) {
	t.Parallel() // its own server; the shared browser
	ts := newTestServer(t)
	p := sharedPool(t)
	for _, status := range []int{200, 404} {
		out, err := p.Render(t.Context(), ts.job("/", spaShell, status))
		if err != nil {
			t.Fatalf("status %d: %v", status, err)
		}
		for _, l := range []string{`href="/a/1"`, `href="/a/3"`} {
			if !strings.Contains(string(out.DOM), l) {
				t.Fatalf("status %d: rendered DOM lacks %s:\n%s", status, l, out.DOM)
			}
		}
		if out.Requests != 2 || out.Blocked != 1 {
			t.Errorf("status %d: %d requests, %d blocked; want 2 (app.js, api) and 1 (the tracker; images are off)", status, out.Requests, out.Blocked)
		}
	}
	if ts.direct.Load() != 0 || ts.images.Load() != 0 {
		t.Errorf("server saw %d requests not from the crawler's client and %d image requests; want 0, 0", ts.direct.Load(), ts.images.Load())
	}
	if got := ts.via.Load(); got != 4 {
		t.Errorf("server saw %d requests through the crawler; want 4 (app.js and the API, twice; never the page)", got)
	}
}

// Hostile pages end in an error with the reason, the context is recycled, and the
// next render on the pool works.
func TestRenderHostilePagesAreCapped(t *testing.T) {
	t.Parallel() // its own server and pool; the shared browser
	ts := newTestServer(t)
	// A cap far past the yield watch: what ends the busy loop must be the watch,
	// which its reason says; with a 3 s cap and the watch at half of it, a loaded
	// box slow to start the page's script let the cap end it first ("did not
	// finish in 3s"), a cap doing the watch's work.
	const renderCap = 30 * time.Second
	p := inShared(t, Config{Timeout: renderCap, Settle: 200 * time.Millisecond, MaxRequests: 50})
	cases := []struct {
		name, body, want string
		yield            time.Duration // the render's yield watch
	}{
		// The busy loop's render alone has a watch of half a second (the default
		// is 3 s): it ends there either way, having burnt that much CPU. The page that navigates away keeps the
		// default, which a loaded box's slow answers need.
		{"busy loop", `<html><body><div id=root></div><script>while(true){}</script></body></html>`, "did not yield", 500 * time.Millisecond},
		{"navigates away", `<html><body><script>location.href='/elsewhere'</script></body></html>`, "navigated away", yieldLimit},
	}
	if _, err := p.Render(t.Context(), ts.job("/", spaShell, 200)); err != nil {
		t.Fatal(err) // the session's browser context and page are not a render's time
	}
	for _, c := range cases {
		p.cfg.YieldLimit = c.yield // no render in flight: the next one reads it
		start := time.Now()
		_, err := p.Render(t.Context(), ts.job("/"+strings.ReplaceAll(c.name, " ", ""), c.body, 200))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one saying %q", c.name, err, c.want)
		}
		if d := time.Since(start); d >= renderCap {
			t.Errorf("%s: took %v, the whole %v cap", c.name, d, renderCap)
		}
	}
	// The flood's loop of 10,000 fetch calls holds the page's main thread for a
	// while, longer than the yield watch allows on a loaded box: its render gives
	// the watch and the cap room, so that what ends it is the request cap, which
	// fires long before either.
	p.cfg.YieldLimit, p.cfg.Timeout = 30*time.Second, 60*time.Second
	if _, err := p.Render(t.Context(), ts.job("/10,000requests", `<html><body><script src="/flood.js"></script></body></html>`, 200)); err == nil || !strings.Contains(err.Error(), "more than 50 resources") {
		t.Errorf("10,000 requests: error %v; want one saying %q", err, "more than 50 resources")
	}
	p.cfg.YieldLimit, p.cfg.Timeout = yieldLimit, renderCap
	out, err := p.Render(t.Context(), ts.job("/", spaShell, 200))
	if err != nil || !strings.Contains(string(out.DOM), `href="/a/2"`) {
		t.Fatalf("render after the hostile pages: %v", err)
	}
	st := p.Stats()
	if st.Renders != 2 || st.Failed != 3 || st.Recycled < 3 {
		t.Errorf("stats %+v; want 2 renders, 3 failed, 3 recycled", st)
	}
	if ts.direct.Load() != 0 {
		t.Errorf("server saw %d requests not from the crawler's client", ts.direct.Load())
	}
	t.Log(st)
}

// A page that opens popups is read as itself, and none of its popups is loaded; a
// page that allocates until its renderer dies fails alone, within the cap, and the
// pool renders the next page in a fresh context.
func TestRenderContainsPopupsAndMemoryHogs(t *testing.T) {
	t.Parallel() // its own server and pool; the shared browser
	ts := newTestServer(t)
	// The hog's render alone has a 3 s cap, which it judges: the renders of
	// the plain pages before and after it have one far past what a loaded box
	// needs (at 3 s the render after the hog missed it at load 40, with busy
	// loops beside).
	const hogCap, plainCap = 3 * time.Second, time.Minute
	p := inShared(t, Config{Timeout: plainCap, Settle: 200 * time.Millisecond})
	popups := `<html><body><div id=root></div><script>for(let i=0;i<20;i++){window.open('/popup')}
document.getElementById('root').textContent='built after the popups';</script></body></html>`
	out, err := p.Render(t.Context(), ts.job("/opens", popups, 200))
	if err != nil || !strings.Contains(string(out.DOM), "built after the popups") {
		t.Fatalf("popup page: %v; want its own DOM read", err)
	}
	if n := ts.popups.Load(); n != 0 {
		t.Errorf("the popups were loaded %d times; want none", n)
	}
	hog := `<html><body><div id=root></div><script>const a=[];for(;;){a.push(new Array(1<<20).fill(1.5))}</script></body></html>`
	// The render ends at one of its own deadlines, and its error says which: the
	// yield watch's (the loop holds the page's main thread: "did not yield for
	// 1.5s: ended before the 3s cap") or the 3 s cap's (a renderer that died of the
	// hog cannot give its DOM at the cap).
	p.cfg.Timeout = hogCap // no render in flight: the next one reads it
	_, err = p.Render(t.Context(), ts.job("/hog", hog, 200))
	p.cfg.Timeout = plainCap
	switch {
	case err == nil:
		t.Error("a page that allocates without end rendered; want it failed")
	case !errors.Is(err, ErrNoYield) && !strings.Contains(err.Error(), "did not finish in 3s"):
		t.Errorf("the memory hog failed with %v; want it ended by the yield watch or the 3 s cap, saying so", err)
	}
	out, err = p.Render(t.Context(), ts.job("/", spaShell, 200))
	if err != nil || !strings.Contains(string(out.DOM), `href="/a/2"`) {
		t.Fatalf("render after the memory hog: %v", err)
	}
	if st := p.Stats(); st.Failed != 1 || st.Recycled < 1 {
		t.Errorf("stats %+v; want the hog alone failed and its context recycled", st)
	}
}

// A page that builds its content a moment after load (a short timer, no request)
// is read once it did, and a page that settles is read soon after: the settle
// waits for the page's own work, not a fixed quiet time.
func TestRenderWaitsForThePagesTimers(t *testing.T) {
	t.Parallel() // its own server; the shared browser
	ts := newTestServer(t)
	p := sharedPool(t)
	late := `<html><body><div id="root"></div><script>setTimeout(function(){
 var a = document.createElement('a'); a.href = '/late'; a.textContent = 'late'; document.getElementById('root').appendChild(a);
}, 700);</script></body></html>`
	out, err := p.Render(t.Context(), ts.job("/late-page", late, 200))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out.DOM), `href="/late"`) {
		t.Errorf("the DOM was read before the page's timer built it:\n%s", out.DOM)
	}
	if out.Took < 700*time.Millisecond {
		t.Errorf("render took %v, less than the page's 700 ms timer", out.Took)
	}
}

// A page's fetch resolves with the answer's headers; the body its script reads
// and builds from reaches it later, on a loaded box long after. The page is read
// once its script read the body and built from it, not when the fetch resolved.
// Here the body comes from a stream the page fills 1.5 s after its fetch (a timer
// too long for the settle to wait on by itself).
func TestRenderWaitsForTheBodyItsScriptReads(t *testing.T) {
	t.Parallel() // its own server; the shared browser
	ts := newTestServer(t)
	p := sharedPool(t)
	page := `<html><body><div id="root"></div><script>
fetch('/api/list').then(function(){
  var body = new ReadableStream({start: function(c){ setTimeout(function(){
    c.enqueue(new TextEncoder().encode('["/late/1"]')); c.close(); }, 1500); }});
  return new Response(body).json();
}).then(function(a){
  var l = document.createElement('a'); l.href = a[0]; l.textContent = 'late'; document.getElementById('root').appendChild(l);
});</script></body></html>`
	out, err := p.Render(t.Context(), ts.job("/late-body", page, 200))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out.DOM), `href="/late/1"`) {
		t.Errorf("the DOM was read before the page's script read its body and built from it (render took %v, note %q):\n%s", out.Took, out.Note, out.DOM)
	}
}

// Pages of one session render at once in pages of its one browser context: each
// of two pages asks for a resource that is answered only once both have asked,
// which two renders one after the other never do; and a cookie the first page's
// script set is the session's (the second page sees it), not another egress's.
func TestSessionRendersPagesAtOnce(t *testing.T) {
	t.Parallel() // its own server and pool; the shared browser
	ts := newTestServer(t)
	// A cap well past what a loaded box needs: the renders wait on each other,
	// and one after the other the first would wait here for all of it. The yield
	// watch's limit as long as it may be (half the cap): this test judges neither
	// it nor the speed of a browser starved of CPU, and at its 3 s default one
	// probe the page's renderer was slow to answer ended a render.
	p := inShared(t, Config{Timeout: time.Minute, YieldLimit: 30 * time.Second})
	if _, err := p.Render(t.Context(), ts.job("/warm", `<html><body>warm</body></html>`, 200)); err != nil {
		t.Fatal(err) // the session's browser context and page are not a render's time
	}
	var asked atomic.Int32
	both := make(chan struct{})
	together := func(j Job) Job {
		fetch := j.Fetch
		j.Fetch = func(ctx context.Context, req *http.Request) (*Response, error) {
			if req.URL.Path != "/both" {
				return fetch(ctx, req)
			}
			if asked.Add(1) == 2 {
				close(both)
			}
			select {
			case <-both:
				return &Response{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("built")}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return j
	}
	page := `<html><body><div id="root"></div><script>document.cookie = 'seen=1; path=/';
fetch('/both').then(function(r){ return r.text(); }).then(function(t){ document.getElementById('root').textContent = t; });</script></body></html>`
	errs := make(chan error, 2)
	for _, path := range []string{"/one", "/two"} {
		go func() {
			out, err := p.Render(t.Context(), together(ts.job(path, page, 200)))
			if err == nil && !strings.Contains(string(out.DOM), "built") {
				err = fmt.Errorf("%s: the DOM was read before the page built it (%d of the two pages asked for the resource both wait on: the renders ran one after the other)", path, asked.Load())
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	read := `<html><body><script>document.body.setAttribute('data-cookie', document.cookie || 'none');</script></body></html>`
	out, err := p.Render(t.Context(), ts.job("/read", read, 200))
	if err != nil || !strings.Contains(string(out.DOM), `data-cookie="seen=1"`) {
		t.Errorf("the session's next page does not see the cookie its script set (%v):\n%s", err, domOf(out))
	}
	other := ts.job("/read", read, 200)
	other.Egress = "another"
	out, err = p.Render(t.Context(), other)
	if err != nil || !strings.Contains(string(out.DOM), `data-cookie="none"`) {
		t.Errorf("another egress's session sees this one's cookie (%v):\n%s", err, domOf(out))
	}
	if st := p.Stats(); st.Sessions != 2 {
		t.Errorf("stats %+v; want 2 sessions (direct and another)", st)
	}
}

func domOf(out *Rendered) string {
	if out == nil {
		return "(no render)"
	}
	return string(out.DOM)
}

// The session's cookie jar and the page's script share the session's cookies: the
// script sees the jar's (set by plain fetches, which the browser never saw), and
// what it sets or deletes is in the jar after the render, for the next plain fetch.
func TestRenderSharesTheSessionsCookieJar(t *testing.T) {
	t.Parallel() // its own server; the shared browser
	ts := newTestServer(t)
	p := sharedPool(t)
	jar := cookies.New(cookies.Limits{}, nil)
	u, _ := url.Parse(ts.URL + "/")
	jar.SetCookies(u, []*http.Cookie{{Name: "visitor", Value: "v1"}, {Name: "old", Value: "1"}})
	page := `<html><body><script>document.body.setAttribute('data-seen', document.cookie);
document.cookie = 'consent=yes; path=/'; document.cookie = 'old=; max-age=0; path=/';</script></body></html>`
	j := ts.job("/cookie", page, 200)
	j.Jar = jar
	out, err := p.Render(t.Context(), j)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out.DOM), "visitor=v1") {
		t.Errorf("the page's script did not see the jar's cookie visitor=v1:\n%s", out.DOM)
	}
	got := map[string]string{}
	for _, c := range jar.Cookies(u) {
		got[c.Name] = c.Value
	}
	if got["consent"] != "yes" || got["visitor"] != "v1" || got["old"] != "" {
		t.Errorf("jar after the render: %v; want consent=yes (set by the script), visitor=v1 kept, old gone (deleted by the script)", got)
	}
}
