// Package testmain holds the TestMain of packages whose tests spend their time
// waiting (on paced crawls, politeness pauses, heartbeats, subprocesses and
// sockets), not on the CPU.
package testmain

import (
	"flag"
	"strconv"
	"testing"
)

// Run runs m's tests, up to n of those that call t.Parallel at once unless
// -test.parallel is given, and returns the exit code for os.Exit. The default of
// GOMAXPROCS (2 on a small box) leaves such a package's tests queued behind two
// that sleep, with the CPU idle.
func Run(m *testing.M, n int) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
			panic(err)
		}
	}
	return m.Run()
}
