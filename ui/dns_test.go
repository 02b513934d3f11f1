package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func TestDNSPaneShowsTheCache(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			h := newHarness(t, size[0], size[1], Options{})
			h.press("4")
			v := h.ctrl.Snapshot().DNS
			h.mustShow("[4 DNS]",
				"positive  "+pane.Percent(v.PositiveRate), "negative   "+pane.Percent(v.NegativeRate), "miss       "+pane.Percent(v.MissRate),
				"backlog 12", "workers 4", "in flight 3", "p50 61.5ms", "p99 187ms",
				"SLOWEST DOMAIN", "social-60.sandbox.test", "310ms",
				"NEGATIVE HOST", "gone-00.news-70.sandbox.test", "nxdomain", "gone-01.blog-71.sandbox.test", "timeout")
			// Time left counts from the view's time: the clock is the fake's epoch.
			if row := h.rowOf("gone-02.social-72"); !strings.Contains(row, "slow") || !strings.Contains(row, "13m34s") {
				t.Fatalf("slow entry row lacks its reason or time left: %q", row)
			}
			if size[0] >= 110 {
				h.mustShow("MAX", "ADDRS", "WEIGHT", "496ms")
			}
		})
	}
}

func TestDNSPaneCountdownsMoveWithTheClock(t *testing.T) {
	now := fake.Epoch
	h := newHarness(t, 120, 40, Options{Clock: func() time.Time { return now }})
	h.press("4")
	if row := h.rowOf("gone-02.social-72"); !strings.Contains(row, "13m34s") {
		t.Fatalf("row = %q", row)
	}
	now = now.Add(64 * time.Second) // no new snapshot: the view's time left is older
	h.send(windowSize(120, 40))     // any message redraws
	if row := h.rowOf("gone-02.social-72"); !strings.Contains(row, "12m30s") {
		t.Fatalf("countdown did not move with the clock: %q", row)
	}
	now = now.Add(time.Hour)
	h.send(windowSize(120, 40))
	if row := h.rowOf("gone-02.social-72"); !strings.Contains(row, " now ") {
		t.Fatalf("expired entry should say now: %q", row)
	}
}

// TestDNSSparklinesFollowSnapshots checks the hit-rate history: one sample per new
// view (the engine refreshes it about once a second, the console pulls faster),
// drawn newest on the right, and the LAST 10S figure over the newest samples.
func TestDNSSparklinesFollowSnapshots(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("4")
	views := []*view.DNSView{h.ctrl.Snapshot().DNS}
	const ticks = 25
	for range ticks {
		h.ctrl.Tick()
		h.refresh()
		h.refresh() // the same view again adds nothing
		views = append(views, h.ctrl.Snapshot().DNS)
	}
	spark := func(label string) string {
		row := h.rowOf("  " + label + " ")
		i := strings.IndexAny(row, "▁▂▃▄▅▆▇█")
		if i < 0 {
			t.Fatalf("%s row has no sparkline: %q", label, row)
		}
		return strings.TrimRight(row[i:], " ")
	}
	// Positive hits happen in every interval: one bar per tick, none for the
	// repeated snapshots.
	if n := len([]rune(spark("positive"))); n != ticks {
		t.Fatalf("positive sparkline has %d bars, want %d: %q", n, ticks, spark("positive"))
	}
	// Negative hits come every fourth second in the fake: bars only there.
	want := ""
	for i := 1; i < len(views); i++ {
		if views[i].Stats.NegativeHits > views[i-1].Stats.NegativeHits {
			want += "▁"
		} else {
			want += " "
		}
	}
	if got := spark("negative"); got != strings.Trim(want, " ") && !strings.HasSuffix(want, got) {
		t.Fatalf("negative sparkline = %q, want the pattern %q", got, want)
	}
	// LAST 10S: the newest ten intervals' misses over their lookups.
	last, first := views[len(views)-1].Stats, views[len(views)-11].Stats
	recent := float64(last.Misses-first.Misses) / float64(last.Lookups-first.Lookups)
	if row := h.rowOf("  miss "); !strings.Contains(row, pane.Percent(views[len(views)-1].MissRate)+"  ") ||
		!strings.Contains(row, " "+pane.Percent(recent)+" ") {
		t.Fatalf("miss row %q lacks all-time %s or last-10s %s", row, pane.Percent(views[len(views)-1].MissRate), pane.Percent(recent))
	}
}

func TestDNSNegativeEntriesScrollAndFilter(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	h.press("4")
	h.mustShow("1/14", "gone-00.news-70")
	h.mustNotShow("gone-13.blog-83")
	h.press("G")
	h.mustShow("14/14", "gone-13.blog-83")
	if row := h.rowOf("▸"); !strings.Contains(row, "gone-13.blog-83") {
		t.Fatalf("selection = %q", row)
	}
	h.mustShow("social-60.sandbox.test") // the slowest domains stay put
	h.filter("timeout")
	h.mustShow("gone-01.blog-71", "gone-09.news-79", "no domain matches the filter")
	h.mustNotShow("gone-00.news-70", "nxdomain")
	h.press("esc") // the selection stays on the entry it was on
	h.mustShow("10/14")
	if row := h.rowOf("▸"); !strings.Contains(row, "gone-09.news-79") {
		t.Fatalf("selection after clearing the filter = %q", row)
	}
}

func TestDNSPaneWithoutACache(t *testing.T) {
	h := newHarnessWith(t, 80, 24, Options{}, fake.Config{NoDNS: true})
	h.press("4")
	h.mustShow("[4 DNS]", "no DNS cache in this crawl")
	h.command("dns flush")
	h.mustCall("FlushDNS()")
	h.mustShow("could not flush the DNS cache: " + fake.ErrNoDNS.Error())
}

func TestDNSFlushCommand(t *testing.T) {
	all := func() string {
		v := fake.New(fake.Config{}).Snapshot().DNS
		return pane.Thousands(int64(v.Hosts + v.NegativeCount))
	}()
	tests := []struct {
		line    string
		call    string
		show    []string
		gone    string // no longer on screen after the flush
		errText string
	}{
		{line: "dns flush", call: "FlushDNS()", show: []string{"DNS cache flushed: " + all + " entries dropped", "the positive cache is empty"},
			gone: "gone-00.news-70"},
		{line: "dns flush gone-02.social-72.sandbox.test", call: "FlushDNS(gone-02.social-72.sandbox.test)",
			show: []string{"DNS cache flushed for gone-02.social-72.sandbox.test: 1 entry dropped", "gone-03.news-73"}, gone: "gone-02.social-72"},
		{line: "dns flush News-63.Sandbox.Test.", call: "FlushDNS(news-63.sandbox.test)",
			show: []string{"DNS cache flushed for news-63.sandbox.test: 6 entries dropped"}, gone: "news-63.sandbox.test  "},
		{line: "dns flush nowhere.test", call: "FlushDNS(nowhere.test)", show: []string{"nowhere.test: 0 entries dropped"}},
		{line: "dns flush a b", errText: "usage: :dns flush [domain]"},
		{line: "dns flush http://x.test/", errText: `dns flush: "http://x.test/" is not a domain name`},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{})
			h.press("4")
			h.command(tc.line)
			if tc.errText != "" {
				h.mustShow(tc.errText)
				h.mustCall()
				return
			}
			h.mustCall(tc.call)
			h.mustShow(tc.show...)
			if tc.gone != "" && strings.Contains(h.body(), tc.gone) {
				t.Fatalf("%q still in the pane after the flush:\n%s", tc.gone, h.body())
			}
		})
	}
}
