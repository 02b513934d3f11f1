package ui

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// keyShown is how the ? overlay and the README write a key the console matches.
func keyShown(k string) string {
	switch k {
	case "up":
		return "↑"
	case "down":
		return "↓"
	case "left":
		return "←"
	case "right":
		return "→"
	case "pgdown":
		return "pgdn"
	case " ":
		return "space"
	}
	if len(k) == 1 && '1' <= k[0] && k[0] <= '9' {
		return "1-9"
	}
	return k
}

// keyMapBindings is every binding of km, by its field name.
func keyMapBindings(km *pane.KeyMap) map[string]key.Binding {
	out := map[string]key.Binding{}
	v := reflect.ValueOf(km).Elem()
	for i := 0; i < v.NumField(); i++ {
		if b, ok := v.Field(i).Interface().(key.Binding); ok {
			out[v.Type().Field(i).Name] = b
		}
	}
	return out
}

// Every key the console answers is named where its binding is explained: an
// operator who pages with ctrl+f, or quits with ctrl+c, finds it in the ? overlay
// (which prints the binding's help), not only pgdn and q.
func TestEveryKeyIsNamedInItsHelp(t *testing.T) {
	for name, b := range keyMapBindings(pane.DefaultKeyMap()) {
		shown := []string{b.Help().Key} // "/" is a key itself
		if b.Help().Key != "/" {
			shown = strings.Split(b.Help().Key, "/")
		}
		for _, k := range b.Keys() {
			if !slices.Contains(shown, keyShown(k)) {
				t.Errorf("%s answers %q, but its help names only %q", name, k, b.Help().Key)
			}
		}
	}
}

// Every binding of the keymap is in the ? overlay: among the global, moving,
// typing or dialog keys, or in a pane's section (a pane the fake crawl does not
// show: in its FullHelp, which the overlay lists once it shows).
func TestEveryBindingIsInTheHelpOverlay(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	km := h.m.c.Keys
	entries := h.m.helpEntries()
	var hidden []key.Binding
	for i, p := range h.m.panes {
		if !slices.Contains(h.m.shown, i) {
			hidden = append(hidden, slices.Concat(p.FullHelp()...)...)
		}
	}
	for name, b := range keyMapBindings(km) {
		e := helpEntry{key: b.Help().Key, desc: b.Help().Desc}
		if !slices.Contains(entries, e) && !slices.ContainsFunc(hidden, func(l key.Binding) bool { return slices.Equal(l.Keys(), b.Keys()) }) {
			t.Errorf("%s (%s %s) is in no section of the ? overlay", name, e.key, e.desc)
		}
	}
}

// The README's key table names every key the console answers, written as the
// overlay writes it.
func TestReadmeKeyTableNamesEveryKey(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n| Key | Action |\n")
	if !ok {
		t.Fatal("README has no key table (| Key | Action |)")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	keysOf := func(row string) string {
		if cells := strings.Split(row, " | "); len(cells) > 0 {
			return cells[0]
		}
		return ""
	}
	var keyCells strings.Builder
	for _, row := range strings.Split(table, "\n") {
		keyCells.WriteString(keysOf(row) + "\n")
	}
	for name, b := range keyMapBindings(pane.DefaultKeyMap()) {
		for _, k := range b.Keys() {
			want := "`" + keyShown(k) + "`"
			if keyShown(k) == "1-9" {
				want = "`1`–`9`"
			}
			if !strings.Contains(keyCells.String(), want) {
				t.Errorf("%s answers %s, which the README's key table does not name in its Key column", name, want)
			}
		}
	}
}
