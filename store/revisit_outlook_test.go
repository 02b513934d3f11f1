package store

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Each page keeps its expected freshness and age and whether the budget
// follows it. A store written before (schema 4) reads as "no estimate"; an
// estimate that is not a number is kept as none rather than failing the write or
// poisoning the sums; the console lists the pages not followed from an index.
func TestRevisitOutlookColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db := oldDB(t, path, 4)
	if _, err := db.Exec(`INSERT INTO revisit(url, class, next, freq, price) VALUES('http://old.test/', 'web_com', 5, 0.2, 1.5)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := reopen(t, path)
	if r, err := s.Revisit("http://old.test/"); err != nil || r.Fresh != -1 || r.Behind || r.Freq != 0.2 {
		t.Fatalf("a row from schema 4: %+v %v, want fresh -1 (no estimate), not behind", r, err)
	}

	rows := []struct {
		url          string
		fresh, age   float64
		behind       bool
		next         time.Time
		wantFresh    float64
		wantAge      float64
		listAsBehind bool
	}{
		{"http://a.test/1", 0.42, 2.5, true, time.Unix(100, 0), 0.42, 2.5, true},
		{"http://a.test/0", 0.9, 0.1, false, time.Unix(50, 0), 0.9, 0.1, false},
		{"http://a.test/2", math.NaN(), math.Inf(1), true, time.Unix(70, 0), -1, 0, true}, // kept as "no estimate"
		{"http://a.test/3", 0.05, 40, true, never, 0.05, 40, false},                       // retired: not listed
		{"http://b.test/0", 0.1, 9, true, time.Unix(10, 0), 0.1, 9, true},
	}
	var want []string
	for _, r := range rows {
		rv := testRevisit(r.url, r.next)
		rv.Fresh, rv.Age, rv.Behind = r.fresh, r.age, r.behind
		s.SaveRevisit(rv)
		if r.listAsBehind {
			want = append(want, r.url)
		}
	}
	mustFlush(t, s)
	for _, r := range rows {
		got, err := s.Revisit(r.url)
		if err != nil {
			t.Fatal(err)
		}
		if got.Fresh != r.wantFresh || got.Age != r.wantAge || got.Behind != r.behind {
			t.Errorf("%s: fresh %v age %v behind %v, want %v %v %v", r.url, got.Fresh, got.Age, got.Behind, r.wantFresh, r.wantAge, r.behind)
		}
	}
	slices.Sort(want)
	behind, err := s.BehindRevisits(10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range behind {
		got = append(got, r.URL)
		if len(r.Policy) == 0 {
			t.Errorf("%s listed without its policy state (the console reads its rate there)", r.URL)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("behind pages %v, want %v", got, want)
	}
	if two, _ := s.BehindRevisits(2); len(two) != 2 || two[0].URL != want[0] {
		t.Errorf("BehindRevisits(2) = %d rows", len(two))
	}
	var sum float64
	var n int
	err = s.EachRevisitSummary(func(r RevisitSummary) error {
		if r.Fresh >= 0 {
			sum += r.Fresh
			n++
		}
		return nil
	})
	if err != nil || n != 4 || math.Abs(sum-(0.42+0.9+0.05+0.1)) > 1e-12 {
		t.Errorf("summaries: %d estimates summing to %v (%v), want 4 summing to 1.47", n, sum, err)
	}
}
