package cli

import (
	"os"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// TestMain runs up to 8 of the package's parallel tests at once unless
// -test.parallel is given: each runs its own sandbox, store, ports and
// subprocesses, and waits on them (at GOMAXPROCS, 2 on a small box, the package
// took 44-46 s at load 11-14, at 8 30-32 s, alternated).
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, 8))
}
