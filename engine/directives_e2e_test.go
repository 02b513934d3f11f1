package engine

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Page-level directives end to end: meta robots, <meta
// name="crawlconsole">, X-Robots-Tag (general and agent-scoped), rel="nofollow", and a
// per-site override that turns them off with a warning at start.
func TestPageDirectivesEndToEnd(t *testing.T) {
	t.Parallel()
	no := false
	for _, c := range []struct {
		name     string
		override *config.EtiquetteSite
		stored   []string // of the pages that carry directives
		fetched  []string // pages reached only through such pages' links
		skipped  []string
		warn     bool
	}{
		{
			name:    "obeyed by default",
			stored:  []string{"/xrt-other"},
			fetched: []string{"/from-noindex", "/plain"},
			skipped: []string{"/from-nofollow", "/from-ours", "/from-xrt", "/hinted", "/private/x"},
		},
		{
			name:     "overridden for the site",
			override: &config.EtiquetteSite{Site: "127.0.0.1", Robots: &no, PageDirectives: &no, RelNofollow: &no},
			stored:   []string{"/noindex", "/xrt-noindex", "/xrt-other"},
			fetched:  []string{"/from-noindex", "/plain", "/from-nofollow", "/from-ours", "/from-xrt", "/hinted", "/private/x"},
			warn:     true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := newRobotsSite(t, "127.0.0.1")
			site.robots = func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n") }
			site.pages["/"] = `<a href="/noindex">1</a><a href="/nofollow">2</a><a href="/ours">3</a><a href="/xrt-noindex">4</a>` +
				`<a href="/xrt-nofollow">5</a><a href="/xrt-other">6</a><a rel="nofollow" href="/hinted">7</a><a href="/plain">8</a><a href="/private/x">9</a>`
			site.pages["/noindex"] = `<meta name="robots" content="noindex"><a href="/from-noindex">x</a>`
			site.pages["/nofollow"] = `<meta name="robots" content="nofollow"><a href="/from-nofollow">x</a>`
			site.pages["/ours"] = `<meta name="CrawlConsole" content="nofollow"><a href="/from-ours">x</a>`
			site.pages["/xrt-noindex"], site.header["/xrt-noindex"] = `<p>x</p>`, "noindex"
			site.pages["/xrt-nofollow"], site.header["/xrt-nofollow"] = `<a href="/from-xrt">x</a>`, "crawlconsole: nofollow"
			site.pages["/xrt-other"], site.header["/xrt-other"] = `<p>x</p>`, "otherbot: noindex"
			for _, p := range []string{"/from-noindex", "/from-nofollow", "/from-ours", "/from-xrt", "/hinted", "/plain", "/private/x"} {
				site.pages[p] = "<p>leaf</p>"
			}
			o := robotsOptions(t, "http://"+site.host+"/")
			if c.override != nil {
				o.Etiquette.Sites = []config.EtiquetteSite{*c.override}
			}
			e := startEngine(t, o)
			waitDone(t, e, 20*time.Second)
			e.Close()
			stored := storedPages(t, o.DB)
			for _, p := range []string{"/noindex", "/xrt-noindex", "/xrt-other"} {
				want := slices.Contains(c.stored, p)
				if got := slices.Contains(stored, "http://"+site.host+p); got != want {
					t.Errorf("%s stored=%v, want %v", p, got, want)
				}
			}
			for _, p := range c.fetched {
				if site.requested(p) != 1 {
					t.Errorf("%s fetched %d times, want once", p, site.requested(p))
				}
			}
			for _, p := range c.skipped {
				if site.requested(p) != 0 {
					t.Errorf("%s fetched %d times, want never", p, site.requested(p))
				}
			}
			st := e.Stats()
			wantNoindex := int64(2)
			if c.override != nil {
				wantNoindex = 0
			}
			if st.Skipped["noindex"] != wantNoindex || st.Errors["noindex"] != 0 {
				t.Errorf("noindex skipped %d (errors %d), want %d skipped and none among errors",
					st.Skipped["noindex"], st.Errors["noindex"], wantNoindex)
			}
			if wantNoindex > 0 {
				u, err := storedURL(t, o.DB, "http://"+site.host+"/noindex")
				if err != nil || u.ErrKind != "noindex" {
					t.Errorf("/noindex state %+v (%v), want ended with kind noindex", u, err)
				}
			}
			warned := false
			for _, ev := range e.EventsSince(0, 1<<20) {
				if ev.Level >= view.LevelWarn && strings.Contains(ev.Msg, "etiquette override for 127.0.0.1") && strings.Contains(ev.Msg, "robots.txt IGNORED") {
					warned = true
				}
			}
			if warned != c.warn {
				t.Errorf("start warning %v, want %v", warned, c.warn)
			}
		})
	}
}
