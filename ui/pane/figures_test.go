package pane

import (
	"io"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/themes"
)

// A figure reads "label value" with or without colour; a bad one is styled apart,
// and a figures line keeps to its width by leaving out the figures that do not fit.
func TestFigureRendersLabelValueAndMarksTheBad(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	th, _ := themes.Lookup(themes.Default)
	st := themes.NewStyles(r, th)
	good, bad := Figure{Label: "errors", Value: "3"}.Render(st), Figure{Label: "errors", Value: "3", Bad: true}.Render(st)
	if ansi.Strip(good) != "errors 3" || ansi.Strip(bad) != "errors 3" {
		t.Errorf("figures read %q and %q, want errors 3", ansi.Strip(good), ansi.Strip(bad))
	}
	if good == bad {
		t.Error("a bad figure looks like a good one")
	}
	line := ansi.Strip(FigureLine(plainStyles(t), 31, "totals", []Figure{{Label: "a", Value: "1"}, {Label: "b", Value: "22222222222"}}))
	if line != "  totals      a 1              " {
		t.Errorf("figures line %q: want the first figure only, padded to 31 cells", line)
	}
}
