package revisit

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/page/pagetest"
)

// parkDue parks the pages a tick read, as the engine's queue write does
// (store.QueueRevisits), and returns their URLs.
func parkDue(st *MemStore, due []Entry) []string {
	urls := make([]string, len(due))
	for i, e := range due {
		st.Set(e.URL, Never)
		urls[i] = e.URL
	}
	return urls
}

// M2 step 3: a tick takes the first m by ascending next and hands back those due;
// once the caller has parked them, the next tick never hands out the same page
// again and moves on to the pages still due.
func TestSchedulerTick(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		pages   int           // page i has next = t0 + i minutes
		batch   int           // m
		now     time.Duration // tick time
		wantLen int           // pages requeued by the first tick
	}{
		{"all due, batch limits", 2500, 1000, 3000 * time.Minute, 1000},
		{"some due", 2500, 1000, 299 * time.Minute, 300},
		{"none due", 50, 1000, -time.Minute, 0},
		{"due exactly now", 10, 1000, 4 * time.Minute, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := NewMemStore()
			rng := rand.New(rand.NewSource(1))
			for _, i := range rng.Perm(c.pages) { // insertion order must not matter
				st.Set(fmt.Sprintf("https://h%d.example.com/p%d", i%7, i), t0.Add(time.Duration(i)*time.Minute))
			}
			s, err := NewScheduler(st, c.batch)
			if err != nil {
				t.Fatal(err)
			}
			now := t0.Add(c.now)
			due, err := s.Due(now)
			if err != nil {
				t.Fatal(err)
			}
			if len(due) != c.wantLen {
				t.Fatalf("requeued %d, want %d", len(due), c.wantLen)
			}
			for k, e := range due {
				var i int
				fmt.Sscanf(e.URL[len("https://h0.example.com/p"):], "%d", &i)
				if i != k {
					t.Fatalf("requeue[%d] = %s, want page %d (ascending next)", k, e.URL, k)
				}
				if want := t0.Add(time.Duration(i) * time.Minute); !e.Next.Equal(want) {
					t.Fatalf("%s: read at next %v, want %v", e.URL, e.Next, want)
				}
			}
			// Ticking again at the same time, once the caller parked what it queued,
			// never returns a page twice; it moves on to the next due pages, if any.
			seen := map[string]bool{}
			for _, u := range parkDue(st, due) {
				seen[u] = true
			}
			for round := 0; round < 5; round++ {
				more, err := s.Due(now)
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range parkDue(st, more) {
					if seen[u] {
						t.Fatalf("%s requeued twice", u)
					}
					seen[u] = true
				}
			}
			due2 := 0
			for i := 0; i < c.pages; i++ {
				if !t0.Add(time.Duration(i) * time.Minute).After(now) {
					due2++
				}
			}
			if len(seen) != due2 {
				t.Errorf("after 6 ticks %d pages requeued, want all %d due", len(seen), due2)
			}
		})
	}
}

// A refetched page gets a real next again and comes back on a later tick.
func TestSchedulerRequeuesAfterRefetch(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	st := NewMemStore()
	s, _ := NewScheduler(st, 0)
	tr, _ := NewTracker(Config{Initial: time.Hour}, nil)
	p := &Page{URL: "https://news.example.com/a"}
	tr.Observe(p, t0, Outcome{Hash: 1, OK: true})
	st.Set(p.URL, p.Next)
	if got, _ := s.Due(t0.Add(59 * time.Minute)); len(got) != 0 {
		t.Fatalf("requeued %v before it was due", got)
	}
	got, _ := s.Due(t0.Add(time.Hour))
	if urls := parkDue(st, got); !slices.Equal(urls, []string{p.URL}) {
		t.Fatalf("requeued %v at next, want the page", urls)
	}
	if got, _ := s.Due(t0.Add(89 * time.Minute)); len(got) != 0 {
		t.Fatalf("requeued %v while it waited in the queue, parked", got)
	}
	tr.Observe(p, t0.Add(90*time.Minute), Outcome{Hash: 1, OK: true}) // fetched from the queue
	st.Set(p.URL, p.Next)                                             // next = 1h30 + 1h30/1
	if got, _ := s.Due(t0.Add(179 * time.Minute)); len(got) != 0 {
		t.Fatalf("requeued %v before its new next", got)
	}
	if got, _ := s.Due(t0.Add(3 * time.Hour)); len(got) != 1 {
		t.Fatalf("requeued %v at its new next, want the page again", got)
	}
}

type failingStore struct{ dueErr error }

func (f failingStore) Due(int) ([]Entry, error) {
	return []Entry{{URL: "u", Next: time.Time{}}}, f.dueErr
}

func TestSchedulerReportsStoreErrors(t *testing.T) {
	boom := errors.New("disk full")
	s, _ := NewScheduler(failingStore{dueErr: boom}, 10)
	if got, err := s.Due(time.Now()); !errors.Is(err, boom) || len(got) != 0 {
		t.Errorf("Due = %v, %v; want nothing due and the store's error", got, err)
	}
	if _, err := NewScheduler(nil, 10); err == nil {
		t.Error("nil store accepted")
	}
	if _, err := NewScheduler(NewMemStore(), -1); err == nil {
		t.Error("negative batch accepted")
	}
}

// MemStore.Due is the first m by (next, url) whatever the insertion and update order.
func TestMemStoreDueOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	st := NewMemStore()
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	want := map[string]time.Time{}
	for i := 0; i < 5000; i++ {
		u := fmt.Sprintf("u%05d", rng.Intn(3000)) // repeats: updates in place
		next := t0.Add(time.Duration(rng.Intn(500)) * time.Second)
		st.Set(u, next)
		want[u] = next
	}
	for u := range want {
		if rng.Intn(10) == 0 {
			st.Remove(u)
			delete(want, u)
		}
	}
	if st.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", st.Len(), len(want))
	}
	all := make([]Entry, 0, len(want))
	for u, n := range want {
		all = append(all, Entry{URL: u, Next: n})
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].Next.Equal(all[j].Next) {
			return all[i].Next.Before(all[j].Next)
		}
		return all[i].URL < all[j].URL
	})
	for _, m := range []int{1, 17, 1000, len(all), len(all) + 10} {
		got, _ := st.Due(m)
		n := min(m, len(all))
		if len(got) != n {
			t.Fatalf("Due(%d) returned %d", m, len(got))
		}
		for i := range got {
			if got[i].URL != all[i].URL || !got[i].Next.Equal(all[i].Next) {
				t.Fatalf("Due(%d)[%d] = %v, want %v", m, i, got[i], all[i])
			}
		}
	}
}

// The tick stays cheap with a million pages: Due(m) must not touch them all.
func BenchmarkTickMillionPages(b *testing.B) {
	st := NewMemStore()
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 1_000_000; i++ {
		st.Set(fmt.Sprintf("https://h%d.example.com/%d", i%5000, i), t0.Add(time.Duration(rng.Int63n(int64(30*24*time.Hour)))))
	}
	s, _ := NewScheduler(st, DefaultBatch)
	now := t0
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(time.Minute)
		due, _ := s.Due(now)
		for _, e := range due { // refetched and rescheduled a day later
			st.Set(e.URL, now.Add(24*time.Hour))
		}
	}
}

// The pieces the engine shares between fetch goroutines — fingerprint cache, MemStore,
// EstimatorPolicy, Scheduler — hold up under concurrent use (run with -race).
func TestConcurrentUse(t *testing.T) {
	st := NewMemStore()
	pol, err := NewPolicy("", EstimatorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := NewTracker(Config{Initial: time.Hour}, pol)
	s, _ := NewScheduler(st, 100)
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	bodies := [][]byte{
		[]byte(pagetest.ArticlePage("A", pagetest.Articles["english"][0], pagetest.Churns[0])),
		[]byte(pagetest.ArticlePage("B", pagetest.Articles["chinese"][1], pagetest.Churns[1])),
	}
	done := make(chan struct{})
	go func() { // the scheduler ticks while pages are observed
		defer close(done)
		for i := 0; i < 200; i++ {
			due, err := s.Due(t0.Add(time.Duration(i) * time.Hour))
			if err != nil {
				t.Error(err)
				return
			}
			parkDue(st, due)
		}
	}()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				p := &Page{URL: fmt.Sprintf("https://h%d.example.com/%d", g, i)}
				for k := 0; k < 6; k++ {
					h, ok := page.Fingerprint(bodies[(i+k)%2], "text/html")
					tr.Observe(p, t0.Add(time.Duration(k)*time.Hour), Outcome{Hash: h, OK: ok})
					st.Set(p.URL, p.Next)
				}
			}
		}()
	}
	wg.Wait()
	<-done
	if st.Len() != 200 {
		t.Errorf("store holds %d pages, want 200", st.Len())
	}
}

// Due is the tick's read without its park: the pages due, in order, with the next
// each was read at, returned again by the next call until the caller parks them.
func TestSchedulerDueLeavesThePagesDue(t *testing.T) {
	st := NewMemStore()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st.Set("b", t0.Add(time.Minute))
	st.Set("a", t0)
	st.Set("later", t0.Add(time.Hour))
	s, _ := NewScheduler(st, 10)
	want := []Entry{{URL: "a", Next: t0}, {URL: "b", Next: t0.Add(time.Minute)}}
	for range 2 {
		got, err := s.Due(t0.Add(time.Minute))
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Due = %v, %v; want %v", got, err, want)
		}
	}
}
