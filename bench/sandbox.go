package main

// Benchmark "sandbox": how many small pages per second the sandbox web serves over
// keep-alive connections — the ceiling every crawl throughput figure is compared to.
// The anti-bot rule is off (nothing to trip), faults are off, the truth log
// is on, as in a crawl benchmark.
//
//	go run ./bench sandbox [-d 5s] [-conns 32] [-hosts 60] [-pages 2000]
//
// Two load generators: a Go keep-alive client in this process (measureCeiling, the one
// other benchmarks call), and wrk when it is installed (apt-get install wrk), which is
// much cheaper per request than Go's client and so shows more of the server's own
// ceiling. Both share the machine's cores with the sandbox.

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("sandbox", runSandboxBench) }

func runSandboxBench(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	d := fs.Duration("d", 5*time.Second, "duration of each measurement")
	conns := fs.Int("conns", 32, "keep-alive connections")
	hosts := fs.Int("hosts", 60, "virtual hosts of the sandbox")
	pages := fs.Int("pages", 2000, "distinct article URLs cycled through")
	stop, err := parseProfiled(fs, args)
	if err != nil {
		return nil, err
	}
	defer stop()
	if *d <= 0 || *conns < 1 || *pages < 1 {
		return nil, errors.New("-d, -conns and -pages must be positive")
	}
	cfg := sandbox.DefaultConfig()
	cfg.Hosts = *hosts
	cfg.AntiBot.Enabled = false
	cfg.SetFaultShare(0)
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	urls := sb.Web().SmallPages(*pages)
	size, err := sandboxPageSize(sb, urls[0])
	if err != nil {
		return nil, err
	}
	fmt.Printf("sandbox: %d hosts, %d article URLs of ~%d B, %d keep-alive connections, %v per run, GOMAXPROCS %d, load average %s\n",
		*hosts, len(urls), size, *conns, *d, runtime.GOMAXPROCS(0), loadAvg(1))

	goRate, err := measureCeilingURLs(sb, urls, *d, *conns)
	if err != nil {
		return nil, err
	}
	logged := len(sb.Truth().Requests())
	var wrkRate any
	wrkNote := "not installed"
	if path, err := exec.LookPath("wrk"); err == nil {
		r, err := sandboxRunWrk(path, sb, urls, *d, *conns)
		if err != nil {
			return nil, fmt.Errorf("wrk: %w", err)
		}
		wrkRate, wrkNote = r, fmt.Sprintf("%.0f pages/s", r)
	}
	fmt.Println()
	fmt.Printf("%-34s %s\n", "load generator", "small pages per second")
	fmt.Printf("%-34s %.0f\n", "Go keep-alive client (in process)", goRate)
	fmt.Printf("%-34s %s\n", "wrk", wrkNote)
	fmt.Printf("%-34s %d requests\n", "truth log after the Go run", logged)
	return map[string]any{
		"ceiling_pages_per_s": goRate,
		"wrk_pages_per_s":     wrkRate,
		"conns":               *conns,
		"duration_s":          d.Seconds(),
		"page_bytes":          size,
		"hosts":               *hosts,
		"gomaxprocs":          runtime.GOMAXPROCS(0),
	}, nil
}

// measureCeiling returns how many small article pages per second sb serves to a Go
// keep-alive client over conns connections for d (anti-bot rules, if on, still apply:
// benchmarks wanting the raw ceiling start their sandbox with AntiBot.Enabled false).
func measureCeiling(sb *sandbox.Sandbox, d time.Duration, conns int) (float64, error) {
	return measureCeilingURLs(sb, sb.Web().SmallPages(2000), d, conns)
}

func measureCeilingURLs(sb *sandbox.Sandbox, urls []string, d time.Duration, conns int) (float64, error) {
	if len(urls) == 0 {
		return 0, errors.New("sandbox has no article pages")
	}
	// One raw HTTP/1.1 keep-alive connection per worker, all names on the sandbox's one
	// address: what a crawler's transport does after DNS, without net/http.Client's
	// per-host pools (which would redial for every one of the sandbox's hosts) and
	// goroutine hand-offs, so that the client eats as little of the CPU as it can.
	reqs := make([][]byte, len(urls))
	for i, u := range urls {
		rest := strings.TrimPrefix(u, "http://")
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return 0, fmt.Errorf("bad URL %q", u)
		}
		reqs[i] = []byte("GET " + rest[j:] + " HTTP/1.1\r\nHost: " + rest[:j] + "\r\nUser-Agent: crawlconsole-bench\r\n\r\n")
	}
	var (
		count, bad atomic.Int64
		counting   atomic.Bool
		stop       atomic.Bool
		firstErr   error
		errOnce    sync.Once
		wg         sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		bad.Add(1)
	}
	for c := 0; c < conns; c++ {
		conn, err := net.Dial("tcp", sb.HTTPAddr())
		if err != nil {
			stop.Store(true)
			wg.Wait()
			return 0, err
		}
		wg.Add(1)
		go func(c int, conn net.Conn) {
			defer wg.Done()
			defer conn.Close()
			br := bufio.NewReaderSize(conn, 64<<10)
			scratch := make([]byte, 32<<10)
			for i := c; !stop.Load(); i += conns {
				if _, err := conn.Write(reqs[i%len(reqs)]); err != nil {
					fail(err)
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					fail(err)
					return
				}
				_, err = io.CopyBuffer(io.Discard, resp.Body, scratch)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					fail(fmt.Errorf("status %d, %v", resp.StatusCode, err))
					continue
				}
				if counting.Load() {
					count.Add(1)
				}
			}
		}(c, conn)
	}
	time.Sleep(300 * time.Millisecond) // warm-up
	counting.Store(true)
	start := time.Now()
	time.Sleep(d)
	counting.Store(false)
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	if bad.Load() > 0 {
		return 0, fmt.Errorf("%d failed requests (first error: %v)", bad.Load(), firstErr)
	}
	return float64(count.Load()) / elapsed.Seconds(), nil
}

// sandboxPageSize fetches one page to report the body size the ceiling is measured on.
func sandboxPageSize(sb *sandbox.Sandbox, url string) (int, error) {
	st, _, body := sb.Web().Render(url, sb.Now(), 1)
	if st != http.StatusOK {
		return 0, fmt.Errorf("%s renders status %d", url, st)
	}
	return len(body), nil
}

// sandboxRunWrk drives the sandbox with wrk, cycling through urls (Host header per URL).
func sandboxRunWrk(path string, sb *sandbox.Sandbox, urls []string, d time.Duration, conns int) (float64, error) {
	dir, err := os.MkdirTemp("", "sandbox-wrk")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	var lua strings.Builder
	lua.WriteString("local reqs = {}\nlocal targets = {\n")
	for _, u := range urls {
		rest := strings.TrimPrefix(u, "http://")
		i := strings.IndexByte(rest, '/')
		fmt.Fprintf(&lua, "  {%q, %q},\n", rest[:i], rest[i:])
	}
	lua.WriteString(`}
local n = 0
init = function(args)
  for k, t in ipairs(targets) do reqs[k] = wrk.format("GET", t[2], {Host = t[1]}) end
end
request = function()
  n = n + 1
  if n > #reqs then n = 1 end
  return reqs[n]
end
`)
	script := filepath.Join(dir, "cycle.lua")
	if err := os.WriteFile(script, []byte(lua.String()), 0o600); err != nil {
		return 0, err
	}
	threads := min(runtime.NumCPU(), conns)
	secs := max(1, int(d.Round(time.Second).Seconds()))
	cmd := exec.Command(path, "-t", strconv.Itoa(threads), "-c", strconv.Itoa(conns),
		"-d", strconv.Itoa(secs)+"s", "-s", script, "http://"+sb.HTTPAddr()+"/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	var rate float64
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "Non-2xx or 3xx responses:") {
			return 0, fmt.Errorf("wrk saw errors: %s", line)
		}
		if v, ok := strings.CutPrefix(line, "Requests/sec:"); ok {
			rate, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("parsing %q: %v", line, err)
			}
		}
	}
	if rate == 0 {
		return 0, fmt.Errorf("no Requests/sec in wrk output: %s", out)
	}
	return rate, nil
}
