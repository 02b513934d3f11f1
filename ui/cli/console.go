package cli

import (
	"context"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/ui"
)

// console runs the operator console over eng until the operator quits, ctx ends, or
// (with --until-idle) the crawl runs dry.
func console(ctx context.Context, eng *engine.Engine, rc runConfig, idle <-chan struct{}) error {
	if idle != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-idle:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ui.Run(ctx, eng, ui.Options{Theme: rc.theme, Mouse: rc.mouse, Title: "crawlconsole " + rc.title})
}

// onTerminal reports whether stdin and stdout are a terminal, as the console needs
// (a variable: tests run where they may or may not be).
var onTerminal = func() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}
