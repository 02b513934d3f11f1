package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func TestSitesPaneShowsEachSite(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			h := newHarnessWith(t, size[0], size[1], Options{}, fake.Config{Sites: true})
			h.press("7")
			h.mustShow("[7 Sites]", "declared 5", "round 7", "new 1d 451", "SITE", "KEYWORDS", "BUDGET",
				"▸ capital-digest.com  entry http://www.capital-digest.com/  keywords 台风")
			// keywords, stored, new 1h, new 1d, last round, delay, budget used/budget
			if row := h.rowOf("copper-register"); !fieldsInOrder(row, "flood", "1,931", "7", "57", "13m", "18m", "160/200") {
				t.Errorf("copper-register.net row %q", row)
			}
			// No page stated a publish time: "-", not 0s.
			if row := h.rowOf("valley-academy.edu"); !fieldsInOrder(row, "2,662", "11", "74", "22m", "-", "200") {
				t.Errorf("valley-academy.edu row %q", row)
			}
			if size[0] >= 110 {
				h.mustShow("held back 35", "CLASS", "FEEDS", "MAPS", "DATES", "keywords 台风, flood", "    feeds -  sitemaps -")
			}
		})
	}
	t.Run("a covered sitemap is marked", func(t *testing.T) {
		h := newHarnessWith(t, 220, 40, Options{}, fake.Config{Sites: true})
		h.press("7", "down")
		h.mustShow("sitemaps http://www.copper-register.net/sitemap.xml (covered by http://www.copper-register.net/)")
	})
	t.Run("a feed that yielded nothing says why", func(t *testing.T) {
		h := newHarnessWith(t, 220, 40, Options{}, fake.Config{Sites: true})
		h.press("7", "down", "down")
		h.mustShow(`    yielded nothing http://www.valley-academy.edu/feed: content_type: neither a page nor a feed or sitemap: it starts "\x89PNG"  feeds -`)
	})
	t.Run("no sites: no tab", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.mustNotShow("Sites")
	})
}

// :keyword add reaches the engine as a steering change and the keyword shows in the
// Sites pane at the next snapshot; a bad command says what was wrong inline and
// sends nothing; a viewer session is refused.
func TestSteeringCommands(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, fake.Config{Sites: true})
	h.press("7")
	h.command("keyword add chirp hurricane")
	h.mustCall("Steer(keyword add chirp hurricane)")
	h.mustShow(`keyword "hurricane" added to chirp`)
	h.refresh()
	h.press("down", "down", "down") // chirp: its line spells every keyword out
	h.mustShow("▸ chirp  search http://www.chirp-social.net/search?q={keyword}&page={page}  keywords hurricane, storm surge")
	for _, tc := range []struct{ line, want string }{
		{"budget chirp many", `"many" is not a page count`},
		{"budget host www.chirp-social.net", "the page count is missing"},
		{"budget chirp 5 weekly", `"weekly" after the count must be "round"`},
		{"site add blog http://x.test/", `site kind must be "news" or "social"`},
	} {
		h.command(tc.line)
		h.mustShow(tc.want)
		h.press("esc")
	}
	if n := strings.Count(strings.Join(h.calls(), "\n"), "Steer("); n != 1 {
		t.Errorf("bad commands reached the engine: %v", h.calls())
	}

	ro := newHarnessWith(t, 120, 40, Options{ReadOnly: true}, fake.Config{Sites: true})
	ro.command("seed add http://x.test/")
	ro.mustShow(pane.ReadOnlyText)
	for _, c := range ro.calls() {
		if strings.HasPrefix(c, "Steer(") {
			t.Errorf("a viewer's steering reached the engine: %s", c)
		}
	}
	_ = steer.SeedAdd
}

// :budget SITE N total reaches the engine, and the Sites pane's line of the selected
// site shows its pages against its total budget (the table has the round's).
func TestSitesPaneShowsTotalBudget(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, fake.Config{Sites: true})
	h.press("7")
	h.command("budget capital-digest.com 900 total")
	h.mustCall("Steer(budget capital-digest.com 900 total)")
	h.mustShow("budget of capital-digest.com: 900 pages in total")
	h.refresh()
	h.mustShow("▸ capital-digest.com  entry http://www.capital-digest.com/  keywords 台风, flood  total budget 0/900", "    feeds ")
}

// A refused steering command says its command once: the engine's error begins with
// it ("seed add: ..."), and the status line had it twice.
func TestRefusedSteeringSaysItsCommandOnce(t *testing.T) {
	got := couldNot("seed add http://x.test/", fmt.Errorf("seed add: http://x.test/ is already in this crawl (done); nothing queued"))
	if want := "could not seed add http://x.test/: http://x.test/ is already in this crawl (done); nothing queued"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = couldNot("add egress socks5://10.0.0.1:1080", fmt.Errorf("egress socks5://10.0.0.1:1080: proxy on a private address"))
	if want := "could not add egress socks5://10.0.0.1:1080: proxy on a private address"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// An error that does not repeat the command is kept whole.
	got = couldNot("rotate lane 3", fmt.Errorf("egress vpn-a: connect: refused"))
	if want := "could not rotate lane 3: egress vpn-a: connect: refused"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
