package panes

import (
	"io"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// testCommon is the context of a console over a fresh fake crawl, rendering
// without colour at the fake crawl's clock.
func testCommon() *pane.Common {
	c := pane.NewCommon(fake.New(fake.Config{}))
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	t, _ := themes.Lookup(themes.Default)
	c.Styles = themes.NewStyles(r, t)
	c.Keys = pane.DefaultKeyMap()
	c.Now = func() time.Time { return fake.Epoch }
	c.Renderer = r
	return c
}
