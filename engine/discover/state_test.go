package discover

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// A restarted crawl takes back what the Poller learned: every source's rate,
// interval and next poll are the same after Export, a trip through JSON (the store)
// and Import, and stay the same as both go on observing. A damaged state is left
// out: that source starts from the prior, as a new one does.
func TestPollerStateSurvivesExportImport(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, budget := range []float64{0, 30} {
		p := &Poller{Budget: budget, MinInterval: time.Minute, MaxInterval: 6 * time.Hour}
		at := t0
		for i := 0; i < 200; i++ {
			at = at.Add(10 * time.Minute)
			p.Observe("busy", at, i%2, false)
			if i%12 == 0 {
				p.Observe("slow", at, i%24/12, false)
			}
			if i%30 == 0 {
				p.Observe("quiet", at, 0, false)
			}
		}
		p.Observe("flooded", at, 40, true)
		p.Observe("flooded", at.Add(time.Minute), 40, true)
		data, err := json.Marshal(p.Export())
		if err != nil {
			t.Fatal(err)
		}
		var states map[string]PollState
		if err := json.Unmarshal(data, &states); err != nil {
			t.Fatal(err)
		}
		states["damaged"] = PollState{Last: at, Items: math.NaN(), Span: 1}
		q := &Poller{Budget: budget, MinInterval: time.Minute, MaxInterval: 6 * time.Hour}
		if skipped := q.Import(states); skipped != 1 {
			t.Errorf("budget %v: %d states skipped, want the damaged one", budget, skipped)
		}
		fresh := &Poller{Budget: budget, MinInterval: time.Minute, MaxInterval: 6 * time.Hour}
		check := func(when string) {
			for _, src := range []string{"busy", "slow", "quiet", "flooded"} {
				if p.Interval(src) != q.Interval(src) || p.Rate(src) != q.Rate(src) || !p.Next(src).Equal(q.Next(src)) {
					t.Errorf("budget %v, %s, %s: interval %v / %v, rate %v / %v, next %v / %v (learned / imported)", budget, when, src,
						p.Interval(src), q.Interval(src), p.Rate(src), q.Rate(src), p.Next(src), q.Next(src))
				}
			}
		}
		check("after import")
		if p.Interval("busy") == fresh.Interval("busy") || !fresh.Next("busy").IsZero() {
			t.Fatalf("budget %v: a fresh poller knows the busy feed as well: the test shows nothing", budget)
		}
		if !q.Next("damaged").IsZero() {
			t.Errorf("budget %v: the damaged source is scheduled: next %v", budget, q.Next("damaged"))
		}
		q.Observe("damaged", at, 1, false) // the fresh start does not fail either
		p.Observe("damaged", at, 1, false)
		for i := 0; i < 20; i++ {
			at = at.Add(7 * time.Minute)
			p.Observe("busy", at, i%3, false)
			q.Observe("busy", at, i%3, false)
		}
		check("after more polls")
	}
}

// A site's date-trust evidence survives State and Restore: the verdict and its
// reason are the same, and new evidence pushes the same old evidence out.
func TestTrustStateSurvivesRestore(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	nowDoc := make([]Entry, 6)
	for i := range nowDoc {
		nowDoc[i] = Entry{URL: "u", Modified: now}
	}
	oldDoc := make([]Entry, 6)
	for i := range oldDoc {
		oldDoc[i] = Entry{URL: "u", Modified: now.Add(-48 * time.Hour)}
	}
	var a Trust
	for i := 0; i < TrustWindow+7; i++ { // past the window: the ring has wrapped
		a.ObserveHint(i%5 == 0)
		a.ObserveDocument(nowDoc, now)
	}
	data, err := json.Marshal(a.State())
	if err != nil {
		t.Fatal(err)
	}
	var st TrustState
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	var b Trust
	b.Restore(st)
	same := func(when string) {
		ta, wa := a.Trusted()
		tb, wb := b.Trusted()
		if ta != tb || wa != wb {
			t.Errorf("%s: verdict %v %q, restored %v %q", when, ta, wa, tb, wb)
		}
	}
	if ok, _ := a.Trusted(); ok {
		t.Fatal("the lying site is trusted: the test shows nothing")
	}
	same("after restore")
	for i := 0; i < TrustWindow; i++ { // honest from now on: trust comes back alike
		a.ObserveDocument(oldDoc, now)
		b.ObserveDocument(oldDoc, now)
		a.ObserveHint(true)
		b.ObserveHint(true)
		same("as the site mends")
	}
	if ok, _ := b.Trusted(); !ok {
		t.Error("a mended site is still not trusted after a full window")
	}
}
