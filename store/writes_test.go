package store

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAddURLsDedupesAndReportsInserted(t *testing.T) {
	a, b, c := testURL("a.test", 1), testURL("b.test", 2), testURL("c.test", 3)
	tests := []struct {
		name     string
		before   []URL   // committed first
		calls    [][]URL // then submitted together, in one batch
		inserted []bool  // expected per URL across calls, in order
		stored   int64
	}{
		{"all new", nil, [][]URL{{a, b, c}}, []bool{true, true, true}, 3},
		{"duplicate inside one call", nil, [][]URL{{a, b, a, a}}, []bool{true, true, false, false}, 2},
		{"duplicate across calls in one batch", nil, [][]URL{{a, b}, {b, c}}, []bool{true, true, false, true}, 3},
		{"already stored", []URL{a}, [][]URL{{a, b}}, []bool{false, true}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A batch that only Flush ends: every call lands in one transaction.
			s, _ := openTemp(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
			if tc.before != nil {
				s.AddURLs(tc.before, nil)
				mustFlush(t, s)
			}
			var log linkLog
			for _, urls := range tc.calls {
				s.AddURLs(urls, log.record)
			}
			mustFlush(t, s)
			if len(log.calls) != len(tc.inserted) {
				t.Fatalf("got %d results, want %d", len(log.calls), len(tc.inserted))
			}
			var lastSeq int64
			for i, c := range log.calls {
				if c.inserted != tc.inserted[i] {
					t.Errorf("result %d (%s): inserted=%v, want %v", i, c.url, c.inserted, tc.inserted[i])
				}
				switch {
				case c.inserted && c.seq <= lastSeq:
					t.Errorf("result %d: seq %d not above previous %d", i, c.seq, lastSeq)
				case !c.inserted && c.seq != 0:
					t.Errorf("result %d: known URL reported seq %d, want 0", i, c.seq)
				}
				if c.inserted {
					lastSeq = c.seq
					u, err := s.URLState(c.url)
					if err != nil || u.Seq != c.seq || u.State != Unprocessed {
						t.Errorf("stored %s: %+v, %v; want seq %d unprocessed", c.url, u, err, c.seq)
					}
				}
			}
			n, err := s.Counts()
			if err != nil {
				t.Fatal(err)
			}
			if n.URLs != tc.stored {
				t.Errorf("stored %d URLs, want %d", n.URLs, tc.stored)
			}
		})
	}
}

func TestURLFieldsRoundTrip(t *testing.T) {
	s, _ := openTemp(t, Options{})
	in := URL{URL: "http://x.test/a?b=1", Host: "x.test", ParentHash: 1<<64 - 1, Depth: 7,
		Class: "web_gov", Site: "x.test", Keyword: "flood", Lane: 5}
	s.AddURLs([]URL{in}, nil)
	mustFlush(t, s)
	got, err := s.URLState(in.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.ParentHash != in.ParentHash || got.Depth != 7 || got.Class != "web_gov" || got.Site != "x.test" ||
		got.Keyword != "flood" || got.Lane != 5 || got.Host != "x.test" || got.DiscoveredAt.IsZero() {
		t.Errorf("round trip: got %+v, want fields of %+v", got, in)
	}
}

func TestSetStateAndDeferInOrder(t *testing.T) {
	s, _ := openTemp(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	u := testURL("a.test", 1)
	s.AddURLs([]URL{u}, nil)
	s.SetState(u.URL, InProgress, 2, "")
	s.SetState(u.URL, Unprocessed, 2, "timeout")
	s.SetState(u.URL, InProgress, 4, "")
	s.SetState(u.URL, Failed, 4, "http_5xx")
	s.SetState("http://unknown.test/", InProgress, 1, "") // ignored, not an error
	mustFlush(t, s)
	got, err := s.URLState(u.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Failed || got.Attempts != 2 || got.Lane != 4 || got.ErrKind != "http_5xx" {
		t.Errorf("after two attempts: %+v; want failed, 2 attempts, lane 4, http_5xx", got)
	}
	until := time.Now().Add(time.Hour)
	s.Defer(u.URL, until)
	mustFlush(t, s)
	got, _ = s.URLState(u.URL)
	if got.State != Deferred || !got.DeferredUntil.Equal(until) {
		t.Errorf("deferred: state %v until %v; want deferred until %v", got.State, got.DeferredUntil, until)
	}
}

func TestSavePageStoresPageStateAndLinksTogether(t *testing.T) {
	s, _ := openTemp(t, Options{})
	u := testURL("a.test", 1)
	s.AddURLs([]URL{u}, nil)
	s.SetState(u.URL, InProgress, 3, "")
	p := testPage(u.URL, 6000)
	links := []URL{testURL("a.test", 2), testURL("b.test", 3), u, testURL("a.test", 2)}
	var log linkLog
	s.SavePage(p, links, log.record)
	mustFlush(t, s)

	got, err := s.Page(u.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Body, p.Body) {
		t.Errorf("body: got %d bytes, want the %d stored", len(got.Body), len(p.Body))
	}
	if !got.FetchedAt.Equal(p.FetchedAt) || got.Status != 200 || got.SimHash != p.SimHash ||
		got.Duration != p.Duration || got.FinalURL != p.FinalURL || got.Egress != p.Egress ||
		got.ETag != p.ETag || got.LastModified != p.LastModified || got.Bytes != int64(len(p.Body)) {
		t.Errorf("page fields: got %+v", got)
	}
	st, _ := s.URLState(u.URL)
	if st.State != Processed || st.Lane != 3 {
		t.Errorf("URL after SavePage: %+v; want processed on lane 3", st)
	}
	want := []bool{true, true, false, false}
	for i, c := range log.calls {
		if c.inserted != want[i] {
			t.Errorf("link %d %s: inserted=%v, want %v", i, c.url, c.inserted, want[i])
		}
	}
	c, _ := s.Counts()
	if c.Pages != 1 || c.URLs != 3 || c.Unprocessed != 2 || c.Processed != 1 {
		t.Errorf("counts %+v; want 1 page, 3 URLs (2 unprocessed, 1 processed)", c)
	}
	if c.BytesCompressed <= 0 || c.BytesCompressed*2 > c.BytesStored {
		t.Errorf("HTML stored in %d bytes for %d fetched; want at least 2x compression", c.BytesCompressed, c.BytesStored)
	}

	// Saving the same page again (a refetch after a crash) stores nothing twice and
	// keeps the first copy; ReplacePage (M2 revisit) overwrites it.
	p2 := p
	p2.Body = []byte("<html>changed</html>")
	s.SavePage(p2, nil, nil)
	mustFlush(t, s)
	if got, _ := s.Page(u.URL); !bytes.Equal(got.Body, p.Body) {
		t.Errorf("SavePage of a stored page replaced its body")
	}
	s.ReplacePage(p2, nil, nil)
	mustFlush(t, s)
	if got, _ := s.Page(u.URL); !bytes.Equal(got.Body, p2.Body) {
		t.Errorf("ReplacePage kept the old body %q", got.Body)
	}
	if c, _ := s.Counts(); c.Pages != 1 {
		t.Errorf("%d pages after saving one URL three times, want 1", c.Pages)
	}
}

func TestSavePageOfUnknownURLAddsIt(t *testing.T) {
	s, _ := openTemp(t, Options{})
	s.SavePage(testPage("http://seed.test/", 100), nil, nil)
	mustFlush(t, s)
	u, err := s.URLState("http://seed.test/")
	if err != nil || u.State != Processed || u.Host != "seed.test" {
		t.Errorf("seed saved without AddURLs: %+v, %v; want processed, host seed.test", u, err)
	}
}

// A failing operation is dropped on its own: its page, state change and links are
// all absent (one transaction), and the operations batched around it still commit.
func TestFailedSavePageIsAtomicAndSparesItsBatch(t *testing.T) {
	s, _ := openPoisoned(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	before, bad, after := testURL("a.test", 1), testURL("a.test", 2), testURL("a.test", 3)
	s.AddURLs([]URL{before, bad}, nil)
	s.SavePage(testPage(bad.URL, 500), []URL{testURL("new.test", 9), {URL: "http://poison.test/"}}, nil)
	s.SavePage(testPage(after.URL, 500), nil, nil)
	err := s.Flush()
	if err == nil || !strings.Contains(err.Error(), "poisoned") || !strings.Contains(err.Error(), "save page "+bad.URL) {
		t.Fatalf("Flush = %v; want the poisoned insert's error naming the page", err)
	}
	if !errors.Is(s.Err(), err) && s.Err().Error() != err.Error() {
		t.Errorf("Err() = %v, want the same first error", s.Err())
	}
	if _, err := s.Page(bad.URL); !errors.Is(err, ErrNotFound) {
		t.Errorf("page of the failed SavePage: %v; want ErrNotFound", err)
	}
	if u, _ := s.URLState(bad.URL); u.State != Unprocessed {
		t.Errorf("URL of the failed SavePage is %v; want unprocessed", u.State)
	}
	if _, err := s.URLState("http://new.test/p/9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("link of the failed SavePage: %v; want ErrNotFound", err)
	}
	if _, err := s.URLState(before.URL); err != nil {
		t.Errorf("op before the failure lost: %v", err)
	}
	if _, err := s.Page(after.URL); err != nil {
		t.Errorf("op after the failure lost: %v", err)
	}
}

func TestFlushIsABarrier(t *testing.T) {
	s, _ := openTemp(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	for i := 0; i < 100; i++ {
		s.AddURLs([]URL{testURL("a.test", i)}, nil)
	}
	// The batch is still open (no size or time trigger can fire), so readers see
	// nothing — and are not blocked by the open write transaction (WAL).
	if c, err := s.Counts(); err != nil || c.URLs != 0 {
		t.Fatalf("before Flush: %+v, %v; want 0 URLs visible and no error", c, err)
	}
	mustFlush(t, s)
	if c, _ := s.Counts(); c.URLs != 100 {
		t.Errorf("after Flush: %d URLs visible, want 100", c.URLs)
	}
}

func TestBatchCommitsOnSizeOrDelay(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"size", Options{BatchSize: 10, BatchDelay: time.Hour}},
		{"delay", Options{BatchSize: 10_000, BatchDelay: 5 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTemp(t, tc.opts)
			for i := 0; i < 10; i++ {
				s.AddURLs([]URL{testURL("a.test", i)}, nil)
			}
			waitFor(t, "10 URLs committed without Flush", 90*time.Second, func() bool {
				c, err := s.Counts()
				return err == nil && c.URLs == 10
			})
		})
	}
}

func TestWritesAfterCloseAreRecordedNotPanics(t *testing.T) {
	s, _ := openTemp(t, Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s.AddURLs([]URL{testURL("a.test", 1)}, nil)
	s.SavePage(testPage("http://a.test/", 10), nil, nil)
	if err := s.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	if !errors.Is(s.Err(), ErrClosed) {
		t.Errorf("Err after Close = %v, want ErrClosed", s.Err())
	}
}

func TestEventsArePrunedToTheNewest(t *testing.T) {
	s, _ := openTemp(t, Options{MaxEvents: 50, BatchSize: 64})
	base := time.Unix(1_700_000_000, 0)
	for i := 0; i < 300; i++ {
		s.AddEvent(base.Add(time.Duration(i)*time.Second), i%3, i%5, "h.test", "event "+strconv.Itoa(i))
	}
	mustFlush(t, s)
	all, err := s.RecentEvents(1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 50 {
		t.Fatalf("kept %d events, want the newest 50", len(all))
	}
	if all[0].Msg != "event 250" || all[49].Msg != "event 299" || !all[49].At.Equal(base.Add(299*time.Second)) {
		t.Errorf("kept %q..%q, want event 250..event 299 in order", all[0].Msg, all[49].Msg)
	}
	last3, _ := s.RecentEvents(3)
	if len(last3) != 3 || last3[2].Msg != "event 299" || last3[0].Msg != "event 297" {
		t.Errorf("RecentEvents(3) = %+v", last3)
	}
}

func TestMetaRoundTrip(t *testing.T) {
	s, _ := openTemp(t, Options{})
	if _, err := s.GetMeta("cursor"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing key: %v, want ErrNotFound", err)
	}
	v := []byte("v1")
	s.SetMeta("cursor", v)
	v[1] = '9' // the store copied it
	s.SetMeta("other", []byte{0, 1, 2})
	mustFlush(t, s)
	s.SetMeta("cursor", []byte("v2"))
	mustFlush(t, s)
	if got, err := s.GetMeta("cursor"); err != nil || string(got) != "v2" {
		t.Errorf("cursor = %q, %v; want v2", got, err)
	}
	if got, _ := s.GetMeta("other"); !bytes.Equal(got, []byte{0, 1, 2}) {
		t.Errorf("other = %v", got)
	}
}

func TestAfterCommitRunsOnlyOnceItsPredecessorsAreCommitted(t *testing.T) {
	s, _ := openTemp(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	s.SavePage(testPage("http://a.test/p/1", 200), nil, nil)
	ran := make(chan struct{})
	s.AfterCommit(func(err error) {
		if err != nil {
			t.Errorf("AfterCommit got %v after good writes", err)
		}
		close(ran)
	})
	select {
	case <-ran:
		t.Fatal("AfterCommit ran while its batch was still open")
	default:
	}
	mustFlush(t, s) // commits the batch: the callback runs before the barrier returns
	select {
	case <-ran:
	default:
		t.Fatal("AfterCommit did not run after the commit")
	}
	if _, err := s.Page("http://a.test/p/1"); err != nil {
		t.Errorf("page submitted before AfterCommit: %v", err)
	}
}

func TestAfterCommitReportsAFailedWriteBeforeIt(t *testing.T) {
	s, _ := openPoisoned(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	s.AddURLs([]URL{{URL: "http://poison.test/"}}, nil)
	var got error
	s.AfterCommit(func(err error) { got = err })
	if err := s.Flush(); err == nil {
		t.Fatal("Flush succeeded; want the poisoned insert's error")
	}
	if got == nil || !strings.Contains(got.Error(), "poisoned") {
		t.Errorf("AfterCommit got %v; want the failed write's error (the master must not ack it)", got)
	}
}

// A lane's InProgress mark and the page it saves write the URL's row once when they
// share a batch; what a reader sees is the same as when each is written alone: the
// attempt counted, the page's lane and state, and a mark committed alone (a crash
// before the page) still reads InProgress.
func TestInProgressMarkAndPageInOneBatch(t *testing.T) {
	s, _ := openTemp(t, Options{BatchSize: 10_000, BatchDelay: time.Hour})
	same, apart, alone := testURL("a.test", 1), testURL("a.test", 2), testURL("a.test", 3)
	s.AddURLs([]URL{same, apart, alone}, nil)
	mustFlush(t, s)

	s.SetState(same.URL, InProgress, 2, "")
	s.SavePage(testPage(same.URL, 3000), nil, nil)
	s.SetState(apart.URL, InProgress, 3, "")
	s.SetState(alone.URL, InProgress, 5, "")
	s.SetState(alone.URL, Unprocessed, 5, "timeout")
	s.SetState(alone.URL, InProgress, 6, "")
	mustFlush(t, s)
	if got, _ := s.URLState(alone.URL); got.State != InProgress || got.Attempts != 2 || got.Lane != 6 || got.ErrKind != "" {
		t.Errorf("a mark committed without its page: %+v; want in progress, 2 attempts, lane 6", got)
	}
	s.SavePage(testPage(apart.URL, 3000), nil, nil)
	mustFlush(t, s)
	for _, u := range []string{same.URL, apart.URL} {
		got, err := s.URLState(u)
		if err != nil {
			t.Fatal(err)
		}
		if lane := testPage(u, 1).Lane; got.State != Processed || got.Attempts != 1 || got.Lane != lane {
			t.Errorf("%s: %+v; want processed after 1 attempt, lane %d (the page's)", u, got, lane)
		}
	}
	if c, err := s.Counts(); err != nil || c.InProgress != 1 || c.Processed != 2 {
		t.Errorf("counts %+v, %v; want 1 in progress, 2 processed", c, err)
	}
}

// A host enabled again brings back the URLs it deferred, and only those still
// waiting: one fetched since it was set aside stays done, not queued again.
func TestUndeferTouchesOnlyURLsStillDeferred(t *testing.T) {
	s, _ := openTemp(t, Options{})
	waiting, fetched := testURL("a.test", 1), testURL("a.test", 2)
	s.AddURLs([]URL{waiting, fetched}, nil)
	later := time.Now().Add(time.Hour)
	s.Defer(waiting.URL, later)
	s.Defer(fetched.URL, later)
	s.SetState(fetched.URL, InProgress, 1, "")
	s.SavePage(testPage(fetched.URL, 3000), nil, nil)
	now := time.Now()
	s.Undefer(waiting.URL, now)
	s.Undefer(fetched.URL, now)
	mustFlush(t, s)
	got, err := s.URLState(waiting.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Deferred || got.DeferredUntil.After(now) {
		t.Errorf("the waiting URL: state %v until %v; want deferred and due by %v", got.State, got.DeferredUntil, now)
	}
	got, _ = s.URLState(fetched.URL)
	if got.State != Processed {
		t.Errorf("the URL fetched since it was deferred: state %v after the host came back; want it still processed", got.State)
	}
}

// A host enabled again gets back every URL of it still set aside with no kind kept,
// those an earlier run deferred included; another host's, and one waiting for its
// robots.txt, keep their time.
func TestUndeferHostBringsBackItsKindlessDeferrals(t *testing.T) {
	s, _ := openTemp(t, Options{})
	disabled, other, robots := testURL("a.test", 1), testURL("b.test", 1), testURL("a.test", 2)
	s.AddURLs([]URL{disabled, other, robots}, nil)
	later := time.Now().Add(2 * time.Hour)
	s.Defer(disabled.URL, later)
	s.Defer(other.URL, later)
	s.DeferAs(robots.URL, later, "robots_unreachable")
	now := time.Now()
	s.UndeferHost("a.test", now)
	mustFlush(t, s)
	for _, tc := range []struct {
		url string
		due bool
	}{{disabled.URL, true}, {other.URL, false}, {robots.URL, false}} {
		got, err := s.URLState(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != Deferred || got.DeferredUntil.After(now) != !tc.due {
			t.Errorf("%s: state %v until %v after a.test came back; want deferred, due now %v", tc.url, got.State, got.DeferredUntil, tc.due)
		}
	}
}
