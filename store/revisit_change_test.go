package store

import (
	"testing"
	"time"
)

// The change signal is kept beside the revisit state: on a change the last main text
// becomes the previous one (what `show URL` diffs), otherwise the previous one stays;
// a fetch without a signal (a 304) leaves the row as it was.
func TestRevisitChangeKeepsTheLastTwoMainTexts(t *testing.T) {
	s, _ := openTemp(t, Options{})
	u := testURL("a.test", 1)
	s.AddURLs([]URL{u}, nil)
	r := testRevisit(u.URL, time.Unix(1_700_003_600, 0))
	at := time.Unix(1_700_007_200, 0)
	steps := []struct {
		name     string
		change   *RevisitChange
		wantMain string
		wantPrev string
	}{
		{"first fetch", &RevisitChange{Text: 1, Title: 2, Page: 3, MainText: "Headline\nv1", ChangeDistance: -1}, "Headline\nv1", ""},
		{"a change", &RevisitChange{Text: 4, Title: 2, Page: 5, Reason: 1, ChangeAt: at, ChangeDistance: 3, ChangeReason: 1, MainText: "Headline\nv2", Shift: true}, "Headline\nv2", "Headline\nv1"},
		{"boilerplate moved", &RevisitChange{Text: 4, Title: 2, Page: 6, Reason: 3, ChangeAt: at, ChangeDistance: 3, ChangeReason: 1, MainText: "Headline\nv2"}, "Headline\nv2", "Headline\nv1"},
		{"a 304", nil, "Headline\nv2", "Headline\nv1"},
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
			if got.Change.MainText != st.wantMain || got.Change.PrevText != st.wantPrev {
				t.Fatalf("main %q prev %q, want %q and %q", got.Change.MainText, got.Change.PrevText, st.wantMain, st.wantPrev)
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
