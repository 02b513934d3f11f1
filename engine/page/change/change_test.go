package change

import (
	"strings"
	"testing"
)

// Summarize names the replaced and added paragraphs and a new headline.
func TestSummarize(t *testing.T) {
	before := "Flood report\nFirst paragraph.\nSecond paragraph.\nThird paragraph."
	after := "Council delays flood report\nFirst paragraph.\nSecond paragraph, rewritten.\nThird paragraph.\nAn update at the end."
	got := Summarize(before, after)
	for _, want := range []string{`headline: "Flood report" -> "Council delays flood report"`, "1 replaced, 1 added, 0 removed",
		"- Second paragraph.", "+ Second paragraph, rewritten.", "+ An update at the end."} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if got := Summarize("", after); got != "no change seen yet" {
		t.Errorf("no previous text: %q", got)
	}
}
