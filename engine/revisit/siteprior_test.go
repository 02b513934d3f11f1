package revisit

import (
	"fmt"
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
