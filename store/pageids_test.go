package store

import (
	"bytes"
	"testing"
	"time"
)

// A first page's row id is chosen by the writer and recorded in its URL's row before
// the insert. Whatever the batch (pages of known and unknown URLs, a replacement, a
// page saved twice, an op that fails and makes the batch replay, a store reopened),
// every processed URL's row names a page row of the same URL holding its own body.
func TestPageRowsFollowTheirURLsThroughReplaysAndReopens(t *testing.T) {
	path := poisonedPath(t)
	bodies := map[string][]byte{}
	save := func(s *Store, u string, n int, replace bool, links []URL) {
		p := testPage(u, n)
		bodies[u] = p.Body
		if replace {
			s.ReplacePage(p, links, nil)
		} else {
			s.SavePage(p, links, nil)
		}
	}
	for round := range 2 { // the second on the reopened store
		s, err := Open(path, Options{BatchSize: 10_000, BatchDelay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		known := []URL{testURL("a.test", 10*round+1), testURL("a.test", 10*round+2), testURL("a.test", 10*round+3)}
		s.AddURLs(known, nil)
		save(s, known[0].URL, 300, false, nil)
		save(s, "http://seed.test/"+string(rune('a'+round)), 400, false, nil)  // unknown to the store
		save(s, known[1].URL, 500, false, []URL{{URL: "http://poison.test/"}}) // fails: the batch replays
		delete(bodies, known[1].URL)
		save(s, known[2].URL, 600, true, nil)  // a replacement of a page never stored
		save(s, known[0].URL, 700, false, nil) // stored already: the first copy stays
		bodies[known[0].URL] = testPage(known[0].URL, 300).Body
		if err := s.Flush(); err == nil {
			t.Fatal("Flush: want the poisoned insert's error")
		}
		s.Close()
	}
	s := reopen(t, path)
	for u, want := range bodies {
		p, err := s.Page(u)
		if err != nil || !bytes.Equal(p.Body, want) || p.URL != u {
			t.Errorf("page of %s: %q, %v; want its own body", u, p.URL, err)
		}
	}
	db := rawDB(t, path)
	if n := queryInt(t, db, `SELECT COUNT(*) FROM urls u LEFT JOIN pages p ON p.id = u.page
		WHERE u.state = 2 AND (p.id IS NULL OR p.url != u.url)`); n != 0 {
		t.Errorf("%d processed URLs name no page row of their own", n)
	}
	if n, want := queryInt(t, db, `SELECT COUNT(*) FROM pages`), int64(len(bodies)); n != want {
		t.Errorf("%d page rows, want %d (one per saved URL)", n, want)
	}
}
