package main

// Benchmark "faults": how crawlconsole holds up against its own inputs and a
// flood at its SSH door, measured from outside, on the built binary.
//
//	go run ./bench faults [-only inputs|ssh|cluster|lease|restart] [-skip-valid] [-valid N] [-bin PATH]
//	                      [-ssh-tries 20] [-half-open 200]
//	                      [-budget 80] [-budget-pages 400] [-site-pages 60] [-page-delay 10ms]
//	                      [-stop 30s] [-after 1m] [-hb 1s] [-kill-at 1000]
//
// Peak RSS is GNU time's (%M) of the child: see timed for why not wait4's.
//
// config_rss_mb: peak RSS of `crawlconsole crawl --config F` with F a 200 MB config
// (a 200 MB user_agent): refused unread; config_at_cap_rss_mb the same with the
// worst config under the cap (a flow list of 256 KiB of one-letter items, the YAML
// shape that costs most per byte).
// seeds_rss_mb: peak RSS of a crawl given a 1,000,000-line seeds file (22 MB) of
// junk: one URL (on 200 loopback hosts that accept and never answer, so nothing is
// fetched), three 1 MiB lines, the rest not URLs; the crawl runs until every URL of
// the file is in the store, then is stopped. seeds_mixed_rss_mb: the same with every
// tenth line a URL (100,000). seeds_valid_rss_mb: 1,000,000 URLs (-valid), and
// seeds_valid_queue10k_rss_mb the same with queue_memory 10000: beyond the reading,
// which holds one batch of 10,000 seeds, a crawl's memory grows with the URLs it
// queues (queue_memory of them in memory, 200,000 by default; the store's page cache).
// ssh_first_try_logins: of -ssh-tries runs of the OpenSSH client (ssh) with an
// operator key, how many log in at the first try while -half-open connections from
// as many loopback addresses are held open (each re-dialled 200 ms after the server
// closes it); ssh_server_rss_mb the SSH server's peak RSS (a process of its own, the
// bench binary serving a fake engine: some 80 MB without a flood).
//
// budget_overshoot and site_spread: see faults_cluster.go.
//
// requests_on_lost_hosts, cross_node_overlaps, host_gap_breaks (a worker stopped
// -stop and continued) and restart_duplicate_share, lost, stored_twice (the master
// killed and restarted): see faults_leases.go.

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

func init() { register("faults", runFaults) }

func runFaults(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("faults", flag.ContinueOnError)
	skipValid := fs.Bool("skip-valid", false, "skip the 1,000,000-URL seeds run (minutes)")
	tries := fs.Int("ssh-tries", 20, "OpenSSH client logins to try under the flood")
	halfOpen := fs.Int("half-open", 200, "half-open connections held, one per loopback address")
	only := fs.String("only", "", "run one part: inputs, ssh, cluster, lease or restart")
	stop := fs.Duration("stop", 30*time.Second, "how long the lease part keeps a worker stopped (SIGSTOP)")
	after := fs.Duration("after", time.Minute, "the window after SIGCONT the lease figures are judged over")
	hb := fs.Duration("hb", time.Second, "the master's --heartbeat in the lease and restart parts")
	killAt := fs.Int64("kill-at", 1000, "pages stored when the restart part kills the master")
	budget := fs.Int("budget", 80, "the live host budget of the cluster part")
	budgetPages := fs.Int("budget-pages", 400, "pages of each host of the budget run")
	sitePages := fs.Int("site-pages", 60, "pages of each of the nine sites of the site run")
	pageDelay := fs.Duration("page-delay", 10*time.Millisecond, "how long each page of the cluster part's web takes to answer")
	binFlag := fs.String("bin", "", "measure this crawlconsole binary (an older build, say) instead of building one")
	valid := fs.Int("valid", 1_000_000, "URLs in the all-valid seeds file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-faults-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	part := func(name string) bool { return *only == "" || *only == name }
	bin := *binFlag
	if bin == "" && (part("inputs") || part("lease") || part("restart")) {
		bin = filepath.Join(dir, "crawlconsole")
		fmt.Println("building crawlconsole ...")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/crawlconsole/crawlconsole").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	out := map[string]any{}
	if part("cluster") {
		if err := faultsCluster(dir, *budget, *budgetPages, *sitePages, *pageDelay, out); err != nil {
			return nil, err
		}
	}
	cb := &clusterBench{bin: bin, dir: dir, hb: *hb}
	if part("lease") {
		if err := cb.runLease(*stop, *after, out); err != nil {
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	if part("restart") {
		if err := cb.runRestart(*killAt, out); err != nil {
			return nil, fmt.Errorf("restart: %w", err)
		}
	}
	if part("inputs") {
		if err := faultsInputs(bin, dir, *skipValid, *valid, out); err != nil {
			return nil, err
		}
	}
	if part("ssh") {
		logins, rss, held, err := sshFlood(dir, *tries, *halfOpen)
		if err != nil {
			return nil, err
		}
		fmt.Printf("SSH under %d half-open connections (%d held at the end): %d of %d OpenSSH logins at the first try; server peak RSS %.1f MB\n",
			*halfOpen, held, logins, *tries, rss)
		out["ssh_first_try_logins"] = logins
		out["ssh_tries"] = *tries
		out["ssh_server_rss_mb"] = round1(rss)
	}
	return out, nil
}

// faultsInputs measures the config and seeds figures into out.
func faultsInputs(bin, dir string, skipValid bool, nValid int, out map[string]any) error {
	// A 200 MB config.
	big := filepath.Join(dir, "big.yaml")
	if err := writeFile(big, func(w *bufio.Writer) {
		w.WriteString("user_agent: \"")
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 200 {
			w.Write(chunk)
		}
		w.WriteString("\"\n")
	}); err != nil {
		return err
	}
	r := runChild(bin, "crawl", "--config", big, "--db", filepath.Join(dir, "c.db"), "--headless", "https://example.com/")
	fmt.Printf("200 MB config:     exit %d, peak RSS %.1f MB: %s\n", r.code, r.rssMB, firstLine(r.out))
	out["config_rss_mb"] = round1(r.rssMB)
	if r.code != 2 {
		return fmt.Errorf("a 200 MB config: exit %d, want 2 (refused)\n%s", r.code, r.out)
	}
	atCap := filepath.Join(dir, "atcap.yaml")
	if err := writeFile(atCap, func(w *bufio.Writer) {
		w.WriteString("seeds: [")
		for range (256<<10)/2 - 8 {
			w.WriteString("a,")
		}
		w.WriteString("]\n")
	}); err != nil {
		return err
	}
	r = runChild(bin, "crawl", "--config", atCap, "--db", filepath.Join(dir, "c.db"), "--headless")
	fmt.Printf("256 KiB config:    exit %d, peak RSS %.1f MB: %s\n", r.code, r.rssMB, firstLine(r.out))
	out["config_at_cap_rss_mb"] = round1(r.rssMB)

	// Seeds files.
	hole, err := startBlackholes(200)
	if err != nil {
		return err
	}
	defer hole.close()
	small := filepath.Join(dir, "queue10k.yaml")
	if err := os.WriteFile(small, []byte("queue_memory: 10000\n"), 0o644); err != nil {
		return err
	}
	for _, run := range []struct {
		name, key string
		every     int
	}{
		{"junk (one URL)", "seeds_rss_mb", 0},
		{"every 10th line a URL", "seeds_mixed_rss_mb", 10},
	} {
		path := filepath.Join(dir, "seeds-"+run.key+".txt")
		urls, err := junkSeeds(path, hole, run.every)
		if err != nil {
			return err
		}
		fi, _ := os.Stat(path)
		s, err := seedsRun(bin, dir, path, urls)
		if err != nil {
			return err
		}
		fmt.Printf("1M-line seeds, %s (%.0f MB, %d URLs): peak RSS %.1f MB, %d URLs queued in %.1fs; %d warning lines, first: %s\n",
			run.name, float64(fi.Size())/1e6, urls, s.rssMB, s.queued, s.secs, s.warnings, s.first)
		out[run.key] = round1(s.rssMB)
	}
	if !skipValid {
		valid := filepath.Join(dir, "valid.txt")
		if err := writeFile(valid, func(w *bufio.Writer) {
			for i := range nValid {
				fmt.Fprintf(w, "%s/p%d\n", hole.base(i), i)
			}
		}); err != nil {
			return err
		}
		s, err := seedsRun(bin, dir, valid, nValid)
		if err != nil {
			return err
		}
		fmt.Printf("%d valid seed URLs: peak RSS %.1f MB, %d URLs queued in %.1fs\n", nValid, s.rssMB, s.queued, s.secs)
		out["seeds_valid_rss_mb"] = round1(s.rssMB)
		if s, err = seedsRun(bin, dir, valid, nValid, "--config", small); err != nil {
			return err
		}
		fmt.Printf("  the same, queue_memory 10000: peak RSS %.1f MB\n", s.rssMB)
		out["seeds_valid_queue10k_rss_mb"] = round1(s.rssMB)
	}
	return nil
}

// junkSeeds writes a 1,000,000-line seeds file: its first line and every every-th
// (none if 0) a URL on the blackholes, three lines of 1 MiB, the rest not URLs. It
// returns the number of URLs.
func junkSeeds(path string, hole *blackholes, every int) (urls int, err error) {
	err = writeFile(path, func(w *bufio.Writer) {
		for i := range 1_000_000 {
			switch {
			case i%333_331 == 7:
				w.Write(bytes.Repeat([]byte("x"), 1<<20))
				w.WriteByte('\n')
			case i == 0 || (every > 0 && i%every == 0):
				fmt.Fprintf(w, "%s/p%d\n", hole.base(i), i)
				urls++
			default:
				fmt.Fprintf(w, "junk line %d\n", i)
			}
		}
	})
	return urls, err
}

type childRun struct {
	code  int
	rssMB float64
	out   string
}

// runChild runs bin to its end and returns its exit status, peak RSS and output.
func runChild(bin string, args ...string) childRun {
	cmd, rss := timed(bin, args...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	cmd.Run()
	return childRun{code: cmd.ProcessState.ExitCode(), rssMB: rss(), out: b.String()}
}

// timed wraps bin in GNU time, which forks it from a small process: a child's
// ru_maxrss counts the memory of the process it was exec'd from (Go execs from a
// vfork of this bench, tens of MB), so the bench's own wait4 figure would be this
// process's size whenever the child stays smaller. rss reads the figure once the
// command has ended. SIGINT is to go to the command's process group (time ignores it).
func timed(bin string, args ...string) (cmd *exec.Cmd, rss func() float64) {
	f, err := os.CreateTemp("", "bench-faults-rss-")
	if err != nil {
		panic(err)
	}
	f.Close()
	cmd = exec.Command("/usr/bin/time", append([]string{"-q", "-f", "%M", "-o", f.Name(), bin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, func() float64 {
		defer os.Remove(f.Name())
		b, _ := os.ReadFile(f.Name())
		lines := strings.Fields(string(b))
		if len(lines) == 0 {
			return 0
		}
		kb, _ := strconv.ParseFloat(lines[len(lines)-1], 64)
		return kb * 1024 / 1e6
	}
}

// maxRSSMB is an ended child's peak RSS (ru_maxrss, KiB on Linux) in MB; see timed
// for when it is the parent's instead.
func maxRSSMB(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) * 1024 / 1e6
	}
	return 0
}

type seedsResult struct {
	rssMB    float64
	queued   int64
	secs     float64
	warnings int
	first    string
}

// seedsRun crawls with the seeds file until the store holds want URLs (read from
// the database as the crawl runs), then stops it with SIGINT.
func seedsRun(bin, dir, seeds string, want int, extra ...string) (seedsResult, error) {
	db, err := os.CreateTemp(dir, filepath.Base(seeds)+"-*.db")
	if err != nil {
		return seedsResult{}, err
	}
	db.Close()
	os.Remove(db.Name())
	args := append([]string{"crawl", "--seeds", seeds, "--db", db.Name(), "--headless", "--allow-private", "127.0.0.0/8"}, extra...)
	cmd, rss := timed(bin, args...)
	var b lockedBuf
	cmd.Stdout, cmd.Stderr = &b, &b
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return seedsResult{}, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var r seedsResult
	deadline := time.After(10 * time.Minute)
poll:
	for {
		select {
		case <-exited:
			return r, fmt.Errorf("the crawl with %s ended on its own: %s", seeds, b.String())
		case <-deadline:
			break poll
		case <-time.After(time.Second):
		}
		if ro, err := store.OpenReadOnly(db.Name()); err == nil {
			c, err := ro.Counts()
			ro.Close()
			if err == nil {
				r.queued = c.URLs
			}
		}
		if r.queued >= int64(want) {
			break
		}
	}
	r.secs = time.Since(began).Seconds()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	r.rssMB = rss()
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "warning: --seeds") {
			if r.warnings == 0 {
				r.first = l
			}
			r.warnings++
		}
	}
	if r.queued < int64(want) {
		return r, fmt.Errorf("only %d of %d seed URLs reached the store in 10 minutes", r.queued, want)
	}
	return r, nil
}

// blackholes are listeners on 127.0.0.2..N+1 (one port) that accept connections and
// never answer: a crawl's lanes wait on them, so the crawl holds its queue.
type blackholes struct {
	port  int
	lns   []net.Listener
	mu    sync.Mutex
	conns []net.Conn
	once  sync.Once
}

func startBlackholes(n int) (*blackholes, error) {
	for attempt := 0; attempt < 20; attempt++ {
		first, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			return nil, err
		}
		h := &blackholes{port: first.Addr().(*net.TCPAddr).Port, lns: []net.Listener{first}}
		ok := true
		for i := 1; i < n; i++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.%d.%d:%d", (i+2)/256, (i+2)%256, h.port))
			if err != nil {
				ok = false
				break
			}
			h.lns = append(h.lns, ln)
		}
		if !ok {
			h.close()
			continue
		}
		for _, ln := range h.lns {
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					h.mu.Lock()
					h.conns = append(h.conns, c)
					h.mu.Unlock()
				}
			}()
		}
		return h, nil
	}
	return nil, errors.New("no port free on 200 loopback addresses")
}

// base is the URL prefix of the i-th seed: hosts in turn.
func (h *blackholes) base(i int) string {
	a := h.lns[i%len(h.lns)].Addr().(*net.TCPAddr)
	return fmt.Sprintf("http://%s:%d", a.IP, a.Port)
}

func (h *blackholes) close() {
	h.once.Do(func() {
		for _, ln := range h.lns {
			ln.Close()
		}
		h.mu.Lock()
		for _, c := range h.conns {
			c.Close()
		}
		h.mu.Unlock()
	})
}

func writeFile(path string, fill func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	return l
}

func round1(x float64) float64 { return float64(int(x*10+0.5)) / 10 }

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }
