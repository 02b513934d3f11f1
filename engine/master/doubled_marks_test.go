package master

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// marksFront is the crawl port's part that the revisit marks see (crawlport.go):
// a hand-out takes the mark, a hand-back puts it back, a doubled drop lets it go.
type marksFront struct{ m front.Marks }

func (f *marksFront) Admit(*frontier.Task) bool       { return true }
func (f *marksFront) HandedOut(t frontier.Task)       { f.m.Taken(t.URL) }
func (f *marksFront) Dropped(t frontier.Task)         { f.m.Dropped(t.URL) }
func (f *marksFront) Fetched(frontier.Task)           {}
func (f *marksFront) HandedBack(t frontier.Task) bool { f.m.HandedBack(t.URL); return true }

// A revisit queued while its URL's earlier hand-out is out is dropped by Dispatch
// (one hand-out per URL); its mark goes with it. Left waiting, the report of the
// hand-out out would not end it (Ended needs the mark in a hand): Pending stayed 1,
// the crawl never read idle and the URL could never be marked again.
func TestDoubledRevisitLetsItsMarkGo(t *testing.T) {
	t.Parallel()
	f := &marksFront{}
	tb := New(f, nil, 100)
	tb.addNode("w1")
	page := frontier.Task{URL: "http://www.a.test/1", Host: "www.a.test"}
	tb.Add(page)
	out := tb.Dispatch(10)[0].Tasks[0] // its first fetch, out
	f.m.Mark(page.URL)                 // its revisit, queued (Requeue: Mark, then Place)
	f.m.Placed(page.URL)
	tb.Add(page)
	if b := tb.Dispatch(10); len(b) != 0 {
		t.Fatalf("dealt %+v", b)
	}
	if !tb.Settle("w1", out, true) {
		t.Fatal("late")
	}
	revisit := f.m.Ended(page.URL) // what the master's report does (RevisitEnded)
	if revisit || f.m.Len() != 0 || f.m.Pending() != 0 || tb.Stats().Doubled != 1 {
		t.Fatalf("after the drop (doubled %d) and the report (a revisit: %v): %d marks, %d pending; want 1, false, none",
			tb.Stats().Doubled, revisit, f.m.Len(), f.m.Pending())
	}
	if !f.m.Mark(page.URL) {
		t.Fatal("the page cannot be queued for a revisit again")
	}
}

// A first fetch queued again while its revisit (the marked task) is out is dropped
// without touching the mark: the hand-out out holds it, and its report ends it.
func TestDoubledTaskLeavesAMarkInHand(t *testing.T) {
	t.Parallel()
	f := &marksFront{}
	tb := New(f, nil, 100)
	tb.addNode("w1")
	page := frontier.Task{URL: "http://www.a.test/1", Host: "www.a.test"}
	f.m.Mark(page.URL)
	f.m.Placed(page.URL)
	tb.Add(page)
	out := tb.Dispatch(10)[0].Tasks[0] // the revisit, out with its mark
	tb.Add(page)
	if b := tb.Dispatch(10); len(b) != 0 {
		t.Fatalf("dealt %+v", b)
	}
	if f.m.Len() != 1 || f.m.Pending() != 1 {
		t.Fatalf("after the drop: %d marks, %d pending; want the revisit's, in hand", f.m.Len(), f.m.Pending())
	}
	if !tb.Settle("w1", out, true) || !f.m.Ended(page.URL) {
		t.Fatal("the revisit's report did not end its mark")
	}
	if f.m.Len() != 0 || f.m.Pending() != 0 {
		t.Fatalf("after the report: %d marks, %d pending; want none", f.m.Len(), f.m.Pending())
	}
}
