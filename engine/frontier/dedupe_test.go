package frontier

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bits-and-blooms/bloom/v3"
)

func pageURL(site, n int) string {
	return fmt.Sprintf("http://site%d.example/articles/%d/story-%d.html?ref=home", site, n%97, n)
}

func TestDedupeVerdicts(t *testing.T) {
	a, b, c := pageURL(1, 1), pageURL(1, 2), pageURL(2, 3)
	cases := []struct {
		name    string
		lruSize int
		checks  []string
		want    []Verdict
	}{
		{"first sight is new, second is recent", 8, []string{a, a, a}, []Verdict{New, Recent, Recent}},
		{"distinct URLs are all new", 8, []string{a, b, c}, []Verdict{New, New, New}},
		// The LRU forgot a, the filter did not: only the store can tell now.
		{"evicted from LRU becomes maybe", 2, []string{a, b, c, a}, []Verdict{New, New, New, Maybe}},
		{"a maybe is recorded, so it is recent next", 2, []string{a, b, c, a, a}, []Verdict{New, New, New, Maybe, Recent}},
		// A Recent hit refreshes a, so c evicts b instead.
		{"a hit keeps a URL recent", 2, []string{a, b, a, c, a, b}, []Verdict{New, New, Recent, New, Recent, Maybe}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDedupe(1000, 1e-9, tc.lruSize)
			var got []Verdict
			for _, u := range tc.checks {
				got = append(got, d.Check(u))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("verdicts %v, want %v", got, tc.want)
			}
			st := d.Stats()
			if st.Checks != uint64(len(tc.checks)) || st.New+st.Recent+st.Maybe != st.Checks {
				t.Errorf("stats %+v do not add up to %d checks", st, len(tc.checks))
			}
		})
	}
}

// fillTinyFilter returns a Dedupe whose Bloom filter is saturated (every bit set) and a
// URL it has never been asked about, which the filter nevertheless claims to have seen.
func fillTinyFilter(t *testing.T) (*Dedupe, string) {
	t.Helper()
	d := NewDedupe(1, 0.5, 1) // a few bits: saturated after a handful of URLs
	for i := 0; i < 64; i++ {
		d.Check(pageURL(1, i))
	}
	if st := d.Stats(); st.BloomBits > 64 {
		t.Fatalf("filter has %d bits, want a tiny one", st.BloomBits)
	}
	fresh := pageURL(9, 12345)
	if d.Peek(fresh) != Maybe {
		t.Fatalf("a saturated filter does not claim %s: cannot force a false positive", fresh)
	}
	return d, fresh
}

func TestDedupeBloomFalsePositiveIsMaybeNeverRecent(t *testing.T) {
	d, fresh := fillTinyFilter(t)
	before := d.Stats()
	if v := d.Check(fresh); v != Maybe {
		t.Fatalf("a never-seen URL the filter wrongly claims got %v, want maybe (left to the store)", v)
	}
	if after := d.Stats(); after.Maybe != before.Maybe+1 || after.Recent != before.Recent {
		t.Errorf("stats went from %+v to %+v, want one more maybe and no more recent", before, after)
	}
}

// TestDedupeNeverLosesAURL plays the engine's side of the contract (package doc) against
// a fake store with a UNIQUE index, with a filter so small that most new URLs are false
// positives. Every distinct URL must end up queued exactly once, and nothing dropped as
// Recent may be missing from the store.
func TestDedupeNeverLosesAURL(t *testing.T) {
	const distinct = 3000
	rng := rand.New(rand.NewPCG(1, 2))
	var stream []string
	for i := 0; i < distinct; i++ {
		for r := 0; r <= i%4; r++ { // each URL one to four times
			stream = append(stream, pageURL(i%7, i))
		}
	}
	rng.Shuffle(len(stream), func(i, j int) { stream[i], stream[j] = stream[j], stream[i] })

	d := NewDedupe(100, 0.3, 64) // sized for 100 URLs: saturates early
	store := map[string]bool{}   // the UNIQUE index
	queued := map[string]int{}
	rescued := 0 // false positives the store caught
	for _, u := range stream {
		switch v := d.Check(u); v {
		case Recent:
			if !store[u] {
				t.Fatalf("%s dropped as recent but the store never had it", u)
			}
		case New, Maybe:
			if store[u] { // INSERT OR IGNORE: ignored
				continue
			}
			store[u] = true
			queued[u]++
			if v == Maybe {
				rescued++
			}
		}
	}
	if len(queued) != distinct {
		t.Errorf("%d URLs queued, want all %d distinct ones", len(queued), distinct)
	}
	for u, n := range queued {
		if n != 1 {
			t.Errorf("%s queued %d times", u, n)
		}
	}
	if rescued < distinct/2 {
		t.Errorf("only %d new URLs came back maybe: the filter was not saturated, the test proves little", rescued)
	}
	st := d.Stats()
	t.Logf("%d checks: %d new, %d recent, %d maybe (%d of them new URLs the store let in); %d queued",
		st.Checks, st.New, st.Recent, st.Maybe, rescued, len(queued))
}

func TestDedupeConcurrentChecksAgree(t *testing.T) {
	const urls, workers = 2000, 8
	for _, tc := range []struct {
		name     string
		expected uint
		lru      int
		shards   int
	}{
		{"one shard, Check", urls, 256, 1},
		{"sharded, Check", 1_000_000, DefaultLRUSize, 16},
		{"sharded, CheckBatch", 1_000_000, DefaultLRUSize, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDedupe(tc.expected, 1e-12, tc.lru)
			if got := d.Stats().Shards; got != tc.shards {
				t.Fatalf("%d shards, want %d", got, tc.shards)
			}
			batch := strings.HasSuffix(tc.name, "CheckBatch")
			counts := make([][3]int, urls) // per URL: New, Recent, Maybe
			var mu sync.Mutex
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					order := rand.New(rand.NewPCG(uint64(w), 7)).Perm(urls)
					local := make([][3]int, urls)
					if batch { // pages of 37 links
						for len(order) > 0 {
							page := order[:min(37, len(order))]
							order = order[len(page):]
							hs := make([]uint64, len(page))
							for j, i := range page {
								hs[j] = Hash(pageURL(i%5, i))
							}
							out := make([]Verdict, len(page))
							d.CheckBatch(hs, out)
							for j, i := range page {
								local[i][out[j]-New]++
							}
						}
					} else {
						for _, i := range order {
							local[i][d.Check(pageURL(i%5, i))-New]++
						}
					}
					mu.Lock()
					for i := range local {
						for v := range local[i] {
							counts[i][v] += local[i][v]
						}
					}
					mu.Unlock()
				}()
			}
			wg.Wait()
			for i, c := range counts {
				if c[0] != 1 {
					t.Fatalf("%s: %d new verdicts from %d workers, want exactly 1", pageURL(i%5, i), c[0], workers)
				}
			}
			st := d.Stats()
			if st.Checks != urls*workers || st.New != urls || st.New+st.Recent+st.Maybe != st.Checks {
				t.Errorf("stats %+v, want %d checks and %d new", st, urls*workers, urls)
			}
		})
	}
}

// TestDedupeCheckBatchIsTheLoop: CheckBatch must give exactly what CheckHash gives
// one hash after another — verdicts, counters and what the filter holds afterwards —
// including hashes repeated inside one batch, LRUs small enough to evict inside a
// batch, batches longer than a chunk, and several shards.
func TestDedupeCheckBatchIsTheLoop(t *testing.T) {
	for _, tc := range []struct {
		expected uint
		fp       float64
		lru      int
	}{
		{1000, 0.01, 2}, {1000, 0.3, 64}, {200_000, 0.01, DefaultLRUSize}, {200_000, 1e-9, 4096},
	} {
		t.Run(fmt.Sprintf("n=%d fp=%g lru=%d", tc.expected, tc.fp, tc.lru), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.lru), 3))
			pool := make([]uint64, 5000)
			for i := range pool {
				pool[i] = Hash(pageURL(i%9, i))
			}
			var stream []uint64
			for len(stream) < 40_000 {
				h := pool[rng.IntN(len(pool))]
				stream = append(stream, h)
				if rng.IntN(10) == 0 { // the same link twice on one page
					stream = append(stream, h)
				}
			}
			loop := NewDedupe(tc.expected, tc.fp, tc.lru)
			batched := NewDedupe(tc.expected, tc.fp, tc.lru)
			want := make([]Verdict, len(stream))
			for i, h := range stream {
				want[i] = loop.CheckHash(h)
			}
			got := make([]Verdict, len(stream))
			for i := 0; i < len(stream); {
				n := min(1+rng.IntN(600), len(stream)-i) // across batchChunk
				batched.CheckBatch(stream[i:i+n], got[i:i+n])
				i += n
			}
			for i := range stream {
				if got[i] != want[i] {
					t.Fatalf("check %d: CheckBatch says %v, the loop %v", i, got[i], want[i])
				}
			}
			if ls, bs := loop.Stats(), batched.Stats(); ls != bs {
				t.Errorf("stats differ:\nloop  %+v\nbatch %+v", ls, bs)
			}
			for i := 0; i < 20_000; i++ {
				u := pageURL(i%9, i)
				if a, b := loop.Peek(u), batched.Peek(u); a != b {
					t.Fatalf("afterwards %s: loop %v, batch %v", u, a, b)
				}
			}
			if s := loop.Stats(); s.Recent == 0 || s.New == 0 {
				t.Errorf("stats %+v: the stream exercised too little", s)
			}
		})
	}
}

func TestDedupeWarm(t *testing.T) {
	var known []string
	for i := 0; i < 5000; i++ {
		known = append(known, pageURL(i%3, i))
	}
	d := NewDedupe(10000, 1e-9, 1000)
	if n := d.Warm(slices.Values(known)); n != len(known) {
		t.Fatalf("Warm loaded %d, want %d", n, len(known))
	}
	for _, u := range known {
		if v := d.Check(u); v == New {
			t.Fatalf("%s was warmed but comes back new: it would be queued twice", u)
		}
	}
	if v := d.Check(pageURL(4, 99999)); v != New {
		t.Errorf("a URL never warmed is %v, want new", v)
	}
	st := d.Stats()
	if st.Warmed != uint64(len(known)) || st.New != 1 {
		t.Errorf("stats %+v, want %d warmed and 1 new", st, len(known))
	}
	// The last LRU-size URLs warmed are recent: the store holds them for sure.
	if v := d.Peek(known[len(known)-1]); v != Recent {
		t.Errorf("last warmed URL is %v, want recent", v)
	}
	// An iterator that stops early is respected.
	d2 := NewDedupe(10000, 0.01, 10)
	n := d2.WarmHashes(func(yield func(uint64) bool) {
		for i := uint64(1); i < 1e9; i++ {
			if i > 700 || !yield(i) {
				return
			}
		}
	})
	if n != 700 {
		t.Errorf("WarmHashes loaded %d, want 700", n)
	}
}

func TestDedupePeekRecordsNothing(t *testing.T) {
	d := NewDedupe(100, 0.01, 2)
	u := pageURL(1, 1)
	if d.Peek(u) != New || d.Peek(u) != New {
		t.Fatal("Peek recorded the URL")
	}
	if d.Check(u) != New {
		t.Fatal("Check after Peek is not new")
	}
	d.Check(pageURL(1, 2))
	d.Peek(u) // must not refresh u in the LRU
	d.Check(pageURL(1, 3))
	if v := d.Peek(u); v != Maybe {
		t.Errorf("after two newer URLs in a 2-entry LRU, u is %v, want maybe", v)
	}
	if st := d.Stats(); st.Checks != 3 {
		t.Errorf("Peek counted as a check: %+v", st)
	}
}

func TestDedupeSizing(t *testing.T) {
	for _, tc := range []struct {
		n uint
		p float64
	}{{1000, 0.01}, {10_000_000, 0.01}, {1_000_000, 0.001}, {50_000, 0.05}, {1e6, 1e-6}, {1, 0.5}} {
		t.Run(fmt.Sprintf("n=%d p=%g", tc.n, tc.p), func(t *testing.T) {
			m, k := bloomSize(tc.n, tc.p)
			if r := bloomRate(m, k, float64(tc.n)); r > tc.p*fpHeadroom {
				t.Errorf("m=%d k=%d: rate %.5f at %d URLs exceeds target %g", m, k, r, tc.n, tc.p)
			}
			// The least m any integer k allows, by bisection on the rate formula.
			least := ^uint(0)
			for k := uint(1); k <= 40; k++ {
				lo, hi := uint(1), uint(1)<<40
				for lo < hi {
					if mid := (lo + hi) / 2; bloomRate(mid, k, float64(tc.n)) <= tc.p*fpHeadroom {
						hi = mid
					} else {
						lo = mid + 1
					}
				}
				least = min(least, lo)
			}
			if float64(m) > float64(least)*(1+maxExtraBits)+1 {
				t.Errorf("m=%d is more than %.0f%% over the least possible %d", m, maxExtraBits*100, least)
			}
			_, ek := bloom.EstimateParameters(tc.n, tc.p*fpHeadroom)
			if k > ek {
				t.Errorf("k=%d probes, more than the textbook %d", k, ek)
			}
		})
	}
	if m, k := bloomSize(10_000_000, 0.01); k != 5 || m > 10_000_000*10 {
		t.Errorf("1%% at 10M URLs: m=%d k=%d, want 5 probes and at most 10 bits per URL", m, k)
	}
	st := NewDedupe(10_000_000, 0.01, DefaultLRUSize).Stats()
	// The filter's 1.25 bytes a URL and the LRU's 0.04, all of it made up front.
	if perURL := float64(st.Bytes) / 10e6; perURL > 1.3 {
		t.Errorf("empty 10M-URL dedupe estimates %.3f bytes/URL, want about 1.29", perURL)
	}
	if st.FalsePositiveRate != 0 || st.TargetFPRate != 0.01 {
		t.Errorf("empty filter stats %+v", st)
	}
}

// TestDedupeFalsePositiveRate measures the filter at its design load. The URLs are
// fixed, so the outcome is deterministic; the bound is still set 5 standard deviations
// over the 1% target, as if the hash were random (P(false failure) < 1e-6).
func TestDedupeFalsePositiveRate(t *testing.T) {
	n := 50_000
	if testing.Short() {
		n = 20_000
	}
	d := NewDedupe(uint(n), 0.01, 16)
	for i := 0; i < n; i++ {
		d.Check(pageURL(i%11, i))
	}
	fp := 0
	for i := 0; i < n; i++ {
		if d.Peek(fmt.Sprintf("http://never.example/%d", i)) != New {
			fp++
		}
	}
	rate := float64(fp) / float64(n)
	limit := 0.01 + 5*0.0995/float64(isqrt(n)) // sqrt(p(1-p)) = 0.0995
	if rate > limit {
		t.Errorf("false-positive rate %.4f at %d URLs, want <= %.4f (target 0.01)", rate, n, limit)
	}
	if est := d.Stats().FalsePositiveRate; est > 0.0095 || est < 0.009 {
		t.Errorf("Stats estimates rate %.5f at design load, want just under 0.0095", est)
	}
	t.Logf("measured false-positive rate %.4f over %d never-seen URLs", rate, n)
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{New: "new", Recent: "recent", Maybe: "maybe", 0: "invalid"} {
		if v.String() != want {
			t.Errorf("%d.String() = %q, want %q", v, v.String(), want)
		}
	}
}
