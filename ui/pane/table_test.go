package pane

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A detail line is built of styled parts; in a colour terminal their escape
// sequences took width, and at 160 columns the line stopped after the keywords
// (feeds and sitemaps never showed). Fit measures and cuts it by what shows.
func TestStyledLineFitsByWhatShows(t *testing.T) {
	bold := func(s string) string { return "\x1b[1m" + s + "\x1b[0m" }
	line := bold("▸ capital") + "  " + bold("entry") + " http://www.capital-digest.com/  " + bold("feeds") + " -  " + bold("sitemaps") + " -"
	shown := ansi.Strip(line)
	got := Fit(line, 120)
	if w := ansi.StringWidth(got); w != 120 {
		t.Errorf("fit to 120 cells gives %d cells", w)
	}
	if !strings.Contains(ansi.Strip(got), shown) {
		t.Errorf("fit to 120 cells cut a %d-cell line: %q", ansi.StringWidth(line), ansi.Strip(got))
	}
	cut := Fit(line, 30)
	if w := ansi.StringWidth(cut); w != 30 || !strings.HasSuffix(ansi.Strip(cut), "…") {
		t.Errorf("fit to 30 cells gives %q (%d cells), want 30 ending in …", ansi.Strip(cut), w)
	}
}
