package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

func TestDNSPaneShowsTheCache(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			h := newHarness(t, size[0], size[1], Options{})
			h.press("4")
			v := h.ctrl.Snapshot().DNS
			h.mustShow("[4 DNS]",
				"positive  "+percent(v.PositiveRate), "negative   "+percent(v.NegativeRate), "miss       "+percent(v.MissRate),
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
	views := []*engine.DNSView{h.ctrl.Snapshot().DNS}
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
	if row := h.rowOf("  miss "); !strings.Contains(row, percent(views[len(views)-1].MissRate)+"  ") ||
		!strings.Contains(row, " "+percent(recent)+" ") {
		t.Fatalf("miss row %q lacks all-time %s or last-10s %s", row, percent(views[len(views)-1].MissRate), percent(recent))
	}
}

func TestHitHistory(t *testing.T) {
	view := func(sec int, lookups, pos, neg, miss int64) *engine.DNSView {
		return &engine.DNSView{At: fake.Epoch.Add(time.Duration(sec) * time.Second),
			Stats: dnscache.Stats{Lookups: lookups, PositiveHits: pos, NegativeHits: neg, Misses: miss}}
	}
	t.Run("deltas between views", func(t *testing.T) {
		h := hitHistory{capacity: 10}
		h.add(view(0, 100, 90, 5, 5))
		h.add(view(1, 200, 180, 5, 15)) // 100 lookups: 90 hits, 10 misses
		h.add(view(1, 999, 999, 0, 0))  // same time: skipped
		h.add(view(2, 200, 180, 5, 15)) // idle second
		h.add(view(3, 300, 230, 25, 45))
		pos := h.series(ratePositive)
		if len(pos) != 3 || pos[0] != 0.9 || !math.IsNaN(pos[1]) || pos[2] != 0.5 {
			t.Fatalf("positive series = %v, want [0.9 NaN 0.5]", pos)
		}
		if got, ok := h.recent(rateMiss, 10*time.Second); !ok || got != 40.0/200 {
			t.Fatalf("recent miss share = %v %v, want 0.2", got, ok)
		}
		if got, ok := h.recent(rateNegative, 1500*time.Millisecond); !ok || got != 0.2 {
			t.Fatalf("recent negative share over the newest interval = %v %v, want 0.2", got, ok)
		}
	})
	t.Run("counters going back start again", func(t *testing.T) {
		h := hitHistory{capacity: 10}
		h.add(view(0, 100, 100, 0, 0))
		h.add(view(1, 200, 200, 0, 0))
		h.add(view(2, 10, 5, 0, 5)) // a new crawl
		if n := len(h.samples); n != 0 {
			t.Fatalf("%d samples after a reset, want 0", n)
		}
		h.add(view(3, 20, 10, 0, 10))
		if s := h.series(rateMiss); len(s) != 1 || s[0] != 0.5 {
			t.Fatalf("series after reset = %v", s)
		}
	})
	t.Run("capacity keeps the newest", func(t *testing.T) {
		h := hitHistory{capacity: 3}
		for i := range 10 {
			h.add(view(i, int64(i*10), int64(i*5), 0, int64(i*5)))
		}
		if len(h.samples) != 3 || !h.samples[2].at.Equal(fake.Epoch.Add(9*time.Second)) {
			t.Fatalf("samples = %+v", h.samples)
		}
	})
	t.Run("no lookups yet", func(t *testing.T) {
		h := hitHistory{capacity: 3}
		if _, ok := h.recent(ratePositive, time.Minute); ok {
			t.Fatal("an empty history has no recent share")
		}
	})
}

func TestShareSparkline(t *testing.T) {
	tests := []struct {
		vals []float64
		w    int
		want string
	}{
		{[]float64{1, 0.94, 0.5, 0.01, 0}, 5, "█▇▄▁ "},
		{[]float64{math.NaN(), 1}, 4, "   █"},
		{[]float64{0.2, 0.4, 0.6, 0.8}, 2, "▄▆"}, // newest on the right
		{nil, 3, "   "},
		{[]float64{1}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.vals, tc.w), func(t *testing.T) {
			if got := shareSparkline(tc.vals, tc.w); got != tc.want {
				t.Fatalf("shareSparkline = %q, want %q", got, tc.want)
			}
		})
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
	h.press("/")
	h.typeText("timeout")
	h.press("enter")
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
	h.press(":")
	h.typeText("dns flush")
	h.press("enter")
	h.mustCall("FlushDNS()")
	h.mustShow("could not flush the DNS cache: " + fake.ErrNoDNS.Error())
}

func TestDNSFlushCommand(t *testing.T) {
	all := func() string {
		v := fake.New(fake.Config{}).Snapshot().DNS
		return thousands(int64(v.Hosts + v.NegativeCount))
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
			h.press("4", ":")
			h.typeText(tc.line)
			h.press("enter")
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
