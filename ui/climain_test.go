package ui_test

import (
	"github.com/crawlconsole/crawlconsole/ui"
	"github.com/crawlconsole/crawlconsole/ui/cli"
)

// The tmux tests run this test binary as crawlconsole: it needs crawlconsole's
// main, which package ui's own tests cannot import.
func init() { ui.CLIMain = cli.Main }
