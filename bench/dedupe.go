package main

// Benchmark "dedupe": M4's LRU+Bloom link filter (engine/frontier.Dedupe) at crawl scale,
// against the obvious alternative, a Go map[string]struct{} of every URL seen.
//
//	go run ./bench dedupe [-n 10000000] [-probe 1000000] [-map-n 1000000] [-lru 16384] [-fp 0.01] [-workers GOMAXPROCS] [-links 50]
//
// Every URL is generated on the fly from its index (realistic shapes over a few thousand
// hosts), so the benchmark never holds the URL set itself and the heap it measures is
// the structure's own.

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

func init() { register("dedupe", runDedupe) }

// dedupeBatch is how many URLs are generated ahead of a timed run of checks, so that
// string building is not timed, at most this many URL strings are alive at once, and
// they are still in cache when checked, as links just extracted from a page would be.
const dedupeBatch = 1 << 13

func runDedupe(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("dedupe", flag.ContinueOnError)
	n := fs.Int("n", 10_000_000, "distinct URLs checked into the dedupe")
	probe := fs.Int("probe", 1_000_000, "never-seen URLs the false-positive rate is measured on")
	mapN := fs.Int("map-n", 1_000_000, "URLs in the map[string]struct{} baseline")
	lruSize := fs.Int("lru", frontier.DefaultLRUSize, "LRU size (hashes)")
	fpRate := fs.Float64("fp", 0.01, "Bloom false-positive target at -n URLs")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines checking at once in the concurrent run (lanes)")
	linksPerPage := fs.Int("links", 50, "links per CheckBatch call (one page's links)")
	stop, err := parseProfiled(fs, args)
	if err != nil {
		return nil, err
	}
	defer stop()
	if *n < 1 || *probe < 1 || *mapN < 1 || *workers < 1 || *linksPerPage < 1 {
		return nil, fmt.Errorf("-n, -probe, -map-n, -workers and -links must be positive")
	}

	fmt.Printf("dedupe: %d distinct URLs, LRU %d, Bloom target %.3g, %d workers, GOMAXPROCS %d, %s, load average %s\n",
		*n, *lruSize, *fpRate, *workers, runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(1))
	fmt.Printf("sample URLs: %s\n             %s\n", dedupeURL(0), dedupeURL(1))

	batch := make([]string, dedupeBatch)

	// The dedupe: heap before, build by checking n distinct URLs from one goroutine,
	// heap after.
	before := dedupeLiveHeap()
	d := frontier.NewDedupe(uint(*n), *fpRate, *lruSize)
	var checkTime, checkCPU time.Duration
	var avgLen float64
	for start := 0; start < *n; start += dedupeBatch {
		k := dedupeFill(batch, uint64(start), min(dedupeBatch, *n-start))
		for _, u := range batch[:k] {
			avgLen += float64(len(u))
		}
		t0, c0 := time.Now(), crawlCPU()
		for _, u := range batch[:k] {
			d.Check(u)
		}
		checkTime += time.Since(t0)
		checkCPU += crawlCPU() - c0
	}
	clear(batch)
	after := dedupeLiveHeap()
	st := d.Stats()
	bytesPerURL := float64(after-before) / float64(*n)
	checksPerS1 := float64(*n) / checkTime.Seconds() // one Check at a time
	checksPerCPUS := float64(*n) / checkCPU.Seconds()
	avgLen /= float64(*n)

	// The same n URLs into fresh dedupes the way the engine checks them: a page's
	// links at a time (CheckBatch), from one goroutine, then from -workers goroutines
	// at once as lanes do.
	batch1, err := dedupeFillBatched(uint(*n), *fpRate, *lruSize, 1, *linksPerPage)
	if err != nil {
		return nil, err
	}
	par, err := dedupeFillBatched(uint(*n), *fpRate, *lruSize, *workers, *linksPerPage)
	if err != nil {
		return nil, err
	}

	// False positives: never-seen URLs (indices past n) that the filter claims. Peek
	// leaves the filter at exactly n URLs, the load it was sized for.
	fp := 0
	for start := 0; start < *probe; start += dedupeBatch {
		k := dedupeFill(batch, uint64(*n+start), min(dedupeBatch, *probe-start))
		for _, u := range batch[:k] {
			if d.Peek(u) != frontier.New {
				fp++
			}
		}
	}
	clear(batch)
	fpMeasured := float64(fp) / float64(*probe)
	runtime.KeepAlive(d)
	d = nil

	// Baseline: a map of URL strings, on map-n URLs, scaled per URL.
	before = dedupeLiveHeap()
	set := make(map[string]struct{})
	var mapTime time.Duration
	for start := 0; start < *mapN; start += dedupeBatch {
		k := dedupeFill(batch, uint64(start), min(dedupeBatch, *mapN-start))
		t0 := time.Now()
		for _, u := range batch[:k] {
			if _, ok := set[u]; !ok {
				set[u] = struct{}{}
			}
		}
		mapTime += time.Since(t0)
	}
	clear(batch)
	after = dedupeLiveHeap()
	bytesPerURLMap := float64(after-before) / float64(*mapN)
	mapChecksPerS := float64(*mapN) / mapTime.Seconds()
	runtime.KeepAlive(set)

	ratio := bytesPerURLMap / bytesPerURL
	fmt.Println()
	fmt.Printf("%-34s %14s %14s %8s\n", "figure", "measured", "goal", "met")
	row := func(name, val, goal string, ok bool) {
		met := "yes"
		if !ok {
			met = "NO"
		}
		if goal == "" {
			met = ""
		}
		fmt.Printf("%-34s %14s %14s %8s\n", name, val, goal, met)
	}
	row(fmt.Sprintf("checks/s (%d goroutines, CheckBatch)", *workers), fmt.Sprintf("%.0f", par), ">= 2000000", par >= 2e6)
	row("checks/s (1 goroutine, CheckBatch)", fmt.Sprintf("%.0f", batch1), "", true)
	row("checks/s (1 goroutine, Check)", fmt.Sprintf("%.0f", checksPerS1), "", true)
	row("  per CPU-second (process CPU time)", fmt.Sprintf("%.0f", checksPerCPUS), "", true)
	row("bytes per URL (live heap)", fmt.Sprintf("%.3f", bytesPerURL), "<= 1.5", bytesPerURL <= 1.5)
	row("false-positive rate", fmt.Sprintf("%.5f", fpMeasured), "<= 0.01", fpMeasured <= 0.01)
	row("  Stats estimate of that rate", fmt.Sprintf("%.5f", st.FalsePositiveRate), "", true)
	row("  Stats estimate of bytes per URL", fmt.Sprintf("%.3f", float64(st.Bytes)/float64(*n)), "", true)
	row("  Maybe verdicts while filling", fmt.Sprintf("%d", st.Maybe), "", true)
	row("map[string]struct{} bytes per URL", fmt.Sprintf("%.1f", bytesPerURLMap), "", true)
	row("map[string]struct{} checks/s", fmt.Sprintf("%.0f", mapChecksPerS), "", true)
	row("map bytes / dedupe bytes", fmt.Sprintf("%.1fx", ratio), "", true)
	row("dedupe Check/s / map checks/s", fmt.Sprintf("%.2fx", checksPerS1/mapChecksPerS), "", true)
	fmt.Printf("\nBloom: m=%d bits (%.2f MB), k=%d; average URL %.1f bytes; a map of all %d URLs would take ~%.0f MB, the dedupe takes %.1f MB\n",
		st.BloomBits, float64(st.BloomBits)/8/1e6, st.BloomHashes, avgLen, *n, bytesPerURLMap*float64(*n)/1e6, bytesPerURL*float64(*n)/1e6)
	fmt.Printf("The filter is split into %d lock shards. checks/s is the worst case: every URL is\n"+
		"new, so every check misses the LRU and touches k random words of the filter. The\n"+
		"headline is how the engine checks: a page's links (-links) per CheckBatch call, from\n"+
		"-workers goroutines at once as lanes do; the 1-goroutine runs are what one lane\n"+
		"alone gets, with CheckBatch and with one Check per URL. All are wall-clock time,\n"+
		"which on a shared box includes time a thread waited for a CPU: the per-CPU-second\n"+
		"figure (process CPU time over the 1-goroutine Check loops, GC included) is what the\n"+
		"structure costs. Map figures are on -map-n URLs, scaled per URL.\n", st.Shards)

	return map[string]any{
		"checks_per_s":        crawlRound(par, 0),
		"checks_per_s_1g":     crawlRound(batch1, 0),
		"check_per_s_1g":      crawlRound(checksPerS1, 0),
		"links_per_batch":     *linksPerPage,
		"workers":             *workers,
		"shards":              st.Shards,
		"checks_per_cpu_s":    crawlRound(checksPerCPUS, 0),
		"bytes_per_url":       crawlRound(bytesPerURL, 4),
		"false_positive_rate": crawlRound(fpMeasured, 6),
		"bytes_per_url_map":   crawlRound(bytesPerURLMap, 2),
		"bytes_ratio_vs_map":  crawlRound(ratio, 2),
		"map_checks_per_s":    crawlRound(mapChecksPerS, 0),
		"checks_ratio_vs_map": crawlRound(checksPerS1/mapChecksPerS, 2),
		"urls":                *n,
		"probe_urls":          *probe,
		"map_urls":            *mapN,
		"lru_size":            *lruSize,
		"bloom_bits":          st.BloomBits,
		"bloom_hashes":        st.BloomHashes,
		"gomaxprocs":          runtime.GOMAXPROCS(0),
		"load_average":        loadAvg(1),
	}, nil
}

// dedupeFillBatched checks n distinct URLs into a fresh dedupe from workers goroutines,
// links URLs per CheckBatch call, and returns checks per second. Each round, every
// worker gets its own dedupeBatch URLs (built untimed), then all check theirs at the
// same time; a round's wall time runs from their start until the last is done.
func dedupeFillBatched(n uint, fpRate float64, lruSize, workers, links int) (float64, error) {
	d := frontier.NewDedupe(n, fpRate, lruSize)
	batches := make([][]string, workers)
	for w := range batches {
		batches[w] = make([]string, dedupeBatch)
	}
	var elapsed time.Duration
	var wg sync.WaitGroup
	for start := 0; start < int(n); {
		ks := make([]int, workers)
		for w := range batches {
			ks[w] = dedupeFill(batches[w], uint64(start), min(dedupeBatch, int(n)-start))
			start += ks[w]
		}
		t0 := time.Now()
		for w := range batches {
			wg.Add(1)
			go func(urls []string) {
				defer wg.Done()
				hs := make([]uint64, links)
				out := make([]frontier.Verdict, links)
				for len(urls) > 0 {
					page := urls[:min(links, len(urls))]
					for i, u := range page {
						hs[i] = frontier.Hash(u)
					}
					d.CheckBatch(hs[:len(page)], out)
					urls = urls[len(page):]
				}
			}(batches[w][:ks[w]])
		}
		wg.Wait()
		elapsed += time.Since(t0)
	}
	if st := d.Stats(); st.New+st.Maybe != uint64(n) || st.Recent != 0 {
		return 0, fmt.Errorf("%d workers: %d new + %d maybe + %d recent verdicts for %d distinct URLs",
			workers, st.New, st.Maybe, st.Recent, n)
	}
	return float64(n) / elapsed.Seconds(), nil
}

// dedupeLiveHeap returns the bytes of live heap objects after a full collection.
func dedupeLiveHeap() uint64 {
	runtime.GC()
	runtime.GC() // the second pass frees what finalizers released in the first
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// dedupeFill writes the URLs with indices first..first+k-1 into batch and returns k.
func dedupeFill(batch []string, first uint64, k int) int {
	var buf []byte
	for i := 0; i < k; i++ {
		buf = dedupeAppendURL(buf[:0], first+uint64(i))
		batch[i] = string(buf)
	}
	return k
}

func dedupeURL(i uint64) string { return string(dedupeAppendURL(nil, i)) }

var (
	dedupeTLDs     = []string{".com", ".net", ".org", ".co.uk", ".de", ".com.cn", ".gov", ".edu"}
	dedupeSubs     = []string{"www.", "news.", "blog.", "shop.", "m.", "forum.", ""}
	dedupeSections = []string{"politics", "world", "tech", "sport", "business", "culture", "opinion", "science"}
	dedupeWords    = []string{"market", "election", "storm", "budget", "league", "launch", "court", "energy", "report", "health"}
)

// dedupeAppendURL appends the i-th benchmark URL. Distinct i give distinct URLs (i is
// written in full in every shape); the shapes and hosts are picked by a hash of i, so
// consecutive URLs scatter over hosts the way a crawl's discovered links do.
func dedupeAppendURL(b []byte, i uint64) []byte {
	h := dedupeMix(i)
	host := h % 3000
	if h>>20&7 == 0 {
		b = append(b, "http://"...)
	} else {
		b = append(b, "https://"...)
	}
	b = append(b, dedupeSubs[host%uint64(len(dedupeSubs))]...)
	b = append(b, "site"...)
	b = strconv.AppendUint(b, host, 10)
	b = append(b, dedupeTLDs[host%uint64(len(dedupeTLDs))]...)
	w1, w2 := dedupeWords[h>>24%10], dedupeWords[h>>28%10]
	switch h >> 32 % 5 {
	case 0: // news article
		b = append(b, '/')
		b = append(b, dedupeSections[h>>36%8]...)
		b = append(b, "/2025/"...)
		b = strconv.AppendUint(b, 1+h>>40%12, 10)
		b = append(b, '/')
		b = append(b, w1...)
		b = append(b, '-')
		b = append(b, w2...)
		b = append(b, '-')
		b = strconv.AppendUint(b, i, 10)
		b = append(b, ".html"...)
	case 1: // listing with paging
		b = append(b, "/tag/"...)
		b = append(b, w1...)
		b = append(b, "?page="...)
		b = strconv.AppendUint(b, i, 10)
	case 2: // product with parameters
		b = append(b, "/product/"...)
		b = strconv.AppendUint(b, i, 10)
		b = append(b, "?color="...)
		b = append(b, w2...)
		b = append(b, "&size=M&ref=home"...)
	case 3: // forum thread page
		b = append(b, "/forum/t/"...)
		b = strconv.AppendUint(b, i/20, 10)
		b = append(b, "/page/"...)
		b = strconv.AppendUint(b, i%20+1, 10)
		b = append(b, "?i="...)
		b = strconv.AppendUint(b, i, 10)
	default: // search result
		b = append(b, "/search?q="...)
		b = append(b, w1...)
		b = append(b, "+"...)
		b = append(b, w2...)
		b = append(b, "&start="...)
		b = strconv.AppendUint(b, i, 10)
	}
	return b
}

// dedupeMix is splitmix64's finaliser: a cheap, well-spread hash of the URL index.
func dedupeMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
