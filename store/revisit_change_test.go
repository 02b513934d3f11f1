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
