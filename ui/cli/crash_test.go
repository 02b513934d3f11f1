package cli

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestCrashChild is the crawl the crash test runs in a subprocess; it does nothing
// unless CRASH_CHILD_ARGS is set.
func TestCrashChild(t *testing.T) {
	os.Exit(Main(childArgs(t, "CRASH_CHILD_ARGS", "TestKill9AnywhereLosesNothing"), os.Stdout, os.Stderr))
}

// childArgs is the command line a test child (TestCrashChild, TestStoreFailChild)
// runs, from its environment variable argsEnv; without it the child is skipped,
// being only the helper process of the test parent.
func childArgs(t *testing.T, argsEnv, parent string) []string {
	args := os.Getenv(argsEnv)
	if args == "" {
		t.Skip("helper process for " + parent)
	}
	return strings.Split(args, "\x1f")
}

// childCmd runs `crawlconsole ARGS...` in a subprocess: the test child, handed
// args in its variable argsEnv, with env (NAME=value) added to the environment.
func childCmd(child, argsEnv string, args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$")
	cmd.Env = append(append(os.Environ(), argsEnv+"="+strings.Join(args, "\x1f")), env...)
	return cmd
}

// sandboxCrawl is the command line of a headless crawl of the fast sandbox (its
// config conf and seeds) into db, with the extra flags.
func sandboxCrawl(sb *sandbox.Sandbox, conf, db string, seeds []string, extra ...string) []string {
	args := append([]string{"crawl", "--config", conf, "--headless", "--until-idle", "--db", db}, extra...)
	return append(append(args, "--dns-server", sb.DNSAddr(), "--allow-private", "127.0.0.0/8", "--delay", "0s..2ms"), seeds...)
}

// TestKill9AnywhereLosesNothing crawls the sandbox in a subprocess, SIGKILLs it at
// several points, restarts it until the crawl completes, and compares the store with
// an uninterrupted run: same pages, none twice, integrity ok, nothing left in progress.
func TestKill9AnywhereLosesNothing(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	if testing.Short() {
		t.Skip("crash test runs subprocesses")
	}
	sb, seeds, conf := fastSandbox(t)
	dir := filepath.Dir(conf)
	crawl := func(db string) *exec.Cmd {
		return childCmd("TestCrashChild", "CRASH_CHILD_ARGS", sandboxCrawl(sb, conf, db, seeds))
	}

	ref := filepath.Join(dir, "ref.db")
	began := time.Now()
	if out, err := crawl(ref).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted crawl: %v\n%s", err, out)
	}
	whole := time.Since(began)
	want := pageSet(t, ref)
	if len(want) < 200 {
		t.Fatalf("reference crawl stored only %d pages", len(want))
	}

	db := filepath.Join(dir, "crash.db")
	// Kill points, each run resuming what the last one left: after the first
	// batches, at a third of the pages, nearer half, one during start-up (a share
	// of the uninterrupted run's time, far too short to crawl what is left), and
	// late. They are set by the pages the store holds, read beside the crawl, not
	// by the clock: on a box whose load moves, runs timed by the reference crawl's
	// pace could finish before their kill point.
	stored := storedPages(t, db)
	kills := []struct {
		pages int           // kill once the store holds this many pages
		after time.Duration // or kill this long after the start
	}{
		{pages: len(want) / 10}, {pages: len(want) * 3 / 10}, {pages: len(want) * 45 / 100},
		{after: time.Duration(0.05 * float64(whole))}, {pages: len(want) * 7 / 10},
	}
	killed, resumedSaid := 0, 0
	for run := 0; ; run++ {
		if run > 40 {
			t.Fatal("crawl never completed after 40 restarts")
		}
		cmd := crawl(db)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if run < len(kills) {
			k := kills[run]
			var timer <-chan time.Time
			if k.after > 0 {
				timer = time.After(k.after)
			}
			poll := time.NewTicker(10 * time.Millisecond)
			kill := false
			for done := false; !done; {
				select {
				case err := <-exited:
					if err != nil {
						t.Fatalf("run %d failed: %v\n%s", run, err, out.String())
					}
					done = true
				case <-timer:
					kill, done = true, true
				case <-poll.C:
					if k.after == 0 && stored() >= k.pages {
						kill, done = true, true
					}
				}
			}
			poll.Stop()
			if kill {
				cmd.Process.Signal(syscall.SIGKILL)
				<-exited
				killed++
				if strings.Contains(out.String(), "went back to the queue") {
					resumedSaid++
				}
				continue
			}
		} else if err := <-exited; err != nil {
			t.Fatalf("run %d failed: %v\n%s", run, err, out.String())
		}
		if strings.Contains(out.String(), "went back to the queue") {
			resumedSaid++ // headless, the restart says what it recovered (on stderr)
		}
		if strings.Contains(out.String(), "done:") {
			break
		}
	}
	if killed < 3 {
		t.Fatalf("only %d runs were killed before the crawl ended; the kill points are too late", killed)
	}
	if resumedSaid == 0 {
		t.Errorf("after %d kills no restart said it put in-progress URLs back in the queue", killed)
	}
	got := finalStore(t, db)
	sameSet(t, fmt.Sprintf("after %d kills", killed), got, want)
	t.Logf("killed %d times; %d pages, identical to the uninterrupted run", killed, len(got))
}

// storedPages reads, beside the crawl writing db, how many pages its store has
// committed (a WAL reader never blocks the writer); 0 while it cannot tell (no
// store yet, a store being recovered after a kill).
func storedPages(t *testing.T, db string) func() int {
	h, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=1000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetMaxOpenConns(1)
	return func() int {
		var n int
		if err := h.QueryRow("SELECT count(*) FROM pages").Scan(&n); err != nil {
			h.SetMaxIdleConns(0) // a connection that failed opens afresh next time
			h.SetMaxIdleConns(1)
			return 0
		}
		return n
	}
}

func first(s []string) []string {
	if len(s) > 3 {
		return s[:3]
	}
	return s
}

func pageSet(t *testing.T, db string) map[string]bool {
	t.Helper()
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ok, err := st.IntegrityCheck(); err != nil || ok != "ok" {
		t.Fatalf("%s: integrity_check %q %v", db, ok, err)
	}
	urls, err := st.PageURLs()
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if n := c.InProgress; n != 0 {
		t.Fatalf("%s: %d URLs still in progress after a completed crawl", db, n)
	}
	m := map[string]bool{}
	for _, u := range urls {
		m[u] = true
	}
	return m
}
