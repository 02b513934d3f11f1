package engine

import (
	"os"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
)

// TestMain runs up to 8 of the package's tests at once unless -test.parallel is
// given: they wait on paced crawls (politeness pauses, heartbeats, sandbox clocks)
// and sockets, not on the CPU.
func TestMain(m *testing.M) {
	code := testmain.Run(m, 8)
	rendertest.CloseShared()
	os.Exit(code)
}
