package main

// Benchmark "export": how fast `crawlconsole export` takes a 10k-page crawl out of the
// store, as WARC (request + response records, gzip per record, plus revisits of
// unchanged refetches) and as JSONL (main text, title and links of every page),
// against the time webrecorder's warcio.js takes to read the WARC result (`warcio
// index` and `warcio cdx-index`): an export should not be the slow step of a
// pipeline that indexes what it writes. The database is synthetic (the store bench's
// 2-8 KB HTML pages on 50 hosts), written through the store's public API; a tenth of
// the pages are refetched, half unchanged (identical payload), half answered 304.

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

func init() { register("export", runExportBench) }

func runExportBench(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	pages := fs.Int("pages", 10000, "pages in the synthetic crawl database")
	keep := fs.String("keep", "", "write the database and exports under this `DIR` and keep them")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the two exports to `FILE`")
	warcio := fs.String("warcio", "", "warcio.js cli.js `PATH` (default: $WARCIO_JS, or the copy .ci/run installs)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "crawlconsole-export-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	db := filepath.Join(dir, "crawl.db")
	os.Remove(db)
	fmt.Printf("building a %d-page database (%s)...\n", *pages, db)
	refetched, err := exportBenchDB(db, *pages)
	if err != nil {
		return nil, err
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return nil, err
	}
	defer st.Close()

	stopProfile, err := startCPUProfile(*profile)
	if err != nil {
		return nil, err
	}
	warcDir := filepath.Join(dir, "warc")
	os.RemoveAll(warcDir)
	cpu0, t0 := crawlCPU(), time.Now()
	rep, err := export.WARC(st, export.WARCOptions{Dir: warcDir})
	if err != nil {
		return nil, err
	}
	warcS, warcCPU := time.Since(t0).Seconds(), (crawlCPU() - cpu0).Seconds()
	var warcBytes int64
	for _, f := range rep.Files {
		if fi, err := os.Stat(f); err == nil {
			warcBytes += fi.Size()
		}
	}

	jsonlPath := filepath.Join(dir, "pages.jsonl")
	f, err := os.Create(jsonlPath)
	if err != nil {
		return nil, err
	}
	cpu0, t0 = crawlCPU(), time.Now()
	jrep, err := export.JSONL(st, f, export.JSONLOptions{})
	f.Close()
	if err != nil {
		return nil, err
	}
	jsonlS, jsonlCPU := time.Since(t0).Seconds(), (crawlCPU() - cpu0).Seconds()
	stopProfile()

	exchanges := *pages + refetched
	out := map[string]any{
		"pages": *pages, "exchanges": exchanges, "records": rep.Records, "revisits": rep.Revisits,
		"warc_s": crawlRound(warcS, 3), "warc_pages_per_s": crawlRound(float64(exchanges)/warcS, 0),
		"warc_cpu_us_per_page": crawlRound(warcCPU/float64(exchanges)*1e6, 1), "warc_bytes": warcBytes,
		"jsonl_s": crawlRound(jsonlS, 3), "jsonl_pages_per_s": crawlRound(float64(jrep.Pages)/jsonlS, 0),
		"jsonl_cpu_us_per_page": crawlRound(jsonlCPU/float64(jrep.Pages)*1e6, 1),
		"load":                  loadAvg(3),
		"cpus":                  runtime.NumCPU(),
	}
	fmt.Printf("%-28s %10s %12s %14s\n", "step", "seconds", "pages/s", "CPU µs/page")
	fmt.Printf("%-28s %10.3f %12.0f %14.1f\n", "export --format warc", warcS, float64(exchanges)/warcS, warcCPU/float64(exchanges)*1e6)
	fmt.Printf("%-28s %10.3f %12.0f %14.1f\n", "export --format jsonl", jsonlS, float64(jrep.Pages)/jsonlS, jsonlCPU/float64(jrep.Pages)*1e6)

	cli := exportBenchWarcio(*warcio)
	if cli == "" {
		fmt.Println("warcio.js not found (install node and run .ci/run, or give -warcio PATH): no comparison")
		out["warcio"] = "not found"
		return out, nil
	}
	for _, cmd := range []string{"index", "cdx-index"} {
		t0 = time.Now()
		c := exec.Command("node", append([]string{cli, cmd}, rep.Files...)...)
		c.Stdout, c.Stderr = io.Discard, os.Stderr
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("warcio %s: %w", cmd, err)
		}
		s := time.Since(t0).Seconds()
		key := "warcio_" + strings.ReplaceAll(cmd, "-", "_") + "_s"
		out[key] = crawlRound(s, 3)
		out["warc_export_over_"+strings.TrimSuffix(key, "_s")] = crawlRound(warcS/s, 3)
		fmt.Printf("%-28s %10.3f %12.0f %14s\n", "warcio.js "+cmd, s, float64(exchanges)/s, "-")
	}
	fmt.Printf("WARC export takes %.2f× the time warcio.js index takes to read its output (load %s, %d CPUs)\n",
		warcS/out["warcio_index_s"].(float64), loadAvg(3), runtime.NumCPU())
	return out, nil
}

// exportBenchDB writes the synthetic crawl: n pages with their exchanges, and a tenth
// of them refetched (half unchanged, half 304). It returns the refetches written.
func exportBenchDB(path string, n int) (int, error) {
	st, err := store.Open(path, store.Options{})
	if err != nil {
		return 0, err
	}
	w := newStoreWorkload()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	capture := func(url string, i, status int, body []byte, when time.Time, refetch bool) {
		line := "HTTP/1.1 200 OK"
		if status == 304 {
			line = "HTTP/1.1 304 Not Modified"
		}
		host := fmt.Sprintf("site%d.example", i%storeHosts)
		st.SaveCapture(store.Capture{URL: url, FetchedAt: when, Status: status, StatusLine: line,
			RequestHead: "GET " + strings.TrimPrefix(url, "http://"+host) + " HTTP/1.1\r\nHost: " + host +
				"\r\nUser-Agent: crawlconsole/0.1\r\nAccept: text/html\r\nAccept-Encoding: gzip, deflate, zstd\r\n",
			ResponseHead: "Content-Type: text/html; charset=utf-8\r\nDate: " + when.Format(time.RFC1123) +
				"\r\nEtag: \"" + fmt.Sprint(i) + "\"\r\nServer: bench\r\n",
			RemoteIP: "192.0.2.1", Body: body, Lane: i % 32, Egress: "e1", Refetch: refetch})
	}
	for i := 0; i < n; i++ {
		url := storeURL(i)
		body := w.bodies[i%len(w.bodies)]
		when := at.Add(time.Duration(i) * time.Millisecond)
		st.SavePage(store.Page{URL: url, FetchedAt: when, Status: 200, ContentType: "text/html", Body: body,
			Egress: "e1", Lane: i % 32}, nil, nil)
		capture(url, i, 200, body, when, false)
	}
	refetched := 0
	for i := 0; i < n; i += 10 {
		url := storeURL(i)
		when := at.Add(time.Hour + time.Duration(i)*time.Millisecond)
		if i%20 == 0 {
			capture(url, i, 200, w.bodies[i%len(w.bodies)], when, true)
		} else {
			capture(url, i, 304, nil, when, true)
		}
		refetched++
	}
	if err := st.Flush(); err != nil {
		return 0, err
	}
	return refetched, st.Close()
}

// exportBenchWarcio finds warcio.js's cli.js: the flag, $WARCIO_JS, or the copy .ci/run
// installs; "" when there is none or no node.
func exportBenchWarcio(flagPath string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	for _, p := range []string{flagPath, os.Getenv("WARCIO_JS")} {
		if p != "" {
			return p
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(cache, "crawlconsole", "warcio-2.4.11", "node_modules", "warcio", "dist", "cli.js")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
