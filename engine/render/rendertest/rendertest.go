// Package rendertest has helpers for tests that render pages in a headless browser:
// the engine's own tests and those of the packages above it.
package rendertest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

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

// shared is the browser of SharedBrowser, started by the first test that asks.
var shared struct {
	once    sync.Once
	browser context.Context
	stop    func()
	err     error
}

// SharedBrowser returns a browser the package's tests render in together
// (render.Config.Shared): each crawl's pool makes browser contexts of its own in
// it (sessions, cookies, caches apart) and disposes them at its close, and a
// browser's start (a second or two of CPU each) is paid once. The package's
// TestMain calls CloseShared after its tests. The test is skipped where no
// headless browser is installed.
func SharedBrowser(t testing.TB) context.Context {
	t.Helper()
	NeedBrowser(t)
	shared.once.Do(func() {
		// Patience for a loaded box, where a start takes far longer than the second
		// or two it takes idle.
		shared.browser, shared.stop, shared.err = render.StartBrowser("", 2*time.Minute)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.browser
}

// CloseShared ends SharedBrowser's browser, if a test started it.
func CloseShared() {
	if shared.stop != nil {
		shared.stop()
	}
}
