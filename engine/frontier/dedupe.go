package frontier

import (
	"encoding/binary"
	"iter"
	"math"
	"math/bits"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"
)

// Verdict is what Dedupe knows about a URL it is asked about. See the package doc for
// what the engine must do with each.
type Verdict uint8

// The three dedupe verdicts, from most to least certain that the URL is new.
const (
	// New: neither the LRU nor the Bloom filter had it. Bloom filters have no false
	// negatives, so the URL was never recorded here: it is new for sure.
	New Verdict = iota + 1
	// Recent: the LRU of recent URLs holds it, so it was recorded here (and handed to the
	// store) before: a duplicate for sure, unless two URLs share a 64-bit hash.
	Recent
	// Maybe: the Bloom filter says seen, the LRU does not. Probably a duplicate, but it
	// may be a Bloom false positive: only the store can tell.
	Maybe
)

// String names the verdict for stats and logs.
func (v Verdict) String() string {
	switch v {
	case New:
		return "new"
	case Recent:
		return "recent"
	case Maybe:
		return "maybe"
	}
	return "invalid"
}

// DefaultLRUSize is a sensible LRU size: it holds the hot duplicates (navigation links
// repeated on every page of a site) of a few hundred hosts in about 0.4 MB.
const DefaultLRUSize = 16384

// Dedupe is M4's link filter on the master: an LRU of recent URL hashes in front of a
// Bloom filter of every URL recorded. It keeps 8-byte hashes, never URL strings, so it
// costs about 1.4 bytes per URL at a 1% false-positive target. Safe for concurrent use.
//
// It is split into shards by the top bits of the URL hash, each with its own lock, LRU
// (an equal share of the LRU size) and Bloom filter (sized for an equal share of the
// expected URLs): lanes extract links at the same time, and on one lock they would
// queue behind each other's cache misses. A URL always lands in the same shard, so its
// verdicts follow the same rules as with one LRU and one filter; only which hashes are
// evicted first, and which never-seen URLs collide in a filter, differ.
// Small LRUs (under 2·minShardLRU) keep one shard and so the exact LRU order.
type Dedupe struct {
	shards []dedupeShard
	shift  uint // hash >> shift is the shard index (64 with one shard: always 0)

	expected uint
	target   float64
}

// dedupeShard is one lock's worth of the filter. Padded so that two shards' locks and
// counters never share a cache line.
type dedupeShard struct {
	mu     sync.Mutex
	recent *recentHashes      // hash of recently recorded URLs
	seen   *bloom.BloomFilter // every hash ever recorded or warmed

	// Counters, guarded by mu.
	checks, news, recents, maybes uint64
	warmed                        uint64 // hashes loaded by Warm/WarmHashes
	inserted                      uint64 // hashes that changed the filter: its fill
	touch                         uint64 // CheckBatch's reads of the filter end here

	_ [64]byte
}

// maxShards caps the shard count: enough that lanes on a few cores rarely meet on one
// lock, few enough that each shard's filter holds many URLs (its fill, so its rate,
// stays close to the whole filter's).
const maxShards = 16

// minShardLRU is the least LRU share a shard gets: below it, recency would be judged on
// too few URLs per shard.
const minShardLRU = 512

// NewDedupe sizes the Bloom filter for expectedURLs at false-positive rate fpRate (at
// most fpRate once expectedURLs distinct URLs are in) and the LRU for lruSize hashes
// (DefaultLRUSize if < 1). fpRate is clamped to [1e-12, 0.5].
//
// Past expectedURLs the filter still works, its false-positive rate just rises (Stats
// reports it); more Maybe verdicts then cost store lookups, never lost URLs.
func NewDedupe(expectedURLs uint, fpRate float64, lruSize int) *Dedupe {
	if expectedURLs < 1 {
		expectedURLs = 1
	}
	fpRate = min(max(fpRate, 1e-12), 0.5)
	if lruSize < 1 {
		lruSize = DefaultLRUSize
	}
	n := 1
	for n < maxShards && lruSize/(2*n) >= minShardLRU && expectedURLs/uint(2*n) >= minShardLRU {
		n *= 2
	}
	d := &Dedupe{shards: make([]dedupeShard, n), shift: 64, expected: expectedURLs, target: fpRate}
	if n > 1 {
		d.shift = uint(64 - bits.TrailingZeros(uint(n)))
	}
	m, k := bloomSize((expectedURLs+uint(n)-1)/uint(n), fpRate)
	for i := range d.shards {
		d.shards[i].recent = newRecentHashes((lruSize + n - 1) / n)
		d.shards[i].seen = bloom.New(m, k)
	}
	return d
}

// shard is the shard that owns hash h.
func (d *Dedupe) shard(h uint64) *dedupeShard { return &d.shards[d.shardIndex(h)] }

// shardIndex is the index of the shard that owns hash h.
func (d *Dedupe) shardIndex(h uint64) int { return int(h >> d.shift & uint64(len(d.shards)-1)) }

// maxExtraBits is how much more memory than the minimum bloomSize may spend to cut
// the number of hash probes.
const maxExtraBits = 0.05

// fpHeadroom is the share of the target the filter is designed for at expectedURLs. A
// filter sized exactly at target measures above it about half the time (the rate of a
// real filter scatters around its expectation); 5% headroom costs about 1% more bits.
const fpHeadroom = 0.95

// bloomSize returns the bits m and hash functions k for n items at false-positive rate
// target, with fpHeadroom.
//
// It is bloom.NewWithEstimates's sizing, improved on two points. NewWithEstimates rounds
// k up from the real-valued optimum, which leaves the rate at n a hair over target
// (1.003% for 1%); here m is the exact minimum for each integer k, so the expected rate
// at n is within target (less fpHeadroom). And the optimum k (7 for 1%) spends 7 probes,
// each a likely cache miss in a filter of many megabytes, to save a few bits: the rate
// is flat near the optimum, so we take the fewest probes whose m is within maxExtraBits
// of the minimum: 5 probes instead of 7 for 2.7% more bits at 1%.
func bloomSize(n uint, target float64) (m, k uint) {
	p := target * fpHeadroom
	need := func(k uint) uint { // the least m with bloomRate(m, k, n) <= p
		m := uint(math.Ceil(-float64(k) * float64(n) / math.Log1p(-math.Pow(p, 1/float64(k)))))
		for bloomRate(m, k, float64(n)) > p { // guard against rounding in the closed form
			m += m/1000 + 1
		}
		return m
	}
	_, kOpt := bloom.EstimateParameters(n, p)
	best := need(kOpt)
	for k := max(kOpt, 2) - 1; k <= kOpt+2; k++ { // the integer optimum is next to kOpt
		best = min(best, need(k))
	}
	for k = 1; ; k++ {
		if m = need(k); float64(m) <= float64(best)*(1+maxExtraBits) {
			return m, k
		}
	}
}

// bloomRate is the expected false-positive rate of an m-bit, k-hash filter holding n
// distinct items: (1 - e^(-kn/m))^k.
func bloomRate(m, k uint, n float64) float64 {
	return math.Pow(1-math.Exp(-float64(k)*n/float64(m)), float64(k))
}

// Check records url (a normalized URL) and says whether it was seen before. Every URL
// that comes back New or Maybe must be handed to the store (INSERT OR IGNORE): from
// now on the LRU and the filter vouch for it having been recorded.
func (d *Dedupe) Check(url string) Verdict {
	return d.CheckHash(Hash(url))
}

// CheckHash is Check for a URL whose Hash the caller already has.
func (d *Dedupe) CheckHash(h uint64) Verdict {
	s := d.shard(h)
	s.mu.Lock()
	v := s.check(h)
	s.mu.Unlock()
	return v
}

// check is CheckHash inside the shard's lock.
func (s *dedupeShard) check(h uint64) Verdict {
	if s.recentHit(h) {
		return Recent
	}
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], h)
	return s.filtered(s.seen.TestAndAdd(key[:]))
}

// recentHit counts a check of h and records h in the LRU; true means h was there
// (Recent). One lookup for both: Add moves a present hash to the front (a hit stays
// recent); an absent one grows the LRU or takes the least recent one's place.
func (s *dedupeShard) recentHit(h uint64) bool {
	s.checks++
	if s.recent.Add(h) {
		s.recents++
		return true
	}
	return false
}

// filtered counts and returns the verdict for a hash the LRU did not hold, from
// whether the Bloom filter had it already.
func (s *dedupeShard) filtered(present bool) Verdict {
	if present {
		s.maybes++
		return Maybe
	}
	s.news++
	s.inserted++
	return New
}

// CheckBatch is CheckHash for each of hashes, in order, with the verdicts in out (which
// must be at least as long): the same verdicts, counters and filter state as the loop
// of CheckHash calls. It is that loop made faster for the links of one page. Per shard,
// it takes the lock once, settles the LRU for every hash first, then computes the Bloom
// locations of those the LRU does not hold (bloom.Locations, the filter's own
// hashing) and reads all their words before testing any: one miss per word, all in
// flight at once, where TestAndAdd waits for its k misses one hash after another. At
// 10M URLs the filter is far larger than the caches, and those waits are most of a
// check (go run ./bench dedupe compares the two).
func (d *Dedupe) CheckBatch(hashes []uint64, out []Verdict) {
	if len(out) < len(hashes) {
		panic("frontier: CheckBatch: out is shorter than hashes")
	}
	out = out[:len(hashes)]
	var order [batchChunk]int32
	var count [maxShards + 1]int
	for len(hashes) > 0 {
		n := min(len(hashes), batchChunk)
		// A stable counting sort of the chunk by shard: order lists the indices of
		// shard 0's hashes, then shard 1's, each in input order.
		clear(count[:])
		for _, h := range hashes[:n] {
			count[d.shardIndex(h)+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		next := count
		for i, h := range hashes[:n] {
			si := d.shardIndex(h)
			order[next[si]] = int32(i)
			next[si]++
		}
		for si := range d.shards {
			if idx := order[count[si]:count[si+1]]; len(idx) > 0 {
				s := &d.shards[si]
				s.mu.Lock()
				s.checkBatch(hashes, out, idx)
				s.mu.Unlock()
			}
		}
		hashes, out = hashes[n:], out[n:]
	}
}

// CheckURLs is CheckBatch for normalized URLs: a page's links, or the seeds.
func (d *Dedupe) CheckURLs(urls []string) []Verdict {
	hashes := make([]uint64, len(urls))
	for i, u := range urls {
		hashes[i] = Hash(u)
	}
	out := make([]Verdict, len(urls))
	d.CheckBatch(hashes, out)
	return out
}

// batchChunk is how many hashes CheckBatch sorts at a time (a page's links are
// usually fewer); maxBatchK the most Bloom probes its fast path keeps per hash.
const (
	batchChunk = 256
	maxBatchK  = 8
)

// checkBatch is CheckBatch for the hashes[i], i in idx (in order), inside the lock.
func (s *dedupeShard) checkBatch(hashes []uint64, out []Verdict, idx []int32) {
	k := s.seen.K()
	if k > maxBatchK { // a filter tuned for a tiny rate: not worth a fast path
		for _, i := range idx {
			out[i] = s.check(hashes[i])
		}
		return
	}
	// The LRU first, in order: a hash repeated in the batch is Recent the second time,
	// as in the loop.
	var need [batchChunk]int32
	nn := 0
	for _, i := range idx {
		if s.recentHit(hashes[i]) {
			out[i] = Recent
			continue
		}
		need[nn] = i
		nn++
	}
	idx = need[:nn]
	for len(idx) > 0 { // the rest of the group, probeChunk hashes at a time
		n := min(len(idx), probeChunk)
		s.probe(hashes, out, idx[:n], k)
		idx = idx[n:]
	}
}

// probeChunk is how many hashes probe handles at once: enough misses to fill the
// CPU's queue of outstanding loads, a small array to clear.
const probeChunk = 32

// probe is TestAndAdd for the hashes[i], i in idx (at most probeChunk), in order,
// with the filter's words read for all of them before any is tested.
func (s *dedupeShard) probe(hashes []uint64, out []Verdict, idx []int32, k uint) {
	m := uint64(s.seen.Cap())
	bs := s.seen.BitSet()
	words := bs.Words()
	var locs [probeChunk][maxBatchK]uint64
	var key [8]byte
	for j, i := range idx {
		binary.LittleEndian.PutUint64(key[:], hashes[i])
		for q, l := range bloom.Locations(key[:], k) {
			locs[j][q] = l % m
		}
	}
	// A tight loop of independent loads: the CPU keeps many misses in flight at once.
	var touch uint64
	for j := range idx {
		for _, l := range locs[j][:k] {
			touch ^= words[l>>6]
		}
	}
	s.touch ^= touch // keeps the reads from being optimised away
	// Test and set, in order, now from cache: TestAndAdd's outcome for each hash.
	for j, i := range idx {
		present := true
		for _, l := range locs[j][:k] {
			if !bs.Test(uint(l)) {
				present = false
				bs.Set(uint(l))
			}
		}
		out[i] = s.filtered(present)
	}
}

// Peek says what Check would answer, without recording url or touching any counter
// or the LRU's order.
func (d *Dedupe) Peek(url string) Verdict {
	h := Hash(url)
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], h)
	s := d.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recent.Contains(h) {
		return Recent
	}
	if s.seen.Test(key[:]) {
		return Maybe
	}
	return New
}

// warmBatch is how many hashes WarmHashes reads ahead before loading them, each under
// its shard's lock for one insert, so Checks running during a long warm-up never wait
// long.
const warmBatch = 512

// Warm pre-loads URLs the store already holds (normalized), after a restart, so they
// are not offered to the store again. The last ones loaded also fill the LRU, where
// they count as Recent: safe, since the store has them. It returns how many it loaded.
func (d *Dedupe) Warm(urls iter.Seq[string]) int {
	return d.WarmHashes(func(yield func(uint64) bool) {
		for u := range urls {
			if !yield(Hash(u)) {
				return
			}
		}
	})
}

// WarmHashes is Warm for a store that keeps each URL's Hash.
func (d *Dedupe) WarmHashes(hashes iter.Seq[uint64]) int {
	var batch [warmBatch]uint64
	n, total := 0, 0
	flush := func() {
		var key [8]byte
		for _, h := range batch[:n] {
			s := d.shard(h)
			binary.LittleEndian.PutUint64(key[:], h)
			s.mu.Lock()
			if !s.seen.TestAndAdd(key[:]) {
				s.inserted++
			}
			s.recent.Add(h)
			s.warmed++
			s.mu.Unlock()
		}
		total += n
		n = 0
	}
	for h := range hashes {
		batch[n] = h
		if n++; n == warmBatch {
			flush()
		}
	}
	flush()
	return total
}

// DedupeStats is a snapshot of the dedupe counters, for the console and --stats-json.
type DedupeStats struct {
	Checks uint64 `json:"checks"` // Check calls
	New    uint64 `json:"new"`    // verdicts New
	Recent uint64 `json:"recent"` // verdicts Recent (dropped without asking the store)
	Maybe  uint64 `json:"maybe"`  // verdicts Maybe (left to the store's unique index)
	Warmed uint64 `json:"warmed"` // URLs pre-loaded by Warm

	ExpectedURLs      uint    `json:"expected_urls"`       // what the Bloom filter was sized for
	TargetFPRate      float64 `json:"target_fp_rate"`      // its false-positive target at ExpectedURLs
	FalsePositiveRate float64 `json:"false_positive_rate"` // its expected false-positive rate at the current fill
	BloomBits         uint    `json:"bloom_bits"`          // filter size m
	BloomHashes       uint    `json:"bloom_hashes"`        // hash functions k
	LRULen            int     `json:"lru_len"`             // hashes now in the LRU
	Shards            int     `json:"shards"`              // lock shards the filter and LRU are split into
	Bytes             uint64  `json:"bytes"`               // heap estimate of filter plus LRU
}

// Stats returns the current counters and a memory estimate. The false-positive rate
// is the mean of the shards' rates: a never-seen URL is equally likely to land in any.
func (d *Dedupe) Stats() DedupeStats {
	st := DedupeStats{ExpectedURLs: d.expected, TargetFPRate: d.target}
	var fp float64
	for i := range d.shards {
		s := &d.shards[i]
		s.mu.Lock()
		m, k := s.seen.Cap(), s.seen.K()
		st.Checks += s.checks
		st.New += s.news
		st.Recent += s.recents
		st.Maybe += s.maybes
		st.Warmed += s.warmed
		fp += bloomRate(m, k, float64(s.inserted))
		st.BloomBits += m
		st.BloomHashes = k
		st.LRULen += s.recent.Len()
		st.Bytes += uint64((m+63)/64*8) + s.recent.bytes()
		s.mu.Unlock()
	}
	st.FalsePositiveRate = fp / float64(len(d.shards))
	st.Shards = len(d.shards)
	return st
}
