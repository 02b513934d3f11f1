package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// never is the scheduler's parking value (revisit.Never), far in the future.
var never = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

// testRevisit is a revisit state for url with every field set.
func testRevisit(url string, next time.Time) Revisit {
	first := time.Unix(1_700_000_000, 5)
	return Revisit{URL: url, Class: "web_gov", First: first, T: 90 * time.Minute, X: 3,
		Last: first.Add(90 * time.Minute), Next: next, Hash: 0xF00DFACE12345678, HasHash: true,
		Fetches: 7, Distance: 12, Freq: 0.25, Price: 3.5, Policy: []byte{1, 2, 3, 0, 255}}
}

// sameRevisit compares two states, times by instant.
func sameRevisit(a, b Revisit) bool {
	ta, tb := []time.Time{a.First, a.Last, a.Next}, []time.Time{b.First, b.Last, b.Next}
	for i := range ta {
		if !ta[i].Equal(tb[i]) {
			return false
		}
	}
	a.First, a.Last, a.Next, b.First, b.Last, b.Next = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if len(a.Policy) == 0 && len(b.Policy) == 0 {
		a.Policy, b.Policy = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

func TestRevisitStateRoundTripsWithThePage(t *testing.T) {
	s, _ := openTemp(t, Options{})
	u := testURL("a.test", 1)
	s.AddURLs([]URL{u}, nil)
	first := testRevisit(u.URL, time.Unix(1_700_003_600, 0))
	p := testPage(u.URL, 2000)
	p.Revisit = &first
	s.SavePage(p, nil, nil)
	mustFlush(t, s)

	tests := []struct {
		name  string
		write func(r Revisit)
		want  func(r Revisit) Revisit
	}{
		{"saved with the page", func(Revisit) {}, func(r Revisit) Revisit { return r }},
		{"replaced with the refetched page", func(r Revisit) {
			p2 := testPage(u.URL, 1000)
			p2.Revisit = &r
			s.ReplacePage(p2, nil, nil)
		}, func(r Revisit) Revisit {
			r.X, r.Fetches, r.Distance, r.Hash, r.Policy = 4, 8, 40, 0x0123456789ABCDEF, []byte("history")
			return r
		}},
		{"saved alone (a 304)", func(r Revisit) { s.SaveRevisit(r) }, func(r Revisit) Revisit {
			r.Fetches, r.Distance, r.HasHash, r.Freq, r.Price, r.Policy = 9, -1, false, 0, 0, nil
			r.Next = never
			return r
		}},
	}
	cur := first
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want(cur)
			tc.write(want)
			mustFlush(t, s)
			got, err := s.Revisit(u.URL)
			if err != nil {
				t.Fatal(err)
			}
			if !sameRevisit(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
			cur = want
		})
	}
	if c, _ := s.Counts(); c.Pages != 1 {
		t.Errorf("%d pages after a save and a replace, want 1", c.Pages)
	}
	if _, err := s.Revisit("http://a.test/nowhere"); !errors.Is(err, ErrNotFound) {
		t.Errorf("state of a page never fetched: %v, want ErrNotFound", err)
	}
}

// A page and its revisit state commit together or not at all.
func TestFailedSavePageLeavesNoRevisitState(t *testing.T) {
	s, _ := openPoisoned(t, Options{})
	u := testURL("a.test", 1)
	p := testPage(u.URL, 500)
	r := testRevisit(u.URL, time.Now())
	p.Revisit = &r
	s.SavePage(p, []URL{{URL: "http://poison.test/"}}, nil)
	if err := s.Flush(); err == nil {
		t.Fatal("the poisoned save did not fail")
	}
	if _, err := s.Revisit(u.URL); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revisit state of a page whose save failed: %v; want ErrNotFound", err)
	}
}

func TestDueRevisitsInNextOrder(t *testing.T) {
	s, _ := openTemp(t, Options{})
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Unix(1_750_000_000, 0)
	var all []DueRevisit
	for i := range 1500 {
		// Few distinct times, so ties (broken by URL) are common.
		next := base.Add(time.Duration(rng.IntN(300)) * time.Second)
		u := fmt.Sprintf("http://h%d.test/p/%d", rng.IntN(50), i)
		s.SaveRevisit(testRevisit(u, next))
		all = append(all, DueRevisit{URL: u, Next: next})
	}
	mustFlush(t, s)
	order := func(list []DueRevisit) {
		sort.Slice(list, func(i, j int) bool {
			if !list[i].Next.Equal(list[j].Next) {
				return list[i].Next.Before(list[j].Next)
			}
			return list[i].URL < list[j].URL
		})
	}
	order(all)
	check := func(t *testing.T, limit int) {
		t.Helper()
		got, err := s.DueRevisits(limit)
		if err != nil {
			t.Fatal(err)
		}
		want := all[:min(limit, len(all))]
		if len(got) != len(want) {
			t.Fatalf("DueRevisits(%d): %d entries, want %d", limit, len(got), len(want))
		}
		for i := range want {
			if got[i].URL != want[i].URL || !got[i].Next.Equal(want[i].Next) {
				t.Fatalf("DueRevisits(%d)[%d] = %v, want %v", limit, i, got[i], want[i])
			}
		}
	}
	for _, limit := range []int{1, 10, 1000, 5000} {
		t.Run(fmt.Sprintf("first %d", limit), func(t *testing.T) { check(t, limit) })
	}
	t.Run("parked pages go last", func(t *testing.T) {
		park := []string{all[0].URL, all[3].URL, "http://unknown.test/"}
		s.SetRevisitNext(park, never)
		mustFlush(t, s)
		var kept, parked []DueRevisit
		for _, d := range all {
			if d.URL == park[0] || d.URL == park[1] {
				parked = append(parked, DueRevisit{URL: d.URL, Next: never})
			} else {
				kept = append(kept, d)
			}
		}
		all = append(kept, parked...)
		order(all)
		check(t, 20)
		check(t, len(all))
		if _, err := s.Revisit("http://unknown.test/"); !errors.Is(err, ErrNotFound) {
			t.Errorf("SetRevisitNext created state for an unknown URL: %v", err)
		}
	})
	t.Run("console queue", func(t *testing.T) {
		q, err := s.RevisitQueue(50, never)
		if err != nil {
			t.Fatal(err)
		}
		if len(q) != 50 || q[0].URL != all[0].URL || q[49].URL != all[49].URL || q[0].Class != "web_gov" || q[0].X != 3 {
			t.Fatalf("RevisitQueue: %d rows, first %+v", len(q), q[0])
		}
		if q, _ := s.RevisitQueue(5000, never); len(q) != len(all)-2 {
			t.Fatalf("RevisitQueue before never: %d rows, want the %d not parked", len(q), len(all)-2)
		}
	})
}

// The scheduler's question must stay cheap with millions of pages: it must walk the
// index on next, never sort the table (the timing is in `go run ./bench revisitstore`).
func TestDueRevisitsReadsTheIndexWithoutSorting(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.SaveRevisit(testRevisit("http://a.test/", time.Now()))
	mustFlush(t, s)
	s.Close()
	db := rawDB(t, path)
	for _, q := range []string{
		`SELECT url, next FROM revisit INDEXED BY revisit_next ORDER BY next, url LIMIT 10`,
		`SELECT ` + revisitColumns + ` FROM revisit INDEXED BY revisit_next WHERE next < 5 ORDER BY next, url LIMIT 50`,
	} {
		rows, err := db.Query("EXPLAIN QUERY PLAN " + q)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, "revisit_next") || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("query plan %q: want a walk of revisit_next with no sort\n%s", p, q)
		}
		if strings.HasPrefix(q, "SELECT url, next") && !strings.Contains(p, "COVERING INDEX") {
			t.Errorf("query plan %q: the scheduler's query should read the index alone", p)
		}
	}
}

func TestBatchReadsSpanChunks(t *testing.T) {
	s, _ := openTemp(t, Options{})
	var urls, want []string
	var rows []URL
	for i := range 1234 {
		u := testURL(fmt.Sprintf("h%d.test", i%7), i)
		rows = append(rows, u)
		urls = append(urls, u.URL)
	}
	s.AddURLs(rows, nil) // revisit state is kept for URLs the store has
	for i, u := range urls {
		if i%2 == 0 {
			s.SaveRevisit(testRevisit(u, time.Unix(int64(i), 0)))
			want = append(want, u)
		}
	}
	p := testPage(urls[0], 500)
	s.SavePage(p, nil, nil)
	mustFlush(t, s)
	ask := append(slices.Clone(urls), "http://missing.test/")

	rs, err := s.Revisits(ask)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.URL)
		if len(r.Policy) == 0 || r.X != 3 {
			t.Fatalf("Revisits row %+v lacks its fields", r)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Revisits: %d rows, want %d", len(got), len(want))
	}
	us, err := s.URLStates(ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != len(urls) {
		t.Fatalf("URLStates: %d rows, want %d", len(us), len(urls))
	}
	byURL := map[string]URL{}
	for _, u := range rows {
		byURL[u.URL] = u
	}
	for _, u := range us {
		w := byURL[u.URL]
		if u.ParentHash != w.ParentHash || u.Depth != w.Depth || u.Host != w.Host || u.Seq == 0 {
			t.Fatalf("URLStates row %+v, want the fields of %+v", u, w)
		}
	}
	var each []RevisitSummary
	if err := s.EachRevisitSummary(func(r RevisitSummary) error { each = append(each, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(each) != len(want) {
		t.Fatalf("EachRevisitSummary visited %d pages, want %d", len(each), len(want))
	}
	r0 := testRevisit("", time.Time{})
	if w := (RevisitSummary{Class: r0.Class, T: r0.T, X: r0.X, Freq: r0.Freq, Price: r0.Price}); each[0] != w {
		t.Fatalf("EachRevisitSummary row %+v, want %+v", each[0], w)
	}
	stop := errors.New("enough")
	n := 0
	if err := s.EachRevisitSummary(func(RevisitSummary) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("EachRevisitSummary after fn's error: %v after %d calls; want it back after 1", err, n)
	}
	etag, lm, err := s.PageValidators(urls[0])
	if err != nil || etag != p.ETag || lm != p.LastModified {
		t.Fatalf("PageValidators = %q %q %v; want %q %q", etag, lm, err, p.ETag, p.LastModified)
	}
	if _, _, err := s.PageValidators(urls[1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PageValidators of a URL without a page: %v; want ErrNotFound", err)
	}
}

// A database written before revisit state existed (schema 1) opens with its data
// and gains the revisit table.
func TestSchemaOneDatabaseGainsRevisitState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db := oldDB(t, path, 1)
	if _, err := db.Exec(`INSERT INTO urls(url, state) VALUES('http://old.test/', 2)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := reopen(t, path)
	if u, err := s.URLState("http://old.test/"); err != nil || u.State != Processed {
		t.Fatalf("old URL after the upgrade: %+v %v", u, err)
	}
	s.SaveRevisit(testRevisit("http://old.test/", time.Now()))
	mustFlush(t, s)
	if _, err := s.Revisit("http://old.test/"); err != nil {
		t.Fatalf("revisit state in an upgraded database: %v", err)
	}
}

// A schema-17 store (revisit rows keyed by their URL's text) opens with every row as
// it was, each now under its URL's row id, one whose URL had no urls row included:
// the due order, the rows, the change signal and prev_text read back the same, and
// the due order's query still reads its index alone.
func TestSchema17StoreKeysRevisitByTheURLRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	db := oldDB(t, path, 17)
	base := time.Unix(1_800_000_000, 0)
	a, b, orphan := testRevisit("http://a.test/", base.Add(2*time.Hour)), testRevisit("http://b.test/", base), testRevisit("http://c.test/", base.Add(time.Hour))
	for _, u := range []string{b.URL, a.URL} {
		if _, err := db.Exec(`INSERT INTO urls(url, host, state) VALUES(?, 'h', 2)`, u); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range []Revisit{a, b, orphan} {
		if _, err := db.Exec(`INSERT INTO revisit(url, class, first, t, x, last, next, hash, has_hash, fetches,
			distance, freq, price, policy, has_change, text_digest, change_reason, prev_text)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, 1, ?, 2, ?)`, r.URL, r.Class, nanos(r.First), int64(r.T), r.X,
			nanos(r.Last), nanos(r.Next), int64(r.Hash), r.Fetches, r.Distance, r.Freq, r.Price, r.Policy,
			100+i, "before "+r.URL); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s := reopen(t, path)
	for i, want := range []Revisit{a, b, orphan} {
		got, err := s.Revisit(want.URL)
		got.Change, want.Fresh = nil, -1 // the signal is compared below; fresh's default is -1
		if err != nil || !sameRevisit(got, want) {
			t.Errorf("%s: %+v, %v; want %+v", want.URL, got, err, want)
		}
		c, err := s.RevisitChange(want.URL)
		if err != nil || c == nil || c.Text != uint64(100+i) || c.ChangeReason != 2 || c.PrevText != "before "+want.URL {
			t.Errorf("%s: change signal %+v, %v; want the one stored before", want.URL, c, err)
		}
	}
	due, err := s.DueRevisits(10)
	if err != nil || len(due) != 3 || due[0].URL != b.URL || due[1].URL != orphan.URL || due[2].URL != a.URL {
		t.Errorf("DueRevisits = %+v, %v; want b, c, a", due, err)
	}
	s.SetRevisitNext([]string{a.URL}, base.Add(-time.Hour))
	mustFlush(t, s)
	if due, _ := s.DueRevisits(1); len(due) != 1 || due[0].URL != a.URL {
		t.Errorf("after SetRevisitNext, DueRevisits(1) = %+v; want a", due)
	}
	if n := queryInt(t, s.rdb, `SELECT COUNT(*) FROM revisit r JOIN urls u ON u.seq = r.seq AND u.url = r.url`); n != 3 {
		t.Errorf("%d revisit rows under their URL's row id, want 3", n)
	}
}

// QueueRevisits parks the pages it queues and marks their URLs unprocessed in one
// transaction, only where next still holds the value read: a page whose fetch
// stored a new due time since keeps it and its URL's state. The pages it only parks
// (past their window) keep their URL's state.
func TestQueueRevisitsParksAndQueuesTogether(t *testing.T) {
	s, _ := openTemp(t, Options{})
	never := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	due := time.Unix(1_700_100_000, 0)
	fetched, queued, retired := testURL("a.test", 1), testURL("a.test", 2), testURL("a.test", 3)
	saveDuePages(t, s, due, fetched, queued, retired)
	stored := due.Add(time.Hour)
	s.SaveRevisit(testRevisit(fetched.URL, stored)) // the fetch's result, queued after the read
	got := s.QueueRevisits([]DueRevisit{{URL: fetched.URL, Next: due}, {URL: queued.URL, Next: due}},
		[]DueRevisit{{URL: retired.URL, Next: due}}, never)
	if !slices.Equal(got, []string{queued.URL}) {
		t.Errorf("queued %v; want only %s", got, queued.URL)
	}
	for _, c := range []struct {
		url   string
		next  time.Time
		state State
	}{
		{fetched.URL, stored, Processed},
		{queued.URL, never, Unprocessed},
		{retired.URL, never, Processed},
	} {
		r, err := s.Revisit(c.url)
		if err != nil || !r.Next.Equal(c.next) {
			t.Errorf("%s: next %v, %v; want %v", c.url, r.Next, err, c.next)
		}
		if u, err := s.URLState(c.url); err != nil || u.State != c.state {
			t.Errorf("%s: state %v, %v; want %v", c.url, u.State, err, c.state)
		}
	}

	s.QueueRevisitsNow([]string{fetched.URL}, never)
	mustFlush(t, s)
	if r, err := s.Revisit(fetched.URL); err != nil || !r.Next.Equal(never) {
		t.Errorf("queued now: next %v, %v; want %v", r.Next, err, never)
	}
	if u, err := s.URLState(fetched.URL); err != nil || u.State != Unprocessed {
		t.Errorf("queued now: state %v, %v; want unprocessed", u.State, err)
	}
}

// saveDuePages saves a page of 500 bytes for each of urls with its revisit state
// due at next, and waits for the write.
func saveDuePages(t *testing.T, s *Store, next time.Time, urls ...URL) {
	t.Helper()
	for _, u := range urls {
		p := testPage(u.URL, 500)
		r := testRevisit(u.URL, next)
		p.Revisit = &r
		s.SavePage(p, nil, nil)
	}
	mustFlush(t, s)
}
