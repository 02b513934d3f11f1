package frontier

import (
	"encoding/binary"
	"iter"
	"math"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/hashicorp/golang-lru/v2/simplelru"
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
// repeated on every page of a site) of a few hundred hosts in about 1.6 MB.
const DefaultLRUSize = 16384

// lruEntryBytes is what one LRU entry costs on the heap: the list entry (two links, list
// pointer, key, expiry time and bucket: 64 bytes) plus its share of the Go map (~36
// bytes: 16-byte slots in a table grown by doubling). Measured by the dedupe bench.
const lruEntryBytes = 100

// Dedupe is M4's link filter on the master: an LRU of recent URL hashes in front of a
// Bloom filter of every URL recorded. It keeps 8-byte hashes, never URL strings, so it
// costs about 1.25 bytes per URL at a 1% false-positive target. Safe for concurrent use.
type Dedupe struct {
	mu     sync.Mutex
	recent *simplelru.LRU[uint64, struct{}] // hash of recently recorded URLs
	seen   *bloom.BloomFilter               // every hash ever recorded or warmed

	expected uint
	target   float64

	// Counters, guarded by mu.
	checks, news, recents, maybes uint64
	warmed                        uint64 // hashes loaded by Warm/WarmHashes
	inserted                      uint64 // hashes that changed the filter: its fill
}

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
	recent, err := simplelru.NewLRU[uint64, struct{}](lruSize, nil)
	if err != nil { // only for size < 1, excluded above
		panic(err)
	}
	m, k := bloomSize(expectedURLs, fpRate)
	return &Dedupe{
		recent:   recent,
		seen:     bloom.New(m, k),
		expected: expectedURLs,
		target:   fpRate,
	}
}

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
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], h)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.checks++
	// One map lookup for both questions: Add moves a present hash to the front (a hit
	// stays recent) without evicting or growing; an absent one grows the LRU or evicts.
	before := d.recent.Len()
	if evicted := d.recent.Add(h, struct{}{}); !evicted && d.recent.Len() == before {
		d.recents++
		return Recent
	}
	if d.seen.TestAndAdd(key[:]) {
		d.maybes++
		return Maybe
	}
	d.news++
	d.inserted++
	return New
}

// Peek says what Check would answer, without recording url or touching any counter
// or the LRU's order.
func (d *Dedupe) Peek(url string) Verdict {
	h := Hash(url)
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], h)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.recent.Contains(h) {
		return Recent
	}
	if d.seen.Test(key[:]) {
		return Maybe
	}
	return New
}

// warmBatch is how many hashes Warm loads per lock, so Checks running during a long
// warm-up wait microseconds, not seconds.
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
		d.mu.Lock()
		for _, h := range batch[:n] {
			binary.LittleEndian.PutUint64(key[:], h)
			if !d.seen.TestAndAdd(key[:]) {
				d.inserted++
			}
			d.recent.Add(h, struct{}{})
		}
		d.warmed += uint64(n)
		d.mu.Unlock()
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
	Bytes             uint64  `json:"bytes"`               // heap estimate of filter plus LRU
}

// Stats returns the current counters and a memory estimate.
func (d *Dedupe) Stats() DedupeStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, k := d.seen.Cap(), d.seen.K()
	return DedupeStats{
		Checks: d.checks, New: d.news, Recent: d.recents, Maybe: d.maybes, Warmed: d.warmed,
		ExpectedURLs:      d.expected,
		TargetFPRate:      d.target,
		FalsePositiveRate: bloomRate(m, k, float64(d.inserted)),
		BloomBits:         m,
		BloomHashes:       k,
		LRULen:            d.recent.Len(),
		Bytes:             uint64((m+63)/64*8) + uint64(d.recent.Len())*lruEntryBytes,
	}
}
