package main

// The SimHash index's cost for the "stories" bench: lookup CPU per page and
// memory per page at scale, against a linear scan over the same fingerprints.

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"

	"github.com/crawlconsole/crawlconsole/engine/stories"
)

// indexCost fills an index and a book with n random fingerprints (and URLs) and
// measures them; r draws the fingerprints.
func indexCost(n int, r *rand.Rand) map[string]any {
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	queries := make([]uint64, 20000) // near-duplicates of held fingerprints, 0..3 bits off
	for i := range queries {
		q := fps[r.IntN(n)]
		for _, b := range r.Perm(64)[:r.IntN(stories.MaxDistance+1)] {
			q ^= 1 << b
		}
		queries[i] = q
	}

	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	h0 := heap()
	var x stories.Index
	cpu0 := threadCPU()
	for i, fp := range fps {
		x.Add(fp, uint32(i))
	}
	addCPU := threadCPU() - cpu0
	h1 := heap()
	indexBytes := float64(h1-h0) / float64(n)

	found := 0
	cpu0 = threadCPU()
	for _, q := range queries {
		if _, _, ok := x.Nearest(q); ok {
			found++
		}
	}
	lookupNs := float64((threadCPU() - cpu0).Nanoseconds()) / float64(len(queries))

	// The linear scan compares a query with every fingerprint: a few hundred are enough
	// to time it.
	scanQ := queries[:200]
	cpu0 = threadCPU()
	hits := 0
	for _, q := range scanQ {
		for _, fp := range fps {
			if bits.OnesCount64(fp^q) <= stories.MaxDistance {
				hits++
				break
			}
		}
	}
	scanNs := float64((threadCPU() - cpu0).Nanoseconds()) / float64(len(scanQ))
	runtime.KeepAlive(&x)

	// The book adds the story of each page: its URL, times and a story number.
	x = stories.Index{}
	h2 := heap()
	b := stories.NewBook()
	for i, fp := range fps {
		b.Add(stories.Page{URL: fmt.Sprintf("https://site-%d.example/news/%d", i%5000, i), SimHash: fp})
	}
	h3 := heap()
	bookBytes := float64(h3-h2) / float64(n)
	runtime.KeepAlive(b)

	fmt.Printf("index at %d fingerprints: lookup %.2f µs CPU (linear scan %.0f µs, %.0f× faster), add %.2f µs, %.0f bytes/page; "+
		"with the stories book (URL, times, story of each page): %.0f bytes/page; %d of %d near-duplicates found\n",
		n, lookupNs/1000, scanNs/1000, scanNs/lookupNs, float64(addCPU.Nanoseconds())/float64(n)/1000, indexBytes, bookBytes, found, len(queries))
	return map[string]any{
		"synthetic_fingerprints":      n,
		"lookup_us_per_page":          round3(lookupNs / 1000),
		"linear_scan_us_per_page":     round3(scanNs / 1000),
		"add_us_per_page":             round3(float64(addCPU.Nanoseconds()) / float64(n) / 1000),
		"index_bytes_per_page":        round3(indexBytes),
		"book_bytes_per_page":         round3(bookBytes),
		"near_duplicates_found_share": round3(float64(found) / float64(len(queries))),
	}
}
