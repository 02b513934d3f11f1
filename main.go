// Command crawlconsole is a polite, fast web crawler steered from a terminal: an
// embedded crawl engine, a SQLite store and a Bubble Tea operator console in one binary.
package main

import (
	"os"

	"github.com/crawlconsole/crawlconsole/ui/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
