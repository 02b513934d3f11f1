package ui

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// The Hosts pane is the hosts report: a row per host with its responses by status
// class and refusals; o sorts by the next figure (largest first), O reverses, /
// filters, m adds them up per site and per egress; the selected host's kinds are
// spelled out above the table.
func TestHostsPaneSortsFiltersAndGroups(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, fake.Config{Hosts: 40})
	h.press("7")
	h.mustShow("[7 Hosts]", "hosts 40", "HOST", "4XX", "REF")
	first := func() []string {
		for _, l := range strings.Split(h.body(), "\n") {
			if strings.HasPrefix(l, "▸ ") || strings.HasPrefix(l, "  ") && strings.Contains(l, ".sandbox.test ") && !strings.Contains(l, "kinds") {
				return strings.Fields(strings.TrimPrefix(l, "▸ "))
			}
		}
		return nil
	}
	if f := first(); len(f) == 0 || f[0] != "blog-02.sandbox.test" {
		t.Fatalf("hosts are in name order at first, got the first row %q", f)
	}
	// o through the figures to refused (name, fetched, stored, 4xx, 5xx, skipped, errors, refused).
	for range 7 {
		h.press("o")
	}
	h.mustShow("hosts sorted by refused, largest first", "sort refused ↓")
	h.press("home")
	f := first()
	if len(f) < 10 || f[9] != "120" { // HOST FETCHED STORED 2XX 3XX 4XX 5XX SKIP ERR REF: REF is the 10th figure
		t.Fatalf("sorted by refusals, the first row should refuse 120: %q\n%s", f, h.view())
	}
	if row := h.rowOf("▸ blog-08"); row == "" {
		t.Fatalf("the most refusing host, first by name among equals, should be selected:\n%s", h.view())
	}
	h.mustShow("kinds refused 120")
	h.press("O")
	h.mustShow("sort refused ↑")

	h.filter("social-1")
	body := h.body()
	for _, l := range strings.Split(body, "\n")[3:] {
		if strings.TrimSpace(l) != "" && !strings.Contains(l, "social-1") {
			t.Fatalf("the filter social-1 keeps a row of another host: %q\n%s", l, body)
		}
	}
	h.press("esc")

	h.press("m")
	h.mustShow("hosts report per site", "sites 7", "SITE", "site-06")
	h.press("m")
	h.mustShow("hosts report per egress", "egresses 3", "EGRESS", "egress-c")
}

// The Hosts tab comes with the first host: before anything was fetched there is
// no report, and the other panes keep their numbers.
func TestHostsPaneComesWithTheFirstHost(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.mustNotShow("Hosts")
	h = newHarnessWith(t, 120, 40, Options{}, fake.Config{Hosts: 1})
	h.mustShow("7 Hosts")
}

// A master at 80 columns has nine panes: the tab bar keeps every tab, the active
// one by its name, shortening the others, so the Hosts pane (the ninth) is never
// shown without its tab.
func TestTabBarAt80ColumnsShowsTheActivePaneWithNinePanes(t *testing.T) {
	h := newHarnessWith(t, 80, 24, Options{}, fake.Config{Workers: 4, Hosts: 40, Sites: true})
	tabs := h.line(2)
	if !strings.Contains(tabs, "[1 Lanes]") || !strings.Contains(tabs, "9 ") {
		t.Fatalf("tab bar at 80 columns: %q; want the Lanes tab by name and the ninth tab", tabs)
	}
	for key, want := range map[string]string{"9": "[9 Hosts]", "7": "[7 Nodes]", "1": "[1 Lanes]"} {
		h.press(key)
		tabs := h.line(2)
		if !strings.Contains(tabs, want) || displayWidth(tabs) > 80 {
			t.Errorf("tab bar at 80 columns after %s: %q (%d columns); want %q in it", key, tabs, displayWidth(tabs), want)
		}
	}
}
