package revisit

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

// siteScenario fetches siteEvidence articles on a quiet site (never changed at the
// first refetch) and on a live one (changed every time) under an estimator policy
// with budget, each refetched when M2 says, and returns the tracker, the policy and
// a fetch function for more.
func siteScenario(t *testing.T, budget float64) (*EstimatorPolicy, func(u string, at time.Time, hash uint64) *Page, time.Time) {
	t.Helper()
	pol, err := NewEstimatorPolicy(EstimatorOptions{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTracker(Config{}, pol)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	pages := map[string]*Page{}
	fetch := func(u string, at time.Time, hash uint64) *Page {
		p, ok := pages[u]
		if !ok {
			p = &Page{URL: u, Class: ClassCom}
			pages[u] = p
		}
		tr.Observe(p, at, Outcome{Hash: hash, OK: true})
		return p
	}
	for i := range siteEvidence {
		at := t0.Add(time.Duration(i) * time.Minute)
		for _, site := range []string{"news.example", "live.example"} {
			u := fmt.Sprintf("https://www.%s/story/%d", site, i)
			p := fetch(u, at, 1)
			if got := p.Next.Sub(at); got != DefaultInitial {
				t.Fatalf("%s, before the site showed anything: first revisit after %v, want Initial (%v)", u, got, DefaultInitial)
			}
			hash := uint64(1) // unchanged
			if site == "live.example" {
				hash = ^uint64(0) // every bit moved: changed
			}
			fetch(u, p.Next, hash)
		}
	}
	return pol, fetch, t0.Add(6 * time.Hour)
}

// A site whose new pages proved not to change within M2's first refetch gets its
// next new pages' first revisit planned in the budget (days at the default budget,
// not Initial's hour), except one in siteProbeEvery, which keeps the site's evidence
// current. A site never seen keeps Initial.
func TestFirstRevisitFollowsWhatTheSitesPagesShowed(t *testing.T) {
	pol, fetch, at := siteScenario(t, DefaultBudget)
	long, initial := 0, 0
	for i := range 2 * siteProbeEvery {
		p := fetch(fmt.Sprintf("https://section.news.example/story/new-%d", i), at, 1)
		switch d := p.Next.Sub(at); {
		case d == DefaultInitial:
			initial++
		case d >= 24*time.Hour:
			long++
			if p.Freq <= 0 {
				t.Errorf("a planned first revisit is not counted in the budget (Freq %v)", p.Freq)
			}
		default:
			t.Errorf("new page of the quiet site: first revisit after %v, want Initial or at least a day", d)
		}
	}
	if initial != 2 || long != 2*siteProbeEvery-2 {
		t.Errorf("of %d new pages of the quiet site, %d wait at least a day and %d keep Initial; want %d and 2",
			2*siteProbeEvery, long, initial, 2*siteProbeEvery-2)
	}
	if planned, probed := pol.FirstPlans(); planned != int64(long) || probed != int64(initial) {
		t.Errorf("FirstPlans = %d planned, %d probed; want %d, %d", planned, probed, long, initial)
	}
	if p := fetch("https://elsewhere.example/a", at, 1); p.Next.Sub(at) != DefaultInitial {
		t.Errorf("a page of a site never seen: first revisit after %v, want Initial (%v)", p.Next.Sub(at), DefaultInitial)
	}
}

// With a budget that affords hourly visits, a new page of the site whose pages
// changed at every first refetch keeps Initial, while one of the quiet site waits
// longer: the plan follows each site's evidence, not one rule for all.
func TestFirstRevisitOfALiveSiteKeepsInitial(t *testing.T) {
	_, fetch, at := siteScenario(t, 48)
	if p := fetch("https://www.live.example/story/new", at, 1); p.Next.Sub(at) != DefaultInitial {
		t.Errorf("new page of the live site: first revisit after %v, want Initial (%v)", p.Next.Sub(at), DefaultInitial)
	}
	if p := fetch("https://www.news.example/story/new", at, 1); p.Next.Sub(at) <= DefaultInitial {
		t.Errorf("new page of the quiet site: first revisit after %v, want later than Initial (%v)", p.Next.Sub(at), DefaultInitial)
	}
}

// A restarted crawl keeps what the sites' pages showed: after ExportSitePriors, a trip
// through JSON (the store) and ImportSitePriors, a new page of the quiet site waits
// what the budget affords, as it would have without the restart; a policy that
// starts afresh refetches it after Initial, blind. A damaged state is skipped.
func TestSitePriorsSurviveARestart(t *testing.T) {
	pol, _, at := siteScenario(t, DefaultBudget)
	data, err := json.Marshal(pol.ExportSitePriors())
	if err != nil {
		t.Fatal(err)
	}
	var plans map[string][]SitePriorState
	if err := json.Unmarshal(data, &plans); err != nil {
		t.Fatal(err)
	}
	weights := func(ws ...float32) []byte {
		b := make([]byte, 4*rateGridN)
		for k := range rateGridN {
			binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(ws[k%len(ws)]))
		}
		return b
	}
	plans[""] = append(plans[""],
		SitePriorState{Site: "damaged.example", W: make([]byte, 12), N: 9},            // not the grid
		SitePriorState{Site: "zero.example", W: weights(0), N: 9},                     // no weight
		SitePriorState{Site: "negative.example", W: weights(1, 1, -1), N: 9},          // not a share
		SitePriorState{Site: "nan.example", W: weights(1, float32(math.NaN())), N: 9}) // not a number
	firstOf := func(p Policy) time.Duration {
		tr, err := NewTracker(Config{}, p)
		if err != nil {
			t.Fatal(err)
		}
		pg := &Page{URL: "https://www.news.example/story/after-restart", Class: ClassCom}
		tr.Observe(pg, at, Outcome{Hash: 1, OK: true})
		return pg.Next.Sub(at)
	}
	fresh := func() *EstimatorPolicy {
		p, err := NewEstimatorPolicy(EstimatorOptions{Budget: DefaultBudget})
		if err != nil {
			t.Fatal(err)
		}
		// The running price a restarted crawl has from its stored pages (Restore).
		p.Restore(&Page{Class: ClassCom, Freq: DefaultBudget, Price: pol.Price()})
		return p
	}
	restored := fresh()
	if skipped := restored.ImportSitePriors(plans); skipped != 4 {
		t.Errorf("%d states skipped, want the 4 damaged ones", skipped)
	}
	if got := firstOf(fresh()); got != DefaultInitial {
		t.Fatalf("a policy started afresh plans the first revisit %v after: want Initial (%v), or the test shows nothing", got, DefaultInitial)
	}
	if got := firstOf(restored); got < 24*time.Hour {
		t.Errorf("after the restart the quiet site's new page is refetched after %v, want at least a day (what its pages showed)", got)
	}
	if got := firstOf(pol); got < 24*time.Hour {
		t.Errorf("without the restart: %v, want at least a day", got)
	}
	// Class plans: each plan's sites go back to it.
	cp := NewClassPolicy(fresh(), map[string]*EstimatorPolicy{ClassCom: fresh()})
	if skipped := cp.ImportSitePriors(map[string][]SitePriorState{ClassCom: plans[""][:len(plans[""])-4]}); skipped != 0 {
		t.Errorf("class plans: %d skipped", skipped)
	}
	if got := cp.ExportSitePriors()[ClassCom]; len(got) != len(plans[""])-4 {
		t.Errorf("class plan %s holds %d sites after import, want %d", ClassCom, len(got), len(plans[""])-4)
	}
}
