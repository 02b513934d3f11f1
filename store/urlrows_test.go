package store

import (
	"testing"
	"time"
)

// A page whose URL the writer inserted earlier in the same process is stored
// against that URL's row; after a batch rolled back, the row ids its links were
// given go to other URLs, and a page of such a link is stored against its own new
// row, not the row id it held before the rollback.
func TestPageOfALinkInsertedBeforeARollbackFindsItsOwnRow(t *testing.T) {
	// The poisoned URL makes the op inserting it fail.
	s, path := openPoisoned(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	seed, kept, lost, other := testURL("a.test", 1), testURL("a.test", 2), testURL("a.test", 3), testURL("b.test", 4)
	s.AddURLs([]URL{seed}, nil)
	s.SavePage(testPage(seed.URL, 500), []URL{kept}, nil)
	// Inserts lost, then fails on the poisoned link: rolled back, lost's row id unused.
	s.SavePage(testPage(kept.URL, 500), []URL{lost, {URL: "http://poison.test/"}}, nil)
	s.AddURLs([]URL{other}, nil) // takes the row id lost had
	s.SavePage(testPage(lost.URL, 700), nil, nil)
	s.SavePage(testPage(kept.URL, 600), nil, nil)
	if err := s.Flush(); err == nil {
		t.Fatal("Flush = nil; want the poisoned insert's error")
	}
	for _, c := range []struct {
		url   string
		state State
		bytes int
	}{{seed.URL, Processed, 500}, {kept.URL, Processed, 600}, {lost.URL, Processed, 700}, {other.URL, Unprocessed, 0}} {
		u, err := s.URLState(c.url)
		if err != nil || u.State != c.state {
			t.Errorf("%s: state %v, %v; want %v", c.url, u.State, err, c.state)
		}
		p, err := s.Page(c.url)
		if c.bytes == 0 {
			if err == nil {
				t.Errorf("%s: a page stored (%d bytes); want none", c.url, len(p.Body))
			}
			continue
		}
		if want := testPage(c.url, c.bytes).Body; err != nil || string(p.Body) != string(want) {
			t.Errorf("%s: page of %d bytes, %v; want its own of %d bytes", c.url, len(p.Body), err, len(want))
		}
	}
	db := rawDB(t, path)
	defer db.Close()
	if n := queryInt(t, db, `SELECT COUNT(*) FROM pages p JOIN urls u ON u.page = p.id AND u.url = p.url`); n != 3 {
		t.Errorf("%d pages found from their own URL's row, want 3", n)
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM captures c JOIN urls u ON u.seq = c.seq AND u.url != c.url`); n != 0 {
		t.Errorf("%d captures under another URL's row", n)
	}
}
