package engine

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
)

// A shell whose script draws a captcha is a block page: the block-page judge sees
// the rendered DOM, the page is refused with the rendered evidence stored, and its
// link to the site's content (there only to a visitor who passed) is not followed.
func TestRenderedCaptchaIsRefused(t *testing.T) {
	t.Parallel()
	rendertest.NeedBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("/api/gate", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"html": "<h1>Verify you are human</h1><div class=\"g-recaptcha\" data-sitekey=\"x\"></div><a href=\"/after-captcha\">go on</a>"}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body><div id="root"></div><noscript>JavaScript needed</noscript><script>
fetch('/api/gate').then(function(r){ return r.json(); }).then(function(g){ document.getElementById('root').innerHTML = g.html; });
</script></body></html>`)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	seed := "http://" + ln.Addr().String() + "/"
	o := robotsOptions(t, seed)
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	o.Render.Timeout = time.Minute         // a patience for a loaded box, not a property under test
	o.Render.YieldLimit = 20 * time.Second // likewise: a starved renderer is slow to answer, not a script that never yields
	o.Fetch.RefusalBackoff = 10 * time.Millisecond
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	rs := refusalsOf(t, o.DB, seed)
	if len(rs) != 1 || !strings.Contains(rs[0].Evidence, "rendered page") || !strings.Contains(strings.ToLower(rs[0].Evidence), "captcha") {
		t.Fatalf("refusals of the captcha shell: %+v; want one, its evidence from the rendered page", rs)
	}
	if n := e.Stats().PagesFetched; n != 1 {
		t.Errorf("%d pages fetched; want 1 (the captcha's link is not followed)", n)
	}
}
