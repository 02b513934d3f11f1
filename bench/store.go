package main

// Benchmark "store": page records written per second through the store's public API,
// the batched single writer against a naive one-transaction-per-page baseline (the
// same store with BatchSize 1), in the same run. Goal: records_per_s >= 20,000.

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

func init() { register("store", runStoreBench) }

// storeWorkload is a synthetic crawl: page i lives on one of 50 hosts, has a 2-8 KB
// HTML body and hands the store 10 links, 8 new and 2 already known. That is what
// reaches the store in crawlconsole: the frontier's LRU and Bloom filter (M4) drop
// links seen before, so the store mostly gets new URLs plus the Bloom "maybe"s it
// must settle with its unique index.
type storeWorkload struct {
	bodies  [][]byte // a pool of distinct bodies, reused round-robin
	noLinks bool     // pages alone: shows what the links cost
	// captures also stores each page's exchange, as the engine does since the WARC
	// export (store.Page.Capture): shows what keeping the exchanges costs.
	captures bool
}

const (
	storeHosts     = 50
	storeNewLinks  = 8
	storeOldLinks  = 2
	storeBodyPool  = 256
	storeWordsList = "crawl lane egress revisit host page news policy market river city council report " +
		"weather sport science health culture travel budget school water energy court minister " +
		"festival museum harbour railway election"
)

func storeURL(i int) string {
	return fmt.Sprintf("http://site%d.example/articles/%d/story-%d.html", i%storeHosts, i/1000, i)
}

func newStoreWorkload() *storeWorkload {
	rng := rand.New(rand.NewPCG(42, 43))
	words := strings.Fields(storeWordsList)
	w := &storeWorkload{}
	for b := 0; b < storeBodyPool; b++ {
		size := 2048 + rng.IntN(6*1024)
		var sb strings.Builder
		sb.WriteString("<!doctype html><html><head><meta charset=utf-8><title>")
		for j := 0; j < 6; j++ {
			sb.WriteString(words[rng.IntN(len(words))] + " ")
		}
		sb.WriteString("</title><link rel=stylesheet href=/s.css></head><body><nav><a href=/>home</a> <a href=/news>news</a></nav><main>")
		for sb.Len() < size {
			sb.WriteString("<p>")
			for j := 0; j < 12+rng.IntN(20); j++ {
				sb.WriteString(words[rng.IntN(len(words))])
				sb.WriteByte(' ')
			}
			fmt.Fprintf(&sb, "<a href=\"/articles/%d/story-%d.html\">more</a></p>\n", rng.IntN(100), rng.IntN(1_000_000))
		}
		sb.WriteString("</main><footer>(c) example</footer></body></html>")
		w.bodies = append(w.bodies, []byte(sb.String()))
	}
	return w
}

// links returns page i's links.
func (w *storeWorkload) links(i int, rng *rand.Rand) []store.URL {
	if w.noLinks {
		return nil
	}
	out := make([]store.URL, 0, storeNewLinks+storeOldLinks)
	parent := uint64(i) * 0x9E3779B97F4A7C15
	for k := 1; k <= storeNewLinks; k++ {
		c := storeNewLinks*i + k
		out = append(out, store.URL{URL: storeURL(c), Host: fmt.Sprintf("site%d.example", c%storeHosts), ParentHash: parent, Depth: 2})
	}
	for k := 0; k < storeOldLinks; k++ {
		c := rng.IntN(i + 1)
		out = append(out, store.URL{URL: storeURL(c), Host: fmt.Sprintf("site%d.example", c%storeHosts), ParentHash: parent, Depth: 2})
	}
	return out
}

// storeResult is one run's figures.
type storeResult struct {
	perSec float64       // pages per second, counting until Flush
	cpu    time.Duration // process CPU time per page
	writer time.Duration // writer goroutine's busy time per page (the serial part)
	counts store.Counts
}

// run writes pages pages through a store opened with opts from workers goroutines
// (lanes), each page as the engine does it: SetState(InProgress), then SavePage with
// its links. Besides pages per second it measures the process CPU time per page
// (user+sys, all goroutines: compression, SQLite, GC), which unlike wall time does not
// depend on how busy the machine is, and the writer's busy time per page: the serial
// part, which bounds the rate however many cores there are.
func (w *storeWorkload) run(path string, opts store.Options, pages, workers int) (storeResult, error) {
	var r storeResult
	s, err := store.Open(path, opts)
	if err != nil {
		return r, err
	}
	defer s.Close()
	s.AddURLs([]store.URL{{URL: storeURL(0), Host: "site0.example"}}, nil)
	if err := s.Flush(); err != nil {
		return r, err
	}
	cpu0, busy0 := crawlCPU(), s.WriterBusy()
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(lane int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(lane), 99))
			for {
				i := int(next.Add(1) - 1)
				if i >= pages {
					return
				}
				u := storeURL(i)
				s.SetState(u, store.InProgress, lane, "")
				body := w.bodies[i%len(w.bodies)]
				page := store.Page{URL: u, FetchedAt: time.Now(), Status: 200, ContentType: "text/html; charset=utf-8",
					Body: body, Duration: 80 * time.Millisecond, Lane: lane, Egress: "bind:127.0.0.2",
					SimHash: rng.Uint64()}
				if w.captures { // as the engine stores a page's exchange: with the page
					page.Capture = &store.Capture{URL: u, FetchedAt: time.Now(), Status: 200, StatusLine: "HTTP/1.1 200 OK",
						RequestHead:  "GET /x HTTP/1.1\r\nHost: site.example\r\nUser-Agent: crawlconsole/0.1\r\nAccept-Encoding: gzip, deflate, zstd\r\n",
						ResponseHead: "Content-Type: text/html; charset=utf-8\r\nDate: Wed, 25 Nov 2026 08:00:00 GMT\r\nEtag: \"1\"\r\n",
						RemoteIP:     "127.0.0.2", Lane: lane, Egress: "e1"}
				}
				s.SavePage(page, w.links(i, rng), nil)
			}
		}(g + 1)
	}
	wg.Wait()
	if err := s.Flush(); err != nil {
		return r, err
	}
	elapsed := time.Since(start)
	r.cpu = (crawlCPU() - cpu0) / time.Duration(pages)
	r.writer = (s.WriterBusy() - busy0) / time.Duration(pages)
	r.perSec = float64(pages) / elapsed.Seconds()
	if r.counts, err = s.Counts(); err != nil {
		return r, err
	}
	if r.counts.Pages != int64(pages) {
		return r, fmt.Errorf("stored %d pages, wrote %d", r.counts.Pages, pages)
	}
	return r, s.Close()
}

func runStoreBench(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("store", flag.ContinueOnError)
	pages := fs.Int("pages", 50_000, "pages written through the batched store")
	naivePages := fs.Int("naive-pages", 5_000, "pages written through the one-transaction-per-page baseline")
	workers := fs.Int("workers", 8, "concurrent writers (lanes)")
	batch := fs.Int("batch", 0, "store BatchSize (0: the store's default)")
	delay := fs.Duration("delay", 0, "store BatchDelay (0: the store's default)")
	stop, err := parseProfiled(fs, args)
	if err != nil {
		return nil, err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "crawlconsole-bench-store-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	w := newStoreWorkload()
	var bodyBytes int
	for _, b := range w.bodies {
		bodyBytes += len(b)
	}

	load := loadAvg(1)
	batched, err := w.run(filepath.Join(dir, "batched.db"), store.Options{BatchSize: *batch, BatchDelay: *delay}, *pages, *workers)
	if err != nil {
		return nil, fmt.Errorf("batched: %w", err)
	}
	naive, err := w.run(filepath.Join(dir, "naive.db"), store.Options{BatchSize: 1}, *naivePages, *workers)
	if err != nil {
		return nil, fmt.Errorf("naive: %w", err)
	}
	pagesOnly := &storeWorkload{bodies: w.bodies, noLinks: true}
	bare, err := pagesOnly.run(filepath.Join(dir, "pages-only.db"), store.Options{BatchSize: *batch, BatchDelay: *delay}, *pages/2, *workers)
	if err != nil {
		return nil, fmt.Errorf("pages without links: %w", err)
	}
	// The same pages again, each with its exchange kept for the WARC export, as the
	// engine stores them: what the captures cost the writer.
	withCaptures := &storeWorkload{bodies: w.bodies, captures: true}
	capt, err := withCaptures.run(filepath.Join(dir, "captures.db"), store.Options{BatchSize: *batch, BatchDelay: *delay}, *pages, *workers)
	if err != nil {
		return nil, fmt.Errorf("pages with captures: %w", err)
	}
	ratio := batched.perSec / naive.perSec

	fmt.Printf("store: %d-%d byte HTML bodies (mean %d), %d links per page (%d new), %d lanes, GOMAXPROCS=%d, load average %s\n",
		2048, 8*1024, bodyBytes/len(w.bodies), storeNewLinks+storeOldLinks, storeNewLinks, *workers, runtime.GOMAXPROCS(0), load)
	fmt.Printf("%-32s %7s %8s %10s %12s %15s %12s\n", "writer", "pages", "urls", "pages/s", "CPU µs/page", "writer µs/page", "MiB on disk")
	row := func(name string, r storeResult) {
		fmt.Printf("%-32s %7d %8d %10.0f %12.1f %15.1f %12.1f\n", name, r.counts.Pages, r.counts.URLs, r.perSec,
			us(r.cpu), us(r.writer), float64(r.counts.BytesCompressed)/(1<<20))
	}
	row(batchName(*batch, *delay), batched)
	row("naive (one transaction per page)", naive)
	row("batched, pages without links", bare)
	row("batched, with captures (WARC)", capt)
	fmt.Printf("ratio batched/naive: %.1fx   goal records_per_s >= 20000: %v\n", ratio, batched.perSec >= 20000)
	return map[string]any{
		"records_per_s":                 int(batched.perSec),
		"naive_records_per_s":           int(naive.perSec),
		"ratio":                         math.Round(ratio*100) / 100,
		"cpu_us_per_record":             us(batched.cpu),
		"writer_us_per_record":          us(batched.writer),
		"naive_cpu_us_per_record":       us(naive.cpu),
		"records_per_s_no_links":        int(bare.perSec),
		"cpu_us_per_record_no_links":    us(bare.cpu),
		"records_per_s_captures":        int(capt.perSec),
		"writer_us_per_record_captures": us(capt.writer),
		"cpu_us_per_record_captures":    us(capt.cpu),
	}, nil
}

// us is d in microseconds, rounded to 0.1.
func us(d time.Duration) float64 { return math.Round(float64(d.Nanoseconds())/100) / 10 }

// batchName labels the batched run with its effective batching.
func batchName(size int, delay time.Duration) string {
	if size == 0 {
		size = 512
	}
	if delay == 0 {
		delay = 20 * time.Millisecond
	}
	return fmt.Sprintf("batched (%d ops / %v)", size, delay)
}
