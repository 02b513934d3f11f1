package store

import (
	"testing"
	"time"
)

// A round's results and cost rows survive a reopen; a page collected again in a
// later round keeps one row per keyword, stamped with the later round.
func TestSaveRoundKeepsResultsAndCostsAcrossReopen(t *testing.T) {
	s, path := openTemp(t, Options{})
	r1 := time.Unix(1000, 0)
	r2 := time.Unix(2000, 0)
	s.SaveRound(r1, []Result{
		{URL: "https://a.com/1", Site: "a", Keyword: "flood", Kind: "news", Host: "a.com", Cost: 30 * time.Millisecond, FetchedAt: r1.Add(-time.Second)},
		{URL: "https://a.com/1", Site: "a", Keyword: "storm", Kind: "news", Host: "a.com", Cost: 30 * time.Millisecond},
		{URL: "https://s.com/search?q=flood", Site: "s", Keyword: "flood", Kind: "search", Host: "s.com", Cost: 10 * time.Millisecond},
	}, []Cost{{Site: "a", Cost: time.Second, Pages: 4, Round: r1}, {Site: "s", Keyword: "flood", Cost: 2 * time.Second, Pages: 9, Round: r1}})
	s.SaveRound(r2, []Result{{URL: "https://a.com/1", Site: "a", Keyword: "flood", Kind: "news", Host: "a.com", Cost: 50 * time.Millisecond}},
		[]Cost{{Site: "a", Cost: 3 * time.Second, Pages: 5, Round: r2}})
	mustFlush(t, s)
	s.Close()
	s = reopen(t, path)
	res, err := s.Results()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("results %+v, want 3 rows", res)
	}
	flood := res[0]
	if flood.Keyword != "flood" || !flood.Round.Equal(r2) || flood.Cost != 50*time.Millisecond || res[1].Keyword != "storm" || !res[1].Round.Equal(r1) {
		t.Errorf("results %+v: the later round should update only its own row", res)
	}
	if res[2].Site != "s" || res[2].Kind != "search" {
		t.Errorf("social result %+v", res[2])
	}
	costs, err := s.Costs()
	if err != nil {
		t.Fatal(err)
	}
	if len(costs) != 2 || costs[0].Cost != 3*time.Second || costs[0].Pages != 5 || !costs[0].Round.Equal(r2) ||
		costs[1].Keyword != "flood" || costs[1].Cost != 2*time.Second {
		t.Errorf("costs %+v", costs)
	}
}
