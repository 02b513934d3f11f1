package store

import (
	"math"
	"testing"
)

// A revisit state whose estimator figures are NaN is stored with them 0, as when
// the statements read an unbound value as 0: SQLite stores a NaN as NULL, which the
// NOT NULL freq and price columns refuse, and the whole batch (the page with it)
// would fail.
func TestRevisitStateWithNaNFiguresIsStored(t *testing.T) {
	s, _ := openTemp(t, Options{})
	p := testPage("http://a.test/", 100)
	p.Revisit = &Revisit{URL: p.URL, Class: "web_com", Freq: math.NaN(), Price: math.NaN(), Distance: -1}
	s.SavePage(p, nil, nil)
	s.SaveRevisit(Revisit{URL: "http://b.test/", Class: "web_com", Freq: math.NaN(), Price: math.NaN(), Distance: -1,
		Change: &RevisitChange{ChangeDistance: -1}})
	if err := s.Flush(); err != nil {
		t.Fatalf("a revisit state with NaN figures: %v", err)
	}
	for _, u := range []string{"http://a.test/", "http://b.test/"} {
		r, err := s.Revisit(u)
		if err != nil || r.Freq != 0 || r.Price != 0 {
			t.Errorf("%s: revisit state %+v, %v; want freq and price 0", u, r, err)
		}
	}
}
