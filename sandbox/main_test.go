package sandbox

import (
	"os"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// TestMain runs up to 8 of the package's parallel tests at once unless
// -test.parallel is given: each starts its own sandbox on its own ports and
// mostly waits on the latencies, pauses and windows it configured, not on the CPU.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, 8))
}
