package engine

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs up to 8 of the package's tests at once unless -test.parallel is
// given. Its tests spend their time waiting on paced crawls (politeness pauses,
// heartbeats, sandbox clocks) and sockets, not on the CPU, so the default of
// GOMAXPROCS (2 on a small box) leaves the box idle for most of the run.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", "8"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
