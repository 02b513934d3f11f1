package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// The distributed crawl's processes as a user runs them: `crawlconsole master` and
// `crawlconsole worker` as subprocesses of the test binary (TestCrashChild runs Main),
// so a test can SIGKILL them like a crash or the OOM killer would.

// child is one crawlconsole subprocess and everything it printed.
type child struct {
	name string
	cmd  *exec.Cmd
	out  syncBuffer    // serve_test.go's
	done chan struct{} // closed once the process has exited
	err  error         // Wait's error; read only after done
}

// startChild runs `crawlconsole ARGS...` in a subprocess; it is SIGKILLed with the test
// if still running. The credential variable is kept out of its environment, so only
// the flags the test passes count.
func startChild(t *testing.T, name string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, tokenEnv+"=") && !strings.HasPrefix(kv, "CRASH_CHILD_ARGS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CRASH_CHILD_ARGS="+strings.Join(args, "\x1f"))
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &c.out, &c.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(c.kill)
	return c
}

// kill SIGKILLs the process (no flush, no leave) and waits until it is gone.
func (c *child) kill() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to exit and returns its exit status, failing the
// test after enginetest.CrawlPatience: a loaded 2-core box takes several times what
// an idle one does (a killed cluster's crawl was still fetching 4.6 pages/s at 3
// minutes). A test that bounds how soon a process exits measures that itself.
func (c *child) wait(t *testing.T) int {
	t.Helper()
	d := enginetest.CrawlPatience
	select {
	case <-c.done:
		return c.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("%s still running after %v:\n%s", c.name, d, tail(c.out.String(), 40))
		return -1
	}
}

// waitOutput waits at most d for s in the child's output.
func (c *child) waitOutput(t *testing.T, s string, d time.Duration) {
	t.Helper()
	d = max(d, enginetest.Patience) // a guard, never what decides the test on a loaded box
	deadline := time.Now().Add(d)
	for !strings.Contains(c.out.String(), s) {
		if c.exited() {
			t.Fatalf("%s exited (%v) before printing %q:\n%s", c.name, c.err, s, tail(c.out.String(), 40))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not print %q within %v:\n%s", c.name, s, d, tail(c.out.String(), 40))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// clusterSandbox is the sandbox web of the engine's cluster tests
// (enginetest.SandboxConfig); edit, if set, adjusts it.
func clusterSandbox(t *testing.T, seed int64, hosts int, edit func(*sandbox.Config)) *sandbox.Sandbox {
	t.Helper()
	cfg := enginetest.SandboxConfig(seed, hosts)
	if edit != nil {
		edit(&cfg)
	}
	return enginetest.StartSandbox(t, cfg)
}

// politeConfig writes enginetest.PoliteOptions as the master's --config file (its
// lanes, host rate, and politeness and robots.txt retry at the web's pace), with
// lanes.max (each worker's) set to lanes when > 0.
func politeConfig(t *testing.T, sb *sandbox.Sandbox, dir string, lanes int) string {
	t.Helper()
	o := enginetest.PoliteOptions(sb, "")
	if lanes > 0 {
		o.Lanes.Max = lanes
	}
	p := o.Politeness
	yaml := fmt.Sprintf("lanes: {max: %d, delay_min: %s, delay_max: %s}\nhost_rate: %g\nrevisit: {enabled: false}\n"+
		"politeness: {max_delay: %s, backoff_min: %s, backoff_max: %s, forgive_after: %s}\netiquette: {robots_retry: %s}\n",
		o.Lanes.Max, o.Lanes.DelayMin, o.Lanes.DelayMax, o.HostRate,
		p.MaxDelay, p.BackoffMin, p.BackoffMax, p.ForgiveAfter, o.Etiquette.RobotsRetry)
	file := filepath.Join(dir, "crawl.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// referenceCrawl runs enginetest.ReferenceCrawl of the sandbox beside the test and
// sends its stored page set (or an error).
func referenceCrawl(sb *sandbox.Sandbox, dir string) <-chan referenceResult {
	ch := make(chan referenceResult, 1)
	go func() {
		pages, err := enginetest.ReferenceCrawl(sb, filepath.Join(dir, "reference.db"))
		ch <- referenceResult{pages: pages, err: err}
	}()
	return ch
}

type referenceResult struct {
	pages map[string]bool
	err   error
}

func (r referenceResult) get(t *testing.T) map[string]bool {
	t.Helper()
	if r.err != nil {
		t.Fatalf("reference crawl: %v", r.err)
	}
	if len(r.pages) < 200 {
		t.Fatalf("reference crawl stored only %d pages: too small to judge", len(r.pages))
	}
	return r.pages
}

// sameSet fails the test unless got holds exactly the pages of want.
func sameSet(t *testing.T, what string, got, want map[string]bool) {
	t.Helper()
	var missing, extra []string
	for u := range want {
		if !got[u] {
			missing = append(missing, u)
		}
	}
	for u := range got {
		if !want[u] {
			extra = append(extra, u)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Fatalf("%s: %d pages missing (e.g. %v), %d extra (e.g. %v) against an uninterrupted single-process crawl of %d pages",
			what, len(missing), first(missing), len(extra), first(extra), len(want))
	}
}

// finalStore checks a finished crawl's database like TestKill9AnywhereLosesNothing
// (integrity ok, nothing in progress) and that no page has two rows.
func finalStore(t *testing.T, db string) map[string]bool {
	t.Helper()
	got := pageSet(t, db)
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if c.Pages != int64(len(got)) {
		t.Fatalf("%d page rows for %d distinct pages: a page was stored twice", c.Pages, len(got))
	}
	return got
}

// hostOf is a URL's lower-case host name without port, as the sandbox's truth log
// names hosts.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(p.Hostname())
}

// peek reads a running master's database (read-only, beside the writer, as
// `crawlconsole stats` does).
type peek struct {
	Pages      int64
	InProgress int64
	Unfinished int64 // unprocessed + in progress + deferred
	Nodes      []peekNode
}

type peekNode struct {
	Name   string         `json:"name"`
	State  view.NodeState `json:"state"`
	Joined time.Time      `json:"joined"`
}

func peekDB(db string) (peek, error) {
	var p peek
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return p, err
	}
	defer st.Close()
	c, err := st.Counts()
	if err != nil {
		return p, err
	}
	p.Pages, p.InProgress, p.Unfinished = c.Pages, c.InProgress, c.Unprocessed+c.InProgress+c.Deferred
	if raw, err := st.GetMeta("cluster.nodes.v1"); err == nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, &p.Nodes); err != nil {
			return p, fmt.Errorf("cluster.nodes.v1: %v", err)
		}
	}
	return p, nil
}

// inProgressByHost lists the URLs a running master has handed out and not yet had a
// result for (state 1 in the file format), by host.
func inProgressByHost(db string) (map[string][]string, error) {
	rdb, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	defer rdb.Close()
	rows, err := rdb.Query(`SELECT url FROM urls WHERE state = ?`, int(store.InProgress))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, err
		}
		h := hostOf(u)
		out[h] = append(out[h], u)
	}
	return out, rows.Err()
}
