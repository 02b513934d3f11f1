package main

// Benchmark "revisitstore": the revisit scheduler's store side with millions of pages
// (M2: "stored with an index on next; must stay fast with millions of pages"). The
// store is filled through its public API with realistic rows (an encoded visit
// history per page), then it times the scheduler's question — the first m pages by
// ascending next — against the same question without the index (a scan and a sort:
// what a table without it costs), the scheduler's parking write (m pages past their
// window to next = huge, committed), the tick's write (m pages parked and their URLs queued, in one
// transaction), the console's due queue and the scan the engine makes at start.
// The baseline reads the same rows but sorts them (ORDER BY next+0 defeats the index
// order; SQLite then scans the narrow index and sorts): what a query without an
// ordered walk costs, and a lower bound for a table without the index.
// Goal: due_ms (m = 10,000, 1M pages) well under 1000.

import (
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

func init() { register("revisitstore", runRevisitStoreBench) }

func runRevisitStoreBench(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("revisitstore", flag.ContinueOnError)
	pages := fs.Int("pages", 1_000_000, "pages with revisit state")
	m := fs.Int("m", 10_000, "pages the scheduler asks for per tick")
	runs := fs.Int("runs", 15, "timed repetitions of each read")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "crawlconsole-bench-revisitstore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "revisit.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()

	load := loadAvg(1)
	rng := rand.New(rand.NewPCG(7, 8))
	now := time.Now()
	start := time.Now()
	cpu0 := crawlCPU()
	for i := 0; i < *pages; i++ {
		s.SaveRevisit(benchRevisitRow(i, now, rng))
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	fill := time.Since(start)
	fillCPU := (crawlCPU() - cpu0) / time.Duration(*pages)

	due := rsTimeRuns(*runs, func() error {
		d, err := s.DueRevisits(*m)
		if err == nil && len(d) != min(*m, *pages) {
			err = fmt.Errorf("DueRevisits(%d) returned %d", *m, len(d))
		}
		return err
	})
	if due.err != nil {
		return nil, due.err
	}
	queue := rsTimeRuns(*runs, func() error { _, err := s.RevisitQueue(50, revisit.Never); return err })
	if queue.err != nil {
		return nil, queue.err
	}
	// Baseline: the same question, sorted instead of read in index order.
	raw, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	unindexed := rsTimeRuns(max(1, *runs/5), func() error {
		rows, err := raw.Query(`SELECT url, next FROM revisit ORDER BY next + 0, url LIMIT ?`, *m)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n != min(*m, *pages) {
			return fmt.Errorf("unindexed query returned %d", n)
		}
		return rows.Err()
	})
	if unindexed.err != nil {
		return nil, unindexed.err
	}
	// The scheduler's write for pages past their window: park the m due pages where
	// next is still the one read, committed.
	d, err := s.DueRevisits(*m)
	if err != nil {
		return nil, err
	}
	park := rsTimeRuns(1, func() error {
		s.QueueRevisits(nil, d, revisit.Never) // the tick's write for pages past their window: parked only
		return s.Err()
	})
	if park.err != nil {
		return nil, park.err
	}
	// The tick's write as the engine makes it: the next m due pages parked and, in
	// the same transaction, their URLs queued (unprocessed), committed.
	d2, err := s.DueRevisits(*m)
	if err != nil {
		return nil, err
	}
	if len(d) > 0 && len(d2) > 0 && d2[0].URL == d[0].URL {
		return nil, fmt.Errorf("the park left %s due", d[0].URL)
	}
	requeue := rsTimeRuns(1, func() error {
		if queued := s.QueueRevisits(d2, nil, revisit.Never); len(queued) != len(d2) {
			return fmt.Errorf("QueueRevisits queued %d of %d pages: %v", len(queued), len(d2), s.Err())
		}
		return nil
	})
	if requeue.err != nil {
		return nil, requeue.err
	}
	var scanned int
	scan := rsTimeRuns(1, func() error {
		scanned = 0
		return s.EachRevisitSummary(func(store.RevisitSummary) error { scanned++; return nil })
	})
	if scan.err != nil {
		return nil, scan.err
	}
	if scanned != *pages {
		return nil, fmt.Errorf("scan saw %d pages, want %d", scanned, *pages)
	}
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			size += fi.Size()
		}
	}

	fmt.Printf("revisit store: %d pages, m = %d, load average %s\n", *pages, *m, load)
	fmt.Printf("  %-44s %10s\n", "operation", "time")
	fmt.Printf("  %-44s %9.1fs  (%.0f rows/s, %v CPU/row)\n", "fill through SaveRevisit (batched writer)", fill.Seconds(), float64(*pages)/fill.Seconds(), fillCPU.Round(100*time.Nanosecond))
	fmt.Printf("  %-44s %8.1fms  (p90 %.1f ms)\n", fmt.Sprintf("DueRevisits(%d), index on next", *m), due.median, due.p90)
	fmt.Printf("  %-44s %8.1fms\n", "same rows, scanned and sorted (baseline)", unindexed.median)
	fmt.Printf("  %-44s %9.0fx\n", "speedup", unindexed.median/due.median)
	fmt.Printf("  %-44s %8.1fms\n", fmt.Sprintf("QueueRevisits(%d pages), parked only", len(d)), park.median)
	fmt.Printf("  %-44s %8.1fms\n", fmt.Sprintf("QueueRevisits(%d pages), parked and queued", len(d2)), requeue.median)
	fmt.Printf("  %-44s %8.2fms\n", "RevisitQueue(50), the console's due queue", queue.median)
	fmt.Printf("  %-44s %9.2fs\n", "EachRevisitSummary, the scan at engine start", scan.median/1000)
	fmt.Printf("  %-44s %8.0fMB\n", "database size", float64(size)/1e6)
	return map[string]any{
		"pages":            *pages,
		"m":                *m,
		"due_ms":           due.median,
		"due_p90_ms":       due.p90,
		"due_unindexed_ms": unindexed.median,
		"speedup":          unindexed.median / due.median,
		"park_ms":          park.median,
		"requeue_ms":       requeue.median,
		"queue_ms":         queue.median,
		"scan_s":           scan.median / 1000,
		"fill_rows_per_s":  float64(*pages) / fill.Seconds(),
		"db_mb":            float64(size) / 1e6,
		"load_avg":         load,
	}, nil
}

// benchRevisitRow is page i's revisit state: a news URL, first fetched within the
// last two weeks, due within the next day (some overdue), with a visit history of
// 0..32 intervals as the engine keeps it.
func benchRevisitRow(i int, now time.Time, rng *rand.Rand) store.Revisit {
	p := revisit.Page{Rate: rng.Float64() * 5, Probes: rng.IntN(3)}
	for range rng.IntN(revisit.DefaultHistoryLen + 1) {
		p.History = append(p.History, revisit.Visit{Interval: time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))), Changed: rng.IntN(3) == 0})
	}
	first := now.Add(-time.Duration(rng.Int64N(int64(14 * 24 * time.Hour))))
	return store.Revisit{
		URL:   fmt.Sprintf("https://www%d.site%d.example/articles/%d/story-%d.html", i%4, i%5000, i/1000, i),
		Class: revisit.Classes[i%len(revisit.Classes)], First: first, T: now.Sub(first), X: 1 + rng.IntN(8),
		Last: now.Add(-time.Hour), Next: now.Add(time.Duration(rng.Int64N(int64(25*time.Hour))) - time.Hour),
		Hash: rng.Uint64(), HasHash: true, Fetches: 1 + len(p.History), Distance: rng.IntN(30),
		Freq: rng.Float64(), Price: rng.Float64(), Policy: revisit.MarshalPolicyState(&p),
	}
}

// rsTiming is the median and 90th percentile of repeated runs, in milliseconds.
type rsTiming struct {
	median, p90 float64
	err         error
}

func rsTimeRuns(n int, f func() error) rsTiming {
	var ms []float64
	for range n {
		t0 := time.Now()
		if err := f(); err != nil {
			return rsTiming{err: err}
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(ms)
	return rsTiming{median: ms[len(ms)/2], p90: ms[min(len(ms)-1, len(ms)*9/10)]}
}
