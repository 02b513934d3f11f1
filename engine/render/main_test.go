package render

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// TestMain runs up to 4 of the package's tests at once unless -test.parallel is
// given: each renders in the shared browser (sharedBrowser) or starts its own,
// and then mostly waits on it (a page's timers, a render's cap, the yield watch,
// a browser that does not answer). More at once than that starts more browsers
// together than two cores start in time with other packages' tests beside them.
func TestMain(m *testing.M) {
	code := testmain.Run(m, 4)
	shared.close()
	os.Exit(code)
}

// shared is the browser of the tests whose assertions need pages rendered and
// nothing of a browser of their own: no process killed, stopped, restarted or
// measured. Each test's pool (inShared) makes browser contexts of its own in it
// (Config.Shared: sessions, cookies and caches apart, disposed at the pool's
// Close) and has its own settings and Stats; one start and one stop of a
// browser, a second or two of CPU each, serve them all.
var shared sharedBrowser

type sharedBrowser struct {
	once    sync.Once
	browser context.Context
	stop    func()
	err     error
}

// inShared is a pool of cfg rendering in the shared browser, started by the
// first test that asks, closed with the test.
func inShared(t *testing.T, cfg Config) *Pool {
	t.Helper()
	shared.once.Do(func() {
		shared.browser, shared.stop, shared.err = StartBrowser("", startBound)
	})
	if shared.err != nil {
		if _, err := Find(""); err != nil {
			t.Skip("render: no chromium-headless-shell; apt-get install chromium-headless-shell")
		}
		t.Fatal(shared.err)
	}
	cfg.Shared = shared.browser
	return testPool(t, cfg)
}

// sharedPool is a pool in the shared browser with the settings of the tests
// that judge a render's result, not its caps.
func sharedPool(t *testing.T) *Pool {
	t.Helper()
	return inShared(t, Config{Timeout: 8 * time.Second, Settle: 200 * time.Millisecond})
}

func (s *sharedBrowser) close() {
	if s.stop != nil {
		s.stop()
	}
}
