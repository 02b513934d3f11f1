package main

import (
	"os"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// TestMain runs up to 4 of the package's tests at once unless -test.parallel is
// given: the slow ones wait on a sandbox crawl running dry or on a go build, not
// on the package's own CPU.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, 4))
}
