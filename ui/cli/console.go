package cli

import (
	"context"

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
