package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

func TestRevisitPaneShowsTheQueue(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {160, 40}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			h := newHarness(t, size[0], size[1], Options{})
			h.press("6")
			h.mustShow("[6 Revisit]", "1/50", "policy estimator", "every 1m", "last tick 12s ago",
				"refetched 12,345", "changed 1,502 (12.2%)", "304 4,210",
				"DUE PAGE", "CLASS", "NEXT IN", "HAM", "soc", "web_com", "3d", "no limit")
			tests := []struct {
				row  string
				want []string // class, t, x, next in, last Hamming distance, fetches
			}{
				{"news-00.sandbox.test/articles/", []string{"web_com", "1h", "1", "-5m", "0", "2"}},            // overdue
				{"social-04.sandbox.test/article", []string{"soc", "7h01m", "2", "1m28s", "21", "14"}},         // due soon
				{"blog-05.sandbox.test/articles/", []string{"web_net", "8h31m", "9", "3m05s", "-", "1"}},       // fetched once: no distance yet
				{"news-00.sandbox.test/articles/2117", []string{"web_gov", "14h32m", "1", "9m33s", "7", "12"}}, // wide only
			}
			for i, tc := range tests {
				if i == 3 && size[0] < 110 {
					continue // the URL is cut on a narrow terminal
				}
				if row := h.rowOf(tc.row); !fieldsInOrder(row, tc.want...) {
					t.Errorf("row %q = %q, lacks %q", tc.row, row, tc.want)
				}
			}
			if size[0] >= 140 { // the width from which the due table shows the evidence
				// The last change's distance and why it counted, the
				// boilerplate-only latest comparison, and the no-article flag.
				h.mustShow("CHG", "WHY")
				for _, tc := range []struct {
					row  string
					want []string
				}{
					{"news-00.sandbox.test/articles/", []string{"2", "main text edited"}},
					{"social-01.sandbox.test/articles/", []string{"9", "headline changed; now boilerplate"}},
					{"blog-02.sandbox.test/articles/", []string{"14", "no article: simhash"}},
				} {
					row := h.rowOf(tc.row)
					if i := strings.Index(row, " "+tc.want[0]+" "); i < 0 || !strings.Contains(row[i:], tc.want[1]) {
						t.Errorf("evidence of %q = %q, lacks %q", tc.row, row, tc.want)
					}
				}
			}
			if size[0] >= 110 {
				h.mustShow("PAGES BY LEARNED INTERVAL", "WINDOW", "15,120")
				// The histogram's bars scale to the largest bucket.
				long, short := h.rowOf("1h-6h"), h.rowOf("<1m")
				if n, m := strings.Count(long, "█"), strings.Count(short, "█"); n <= m || m != 1 || !strings.Contains(long, "5,102") {
					t.Fatalf("histogram bars %d (1h-6h) vs %d (<1m):\n%s\n%s", n, m, long, short)
				}
			} else {
				h.mustShow("<1m 12", "1h-6h 5,102", "web_gov no limit")
			}
		})
	}
}

func TestRevisitCountdownsFollowTheClock(t *testing.T) {
	now := fake.Epoch
	h := newHarness(t, 120, 40, Options{Clock: func() time.Time { return now }})
	h.press("6")
	now = now.Add(90 * time.Second)
	h.send(windowSize(120, 40))
	if row := h.rowOf("social-04.sandbox.test"); !fieldsInOrder(row, "soc", "-2s") {
		t.Fatalf("row after 90s: %q", row)
	}
	h.mustShow("last tick 1m42s ago")
}

func TestRevisitSchedulerOff(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	s := h.ctrl.Snapshot()
	s.Revisit.Enabled, s.Revisit.LastTick = false, time.Time{}
	h.send(SnapshotMsg{Snapshot: s})
	h.press("6")
	h.mustShow("off (revisit.enabled false)", "last tick not yet")
}

func TestRevisitNow(t *testing.T) {
	t.Run("n refetches the selected page", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("6", "down")
		u := h.ctrl.Snapshot().Revisit.Due[1].URL
		h.press("n")
		h.mustCall("RevisitNow(" + u + ")")
		h.mustShow(u+" queued for a refetch now", "2/49")
		if strings.Contains(h.body(), u) {
			t.Fatalf("the page is still in the due queue:\n%s", h.body())
		}
		if row := h.rowOf("▸"); !strings.Contains(row, "blog-02.sandbox.test") {
			t.Fatalf("selection should move to the next page: %q", row)
		}
	})
	tests := []struct {
		line    string
		cfg     fake.Config
		calls   []string
		show    string
		errText string
	}{
		{line: "revisit now http://news-03.sandbox.test/articles/2039/page-3.html",
			calls: []string{"RevisitNow(http://news-03.sandbox.test/articles/2039/page-3.html)"},
			show:  "http://news-03.sandbox.test/articles/2039/page-3.html queued for a refetch now"},
		{line: "revisit now http://elsewhere.test/", calls: []string{"RevisitNow(http://elsewhere.test/)"},
			show: "could not revisit http://elsewhere.test/ now: http://elsewhere.test/ is not in this crawl"},
		{line: "revisit now http://news-03.sandbox.test/", cfg: fake.Config{NoRevisit: true},
			calls: []string{"RevisitNow(http://news-03.sandbox.test/)"},
			show:  "could not revisit http://news-03.sandbox.test/ now: this crawl keeps no revisit state"},
		{line: "revisit now news-03.sandbox.test", errText: `revisit now: "news-03.sandbox.test" is not an http(s) URL`},
		{line: "revisit now ftp://x.test/a", errText: `revisit now: "ftp://x.test/a" is not an http(s) URL`},
		{line: "revisit now", errText: "usage: :revisit now URL"},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := newHarnessWith(t, 200, 40, Options{}, tc.cfg)
			h.press("6")
			h.command(tc.line)
			h.mustAnswer(tc.calls, tc.errText, tc.show)
		})
	}
	t.Run("completion offers the due queue", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		if got := h.complete("revisit now http://blog-08"); !strings.HasPrefix(got, "revisit now http://blog-08.sandbox.test/articles/2") {
			t.Fatalf("completed to %q", got)
		}
	})
}

func TestRevisitPaneWithoutState(t *testing.T) {
	h := newHarnessWith(t, 80, 24, Options{}, fake.Config{NoRevisit: true})
	h.press("6")
	h.mustShow("no revisit state in this crawl")
	h.press("n")
	h.mustShow("no page selected")
	h.mustCall()
}

func TestRevisitFilterAndScroll(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	h.press("6", "G")
	h.mustShow("50/50")
	if row := h.rowOf("▸"); !fieldsInOrder(row, "web_gov", "3d02h", "2", "1h14m") || !strings.Contains(row, "social-04.sandbox.test") {
		t.Fatalf("last due page row = %q", row)
	}
	h.filter("web_gov")
	for _, l := range strings.Split(h.body(), "\n") {
		if strings.Contains(l, "http://") && !strings.Contains(l, "web_gov") {
			t.Fatalf("filter web_gov lets through %q", l)
		}
	}
	h.mustShow("filtered 3/3")
	h.filter("nothing-like-this")
	h.mustShow(`no due page matches the filter "nothing-like-this"`)
}

// TestNewPanesTakeClicks: a click selects the row under it in the DNS (negative
// entries), Egress and Revisit panes; a click on their figures selects nothing.
func TestNewPanesTakeClicks(t *testing.T) {
	click := func(y int) tea.MouseMsg {
		return tea.MouseMsg{X: 60, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
	}
	tests := []struct {
		pane     string
		y        int // screen row: 3 is the pane's first line
		selected string
	}{
		{"4", 15, "gone-02.social-72"},    // third negative entry
		{"4", 5, "gone-00.news-70"},       // on the hit rates: the selection stays
		{"5", 9, "egress-b"},              // second egress row
		{"5", 15, "news-57.sandbox.test"}, // second disabled host
		{"5", 12, "egress-a"},             // the blank line between the tables
		{"6", 15, "social-01.sandbox.test"},
	}
	narrow := []struct {
		pane     string
		y        int
		selected string
	}{
		{"4", 21, "gone-03.news-73"},      // stacked tables: the fourth negative entry
		{"4", 14, "gone-00.news-70"},      // on the slowest domains: the selection stays
		{"6", 10, "news-00.sandbox.test"}, // below the class plans line
		{"6", 12, "blog-02.sandbox.test"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.pane, "@", tc.y), func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{Mouse: true})
			h.press(tc.pane)
			h.send(click(tc.y))
			if row := h.rowOf("▸"); !strings.Contains(row, tc.selected) {
				t.Fatalf("selected row = %q, want %s", row, tc.selected)
			}
		})
	}
	for _, tc := range narrow {
		t.Run(fmt.Sprint("80x24 ", tc.pane, "@", tc.y), func(t *testing.T) {
			h := newHarness(t, 80, 24, Options{Mouse: true})
			h.press(tc.pane)
			h.send(click(tc.y))
			if row := h.rowOf("▸"); !strings.Contains(row, tc.selected) {
				t.Fatalf("selected row = %q, want %s", row, tc.selected)
			}
		})
	}
}
