package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// asCrawlconsoleEnv marks a process the tests run as crawlconsole, and every
// process it starts: such a process runs Main whatever name it was started under,
// so no process of a crawl the tests started can ever run the tests again (a
// console that ran the suite would start tmux crawls that run it too, without end).
const asCrawlconsoleEnv = "CRAWLCONSOLE_CLI_TEST_AS_MAIN"

// TestMain runs this binary as crawlconsole when it is started under that name
// (the tmux tests' link to it, see tmuxBinary) or with asCrawlconsoleEnv set: the
// binary the tests already built holds all of crawlconsole, where a `go build` of
// it took a link of its own.
// Otherwise it runs up to 8 of the package's parallel tests at once unless
// -test.parallel is given: each runs its own sandbox, store, ports and
// subprocesses, or waits on a crawl in tmux (at GOMAXPROCS, 2 on a small box, the
// package took 44-46 s at load 11-14, at 8 30-32 s, alternated); and it removes the
// link once every test has run.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "crawlconsole" || os.Getenv(asCrawlconsoleEnv) != "" {
		os.Setenv(asCrawlconsoleEnv, "1")
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := testmain.Run(m, 8)
	if e2eBin.dir != "" {
		os.RemoveAll(e2eBin.dir)
	}
	os.Exit(code)
}
