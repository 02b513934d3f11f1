package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// A consent flow across a plain fetch, a render and a plain fetch again: the
// script of the rendered page sees the cookie the plain fetch got, sets its own,
// and its API call gets one by Set-Cookie; the next plain fetch of the site carries
// all of them, so the site answers its article and not its consent wall.
func TestRenderCookiesJoinTheSession(t *testing.T) {
	t.Parallel()
	web := rendertest.SPAWeb(t, 2)
	o := robotsOptions(t, web.URL(sandbox.SPASite)+"c/welcome")
	o.Lanes.Max = 1
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	o.Render.Timeout = time.Minute         // a patience for a loaded box, not a property under test
	o.Render.YieldLimit = 20 * time.Second // likewise: a starved renderer is slow to answer, not a script that never yields
	// Likewise: a browser that has not started in render.start_timeout (30 s) keeps
	// /c/consent as fetched, and /c/gated, a link its script builds, is never asked
	// for; the engine package starts several browsers at once.
	o.Render.StartTimeout = 2 * time.Minute
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	var gated []string
	paths := map[string]int{}
	for _, r := range web.Log() {
		if r.Host != web.Host(sandbox.SPASite) {
			continue
		}
		paths[r.Path]++
		if r.Path == "/c/gated" {
			gated = append(gated, r.Cookie)
		}
	}
	if len(gated) != 1 || !strings.Contains(gated[0], "consent=yes") || !strings.Contains(gated[0], "api=1") || !strings.Contains(gated[0], "visitor=v1") {
		t.Errorf("/c/gated asked with cookies %q; want once, with visitor=v1 (plain fetch), consent=yes (the script) and api=1 (the script's API call)", gated)
	}
	if paths["/c/member"] != 1 || paths["/c/wall"] != 0 {
		t.Errorf("fetched /c/member %d times and /c/wall %d times; want 1 and 0 (the site answered its article, not its consent wall): %v", paths["/c/member"], paths["/c/wall"], paths)
	}
}
