package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/store"
)

// `:keyword rm` and `:site rm` withdraw the searches already queued — on the lane
// board, or spilled to the store when the queue outgrew its memory: once the
// command is acknowledged none is fetched but the one the social host's lane may
// hold in hand, every other is counted as skipped (steered_out) and ends so in the
// store, and the pages stored before are kept.
func TestSteerRmWithdrawsQueuedSearches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		command string
		pages   int  // search result pages per keyword
		memory  int  // Options.QueueMemory
		spilled bool // some searches wait in the store, not in memory, when the command comes
	}{
		{"keyword rm, searches on the board", "keyword rm chirp flood", 40, 200_000, false},
		{"site rm, searches on the board", "site rm chirp", 40, 200_000, false},
		{"keyword rm, searches spilled to the store", "keyword rm chirp flood", 160, 100, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newTopicWeb(t)
			o := topicOptions(t, w)
			o.Sites[1].Pages = c.pages
			o.QueueMemory = c.memory
			o.Lanes.DelayMin, o.Lanes.DelayMax = 15*time.Millisecond, 25*time.Millisecond
			e := startEngine(t, o)
			searches := func() map[string]int { return w.fetched("/search?q=flood&") }
			waitFor(t, "the first searches fetched", func() bool { return len(searches()) >= 3 })
			e.mu.Lock()
			spilled := e.fr.Spilled()
			e.mu.Unlock()
			if spilled != c.spilled {
				t.Fatalf("searches spilled to the store: %v, want %v (the case tests the wrong queue)", spilled, c.spilled)
			}
			s, err := steer.Parse(strings.Fields(c.command))
			if err != nil {
				t.Fatal(err)
			}
			msg, err := e.Steer(s)
			if err != nil {
				t.Fatal(err)
			}
			acked := searches()
			waitDone(t, e, 60*time.Second)
			after := searches()
			var late []string
			for uri := range after {
				if acked[uri] == 0 {
					late = append(late, uri)
				}
			}
			if len(late) > 1 { // one lane holds the social host: one search at most was in its hand
				t.Errorf("%d searches fetched after %q was acknowledged (%q), e.g. %v", len(late), c.command, msg, late[:min(len(late), 4)])
			}
			want := int64(c.pages - len(after))
			if got := skippedAs(e, front.SkipSteeredOut); got != want {
				t.Errorf("%d searches counted as skipped (%s), want %d: the %d never fetched (message %q)", got, front.SkipSteeredOut, want, want, msg)
			}
			if !strings.Contains(msg, "withdrawn") {
				t.Errorf("message %q does not say what was withdrawn", msg)
			}
			e.Close()
			withStore(t, o.DB, func(st *store.Store) {
				for p := 1; p <= c.pages; p++ {
					u, _ := frontier.Normalize(fmt.Sprintf("http://%s/search?q=flood&page=%d", w.social, p))
					row, err := st.URLState(u)
					if err != nil {
						t.Fatalf("%s: %v", u, err)
					}
					_, fetched := after[fmt.Sprintf("/search?q=flood&page=%d", p)]
					_, _, perr := st.PageValidators(u)
					switch {
					case fetched && (row.State != store.Processed || perr != nil):
						t.Errorf("%s was fetched: state %v, page %v; want processed with its page kept", u, row.State, perr)
					case !fetched && (row.State != store.Failed || row.ErrKind != front.SkipSteeredOut):
						t.Errorf("%s never fetched: state %v kind %q, want failed, %s", u, row.State, row.ErrKind, front.SkipSteeredOut)
					}
				}
			})
		})
	}
}

// A keyword removed in an earlier run stays removed for the searches that run left
// queued in the store (the crawl stopped before it reached them): at the restart they
// are withdrawn when the steering log is replayed, never fetched, and counted as
// skipped (steered_out).
func TestSteerRmWithdrawsSearchesResumedAfterRestart(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	const pages = 60
	o.Sites[1].Pages = pages
	o.Lanes.DelayMin, o.Lanes.DelayMax = 15*time.Millisecond, 25*time.Millisecond
	searches := func() int { return len(w.fetched("/search?q=flood&")) }
	e := startEngine(t, o)
	waitFor(t, "the first searches fetched", func() bool { return searches() >= 3 })
	e.Pause()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	before := searches()
	if before >= pages {
		t.Fatalf("every search fetched before the stop: nothing left queued to test")
	}
	// The earlier run's steering log: the keyword was removed (the command was
	// acknowledged, then the crawl stopped before its queued searches came up).
	queued := 0 // left queued by the first run (a search in flight at the stop is among them)
	withStore(t, o.DB, func(st *store.Store) {
		for p := 1; p <= pages; p++ {
			u, _ := frontier.Normalize(fmt.Sprintf("http://%s/search?q=flood&page=%d", w.social, p))
			if row, err := st.URLState(u); err == nil && row.State == store.Unprocessed {
				queued++
			}
		}
		if queued == 0 {
			t.Fatal("no search left queued by the first run: nothing to test")
		}
		log, _ := json.Marshal([]steer.Change{{Op: steer.KeywordRm, Site: "chirp", Keywords: []string{"flood"}, At: time.Now()}})
		st.SetMeta(steer.Meta, log)
	})

	// The restarted run is told apart by its User-Agent, not by counting the server's
	// hits before and after: a search the first run had sent when it was closed may
	// reach the server later (its lane gave up on it, the request was already on
	// the wire), and it is no fetch of the second run.
	o.UserAgent = "crawlconsole/0.1 (restarted run)"
	e2 := startEngine(t, o)
	waitDone(t, e2, 30*time.Second)
	if late := w.fetchedBy(o.UserAgent, "/search?q=flood&"); len(late) > 0 {
		t.Errorf("%d searches of the removed keyword fetched after the restart: %v", len(late), late)
	}
	if got, want := skippedAs(e2, front.SkipSteeredOut), int64(queued); got != want {
		t.Errorf("%d searches counted as skipped (%s) after the restart, want %d (those the first run left queued)", got, front.SkipSteeredOut, want)
	}
}

// Board.Withdraw takes the selected tasks off the lanes and the pending queue and
// lets go of what they held, so a later task of their host opens or joins a lane by
// the M1 rule as if they had never been queued.
func TestBoardWithdraw(t *testing.T) {
	t.Parallel()
	b := lanes.NewBoard(1, nil)
	mk := func(u, host string) frontier.Task { return frontier.Task{URL: u, Host: host} }
	for _, tk := range []frontier.Task{mk("http://a/1", "a"), mk("http://a/2", "a"), mk("http://s/q=x", "s"), mk("http://a/3", "a")} {
		b.Add(tk) // lanes.max 1: s waits pending
	}
	drop := map[string]bool{"http://a/2": true, "http://s/q=x": true}
	got := b.Withdraw(func(tk frontier.Task) bool { return drop[tk.URL] })
	if len(got) != 2 {
		t.Fatalf("withdrew %v, want a/2 (lane) and s (pending)", got)
	}
	if b.Queued() != 2 || b.Pending() != 0 || b.Holds("s") {
		t.Fatalf("after withdraw: queued %d pending %d holds s %v; want 2, 0, false", b.Queued(), b.Pending(), b.Holds("s"))
	}
	l, _ := b.Lane(1)
	for _, want := range []string{"http://a/1", "http://a/3"} {
		tk, ok, _ := b.Next(l)
		if !ok || tk.URL != want {
			t.Fatalf("next %v %v, want %s", tk.URL, ok, want)
		}
	}
}

// A keyword removed and added back is searched again in full: its withdrawn searches
// (never fetched, ended steered_out) are queued again at once.
func TestSteerKeywordAddedBackQueuesWithdrawnSearches(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	const pages = 40
	o.Sites[1].Pages = pages
	o.Lanes.DelayMin, o.Lanes.DelayMax = 5*time.Millisecond, 10*time.Millisecond
	searched := func() int { return len(w.fetched("/search?q=flood&")) }
	e := startEngine(t, o)
	waitFor(t, "the first searches fetched", func() bool { return searched() >= 3 })
	for _, line := range []string{"keyword rm chirp flood", "keyword add chirp flood"} {
		s, _ := steer.Parse(strings.Fields(line))
		if _, err := e.Steer(s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	if skippedAs(e, front.SkipSteeredOut) == 0 {
		t.Fatal("nothing withdrawn by the keyword rm: the test checks nothing")
	}
	waitFor(t, "every search page of the keyword added back fetched", func() bool { return searched() == pages })
}

// A keyword removed right after it was added, while its searches are still on their
// way into the queue (the store has not confirmed their insert yet), has them
// withdrawn as they arrive: at most the one a lane took at once is fetched, and the
// others are counted as skipped.
func TestSteerKeywordRemovedWhileItsSearchesAreBeingQueued(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	const pages = 30
	o.Sites[1].Pages = pages
	o.Lanes.DelayMin, o.Lanes.DelayMax = 15*time.Millisecond, 25*time.Millisecond
	e := startEngine(t, o)
	waitFor(t, "the crawl under way", func() bool { return e.Snapshot().Totals.PagesStored >= 3 })
	for _, line := range []string{"keyword add chirp zeppelin", "keyword rm chirp zeppelin"} {
		s, _ := steer.Parse(strings.Fields(line))
		if _, err := e.Steer(s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	// What a lane fetched between the two commands is the operator's to expect
	// (on a loaded box the second one can come a few searches later); after the
	// removal returned, at most the one a lane had on the wire may still arrive.
	atRemoval := len(w.fetched("/search?q=zeppelin&"))
	waitDone(t, e, 30*time.Second)
	fetched := len(w.fetched("/search?q=zeppelin&"))
	if after := fetched - atRemoval; after > 1 {
		t.Errorf("%d searches of the removed keyword fetched after its removal returned (%d before)", after, atRemoval)
	}
	if got, want := skippedAs(e, front.SkipSteeredOut), int64(pages-fetched); got != want {
		t.Errorf("%d searches counted as skipped (%s), want %d", got, front.SkipSteeredOut, want)
	}
}

// A task withdrawn (:keyword rm) while a lane holds it unsent is dropped, not given
// back, when an operator's task takes its slot: given back, it would be fetched later
// although its keyword is gone. An ordinary task is given back behind the operator's.
func TestSwapDropsAWithdrawnTaskInHand(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 1, 3, 0)
	for _, withdrawn := range []bool{false, true} {
		t.Run(fmt.Sprintf("withdrawn=%v", withdrawn), func(t *testing.T) {
			o := testOptions(t, w)
			e, err := New(o) // not started: the test plays the lane
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			host := w.hosts[0]
			e.mu.Lock()
			l := e.lanes.Board.Add(frontier.Task{URL: "http://" + host + "/p/1", Host: host}).Lane
			ls := lanes.NewSlot(l)
			inHand, _, _ := e.lanes.Board.Next(l)
			if withdrawn {
				e.fr.MarkOut(map[string]uint64{inHand.URL: 0})
			}
			e.lanes.Board.AddFirst(frontier.Task{URL: "http://" + host + "/p/2", Host: host})
			swapped, dropped := e.lanes.SwapForUrgent(ls, inHand)
			if !swapped {
				t.Fatal("no swap for the operator's task")
			}
			var next []string
			for {
				tk, ok, _ := e.lanes.Board.Next(l)
				if !ok {
					break
				}
				next = append(next, tk.URL)
			}
			e.mu.Unlock()
			want := []string{"http://" + host + "/p/2", "http://" + host + "/p/1"}
			if withdrawn {
				want = want[:1]
			}
			if fmt.Sprint(next) != fmt.Sprint(want) || dropped != withdrawn {
				t.Fatalf("lane fetches %v next (dropped %v), want %v (dropped %v)", next, dropped, want, withdrawn)
			}
		})
	}
}
