package store

import (
	"testing"
	"time"
)

// The change signal is kept beside the revisit state: a change writes the replaced
// copy's main text (what `show URL` diffs), any other fetch leaves it; a fetch
// without a signal (a 304) leaves the row as it was.
func TestRevisitChangeKeepsTheReplacedMainText(t *testing.T) {
	s, _ := openTemp(t, Options{})
	u := testURL("a.test", 1)
	s.AddURLs([]URL{u}, nil)
	r := testRevisit(u.URL, time.Unix(1_700_003_600, 0))
	at := time.Unix(1_700_007_200, 0)
	steps := []struct {
		name     string
		change   *RevisitChange
		wantPrev string
	}{
		{"first fetch", &RevisitChange{Text: 1, Title: 2, Page: 3, ChangeDistance: -1, PrevText: "ignored"}, ""},
		{"a change", &RevisitChange{Text: 4, Title: 2, Page: 5, Reason: 1, ChangeAt: at, ChangeDistance: 3, ChangeReason: 1, PrevText: "Headline\nv1", Shift: true}, "Headline\nv1"},
		{"boilerplate moved", &RevisitChange{Text: 4, Title: 2, Page: 6, Reason: 3, ChangeAt: at, ChangeDistance: 3, ChangeReason: 1}, "Headline\nv1"},
		{"a 304", nil, "Headline\nv1"},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r.Change = st.change
			if i == 0 {
				p := testPage(u.URL, 100)
				p.Revisit = &r
				s.SavePage(p, nil, nil)
			} else {
				s.SaveRevisit(r)
			}
			mustFlush(t, s)
			got, err := s.Revisit(u.URL)
			if err != nil || got.Change == nil {
				t.Fatalf("Revisit: %v, change %v", err, got.Change)
			}
			if got.Change.PrevText != st.wantPrev {
				t.Fatalf("prev %q, want %q", got.Change.PrevText, st.wantPrev)
			}
		})
	}
	m, err := s.RevisitChanges([]string{u.URL, "http://a.test/none"})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := m[u.URL]
	if len(m) != 1 || !ok || c.Reason != 3 || c.ChangeDistance != 3 || c.ChangeReason != 1 || !c.ChangeAt.Equal(at) {
		t.Errorf("RevisitChanges = %+v", m)
	}
}

// A store written while the change signal and the page metadata had tables of their
// own (schema 10) opens with every page's signal, main text of the replaced copy
// included, and its metadata; a page without either still has none.
func TestSideTablesOfAnOlderStoreAreKept(t *testing.T) {
	s, path := openTemp(t, Options{})
	at := time.Unix(1_700_007_200, 0)
	want := RevisitChange{Text: 4, Title: 2, Page: 5, Fallback: true, Reason: 1, ChangeAt: at,
		ChangeDistance: 3, ChangeReason: 1, PrevText: "Headline\nv1", Shift: true}
	with, without := testRevisit("http://a.test/with", at), testRevisit("http://a.test/without", at)
	with.Change = &want
	s.SaveRevisit(with)
	s.SaveRevisit(without)
	meta := &PageMeta{Published: "2024-03-05", PublishedFrom: "json-ld", PublishedAt: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC),
		Headline: "Flood", HeadlineFrom: "og", Authors: []string{"A. One", "B. Two"}, AuthorsFrom: "meta"}
	withPage, withoutPage := testPage(with.URL, 100), testPage(without.URL, 100)
	withPage.Meta = meta
	s.SavePage(withPage, nil, nil)
	s.SavePage(withoutPage, nil, nil)
	mustFlush(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, q := range []string{beforeRevisitSeq, beforeCaptureSeq, beforePageRow, beforeFold, `PRAGMA user_version = 10`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM revisit_change`); n != 1 {
		t.Fatalf("the schema-10 store has %d change rows, want 1", n)
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM page_meta`); n != 1 {
		t.Fatalf("the schema-10 store has %d metadata rows, want 1", n)
	}
	db.Close()

	s = reopen(t, path)
	got, err := s.RevisitChange(with.URL)
	want.Shift = false // not stored: it only says whether PrevText is written
	if err == nil && got != nil && got.ChangeAt.Equal(want.ChangeAt) {
		got.ChangeAt = want.ChangeAt
	}
	if err != nil || got == nil || *got != want {
		t.Fatalf("change signal after the upgrade: %+v, %v; want %+v", got, err, want)
	}
	if got, err := s.RevisitChange(without.URL); got != nil || err != nil {
		t.Errorf("a page stored without a change signal has %+v, %v after the upgrade", got, err)
	}
	if r, err := s.Revisit(with.URL); err != nil || r.Change == nil || r.Change.PrevText != want.PrevText || r.X != with.X {
		t.Errorf("Revisit after the upgrade: %+v, %v", r, err)
	}
	m, err := s.PageMeta(with.URL)
	if err != nil || m == nil || m.Headline != "Flood" || m.Published != meta.Published || !m.PublishedAt.Equal(meta.PublishedAt) ||
		len(m.Authors) != 2 || m.Authors[1] != "B. Two" || m.AuthorsFrom != "meta" {
		t.Errorf("metadata after the upgrade: %+v, %v; want %+v", m, err, meta)
	}
	if m, err := s.PageMeta(without.URL); m != nil || err != nil {
		t.Errorf("a page stored without metadata has %+v, %v after the upgrade", m, err)
	}
}
