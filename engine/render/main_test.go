package render

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// TestMain runs up to 4 of the package's tests at once unless -test.parallel is
// given: each starts its own browser (or shares one, sharedPool) and then mostly
// waits on it (a page's timers, a render's cap, the yield watch, a browser that
// does not answer). More at once than that starts more browsers together than
// two cores start in time with other packages' tests beside them.
func TestMain(m *testing.M) {
	code := testmain.Run(m, 4)
	shared.close()
	os.Exit(code)
}

// shared is the pool of the tests whose assertions need a browser that renders
// and nothing of its own: no figure of Stats, no setting of theirs, no browser
// broken on purpose. Each renders its own server's pages (its own site: a
// session of its own), so none sees another's pages or cookies; one start and
// one stop of a browser serve them all.
var shared sharedBrowser

type sharedBrowser struct {
	once sync.Once
	p    *Pool
	err  error
}

// sharedPool is the package's shared pool, started by the first test that asks.
func sharedPool(t *testing.T) *Pool {
	t.Helper()
	shared.once.Do(func() {
		shared.p, shared.err = NewPool(Config{Timeout: 8 * time.Second, Settle: 200 * time.Millisecond, StartTimeout: startBound})
	})
	if shared.err != nil {
		t.Skip("render: no chromium-headless-shell; apt-get install chromium-headless-shell")
	}
	return shared.p
}

func (s *sharedBrowser) close() {
	if s.p != nil {
		s.p.Close()
	}
}
