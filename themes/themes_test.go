package themes

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func renderer(p termenv.Profile) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(p)
	return r
}

func TestEveryThemeBuilds(t *testing.T) {
	want := []string{"dark", "high-contrast", "light", "mono"}
	if got := Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			th, ok := Lookup(name)
			if !ok || th.Name != name {
				t.Fatalf("Lookup(%q) = %v, %v", name, th.Name, ok)
			}
			s := NewStyles(renderer(termenv.TrueColor), th)
			if s.Plain {
				t.Fatal("a TrueColor renderer is not plain")
			}
			// The selected row must stand out from an ordinary one in every theme.
			if s.Selected.Render("x") == s.Row.Render("x") {
				t.Fatal("selection looks like an ordinary row")
			}
			for _, st := range []string{"RUNNING", "PAUSED"} {
				if s.State(st).Render(st) == st {
					t.Fatalf("state %s is not styled", st)
				}
			}
		})
	}
	if _, ok := Lookup("neon"); ok {
		t.Fatal("unknown theme found")
	}
}

func TestMonoUsesNoColour(t *testing.T) {
	th, _ := Lookup("mono")
	s := NewStyles(renderer(termenv.TrueColor), th)
	for _, out := range []string{s.Title.Render("t"), s.Selected.Render("t"), s.State("PAUSED").Render("t"), s.LaneStatus("paused").Render("t"), s.Level(3).Render("t")} {
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Fatalf("mono emitted a colour: %q", out)
		}
	}
	if !strings.Contains(s.Selected.Render("t"), "7") { // reverse video
		t.Fatalf("mono selection should use reverse video: %q", s.Selected.Render("t"))
	}
}

func TestASCIIProfileIsPlain(t *testing.T) {
	for _, name := range Names() {
		th, _ := Lookup(name)
		s := NewStyles(renderer(termenv.Ascii), th)
		if !s.Plain {
			t.Fatalf("%s: ASCII renderer should be plain", name)
		}
		for _, out := range []string{s.Title.Render("x"), s.Selected.Render("x"), s.Frozen.Render("x"), s.StatusError.Render("x")} {
			if out != "x" {
				t.Fatalf("%s: ASCII output carries escapes: %q", name, out)
			}
		}
	}
}

func TestLookupsOutOfRange(t *testing.T) {
	th, _ := Lookup(Default)
	s := NewStyles(renderer(termenv.ANSI256), th)
	if s.Level(-1).Render("a") != s.Level(0).Render("a") || s.Level(9).Render("a") != s.Level(3).Render("a") {
		t.Fatal("levels out of range should clamp")
	}
	if s.LaneStatus("unknown").Render("a") != s.Row.Render("a") {
		t.Fatal("unknown lane status should look like a row")
	}
	if s.State("WHATEVER").Render("a") != s.Value.Render("a") {
		t.Fatal("unknown state should look like a value")
	}
}
