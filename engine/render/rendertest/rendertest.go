// Package rendertest has helpers for tests that render pages in a headless browser:
// the engine's own tests and those of the packages above it.
package rendertest

import (
	"slices"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// NeedBrowser skips the test where no headless browser is installed.
func NeedBrowser(t testing.TB) {
	t.Helper()
	if _, err := render.Find(""); err != nil {
		t.Skip("render: no chromium-headless-shell; apt-get install chromium-headless-shell")
	}
}

// SPAWeb starts the SPA sandbox (pages built by script, sandbox.StartSPA) on five
// loopback hosts with articles articles, closed at the test's end. The test is
// skipped where no headless browser is installed.
func SPAWeb(t testing.TB, articles int) *sandbox.SPA {
	t.Helper()
	NeedBrowser(t)
	web, err := sandbox.StartSPA(slices.Repeat([]string{"127.0.0.1"}, 5), articles)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(web.Close)
	return web
}
