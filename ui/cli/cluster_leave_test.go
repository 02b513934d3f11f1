package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// TestWorkerStopsSoonWhenTheMasterIsGone: SIGTERM to a `crawlconsole worker` whose
// master was SIGKILLed (its embedded NATS server with it) ends the worker once its
// --leave-grace has passed, not before, and not after waiting out NATS's own timeouts
// on the dead server (which printed only "leave: nats: timeout"), with one line counting what the master did not get and exit status
// ExitUndelivered. The line's promise holds: the master, restarted on its database,
// queues those URLs again and the crawl ends with every page of an uninterrupted one.
func TestWorkerStopsSoonWhenTheMasterIsGone(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	if testing.Short() {
		t.Skip("runs master and worker subprocesses")
	}
	sb := clusterSandbox(t, 13, 6, nil)
	dir := t.TempDir()
	ref := referenceCrawl(sb, dir)
	db, listen := filepath.Join(dir, "crawl.db"), uitest.FreeAddr(t)
	masterArgs := []string{"master", "--config", politeConfig(t, sb, dir, 0), "--headless", "--until-idle", "--db", db,
		"--listen", listen, "--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(), "--heartbeat", "300ms"}
	for _, s := range sb.Info().Sites {
		masterArgs = append(masterArgs, s.Entry)
	}
	// A grace shorter than the 5 s default: the test waits it out.
	const grace = 500 * time.Millisecond
	worker := func(name string) *child {
		w := startChild(t, "worker "+name, "worker", "--join", "nats://"+listen, "--name", name, "--token-file", db+".token",
			"--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(), "--egress", "bind:127.0.0.2", "--egress", "bind:127.0.0.3",
			"--leave-grace", grace.String())
		w.waitOutput(t, "worker "+name+": joined", 90*time.Second)
		return w
	}
	m := startChild(t, "master", masterArgs...)
	m.waitOutput(t, "workers join with", 90*time.Second)
	w := worker("w1")
	deadline := time.Now().Add(enginetest.Patience)
	for p, err := peekDB(db); err != nil || p.Pages < 20; p, err = peekDB(db) {
		if m.exited() || time.Now().After(deadline) {
			t.Fatalf("master (exited %v) stored %d pages (%v) within 60s; want 20 before the kill:\n%s",
				m.exited(), p.Pages, err, tail(m.out.String(), 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
	killed := time.Now() // the worker's connection drops after this: its grace starts later
	m.kill()

	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := w.wait(t)
	took := time.Since(killed)
	out := w.out.String()
	line := regexp.MustCompile(`(?m)^crawlconsole worker: w1 stopped: master unreachable \(no connection to its NATS server for 500ms\): ` +
		`(\d+) fetched results not delivered, (\d+) URLs not handed back; the master queues their URLs again when it restarts or declares this worker dead$`)
	got := line.FindStringSubmatch(out)
	if code != ExitUndelivered || got == nil {
		t.Fatalf("worker exited with status %d %v after its master was killed; want %d and the line of what was not delivered:\n%s",
			code, took, ExitUndelivered, tail(out, 10))
	}
	if took < grace {
		t.Errorf("worker stopped %v after its master was killed: it did not wait its --leave-grace %v for the server to come back", took, grace)
	}
	results, _ := strconv.Atoi(got[1])
	urls, _ := strconv.Atoi(got[2])
	if results+urls == 0 {
		t.Errorf("the worker held nothing when its master was killed mid-crawl? %q", got[0])
	}
	if n := strings.Count(out, "crawlconsole worker:"); n != 1 {
		t.Errorf("%d lines from the worker about its end, want 1:\n%s", n, tail(out, 10))
	}
	t.Logf("worker stopped %v after its master was killed (status %d): %s", took.Round(time.Millisecond), code, got[0])

	// The master, restarted, queues again what w1 did not deliver; the crawl ends by
	// itself with the pages of an uninterrupted one.
	m = startChild(t, "master run 2", masterArgs...)
	m.waitOutput(t, "workers join with", 90*time.Second)
	w = worker("w1")
	if code := m.wait(t); code != 0 || !strings.Contains(m.out.String(), "done:") {
		t.Fatalf("the restarted master exited with status %d without finishing:\n%s", code, tail(m.out.String(), 20))
	}
	w.kill()
	sameSet(t, "after the worker stopped with its master gone", finalStore(t, db), (<-ref).get(t))
}

// A worker whose master has finished and gone, stopped while it holds nothing,
// stops as the README says of a master out of reach: exit status ExitUndelivered
// (the master was not reached, which is no runtime failure of the worker) and one
// line saying that nothing is missing, not that the unreachable master took back
// what it held.
func TestWorkerStoppedAfterItsMasterFinishedSaysNothingIsMissing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs master and worker subprocesses")
	}
	// How the crawl goes is not the point, only that it ended: its web runs 1000
	// times faster than real time, and the polite pace with it.
	sb := clusterSandbox(t, 14, 4, func(c *sandbox.Config) { c.Scale = 1000 })
	dir := t.TempDir()
	db, listen := filepath.Join(dir, "crawl.db"), uitest.FreeAddr(t)
	masterArgs := []string{"master", "--config", politeConfig(t, sb, dir, 0), "--headless", "--until-idle", "--db", db,
		"--listen", listen, "--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(), "--heartbeat", "300ms"}
	for _, s := range sb.Info().Sites {
		masterArgs = append(masterArgs, s.Entry)
	}
	m := startChild(t, "master", masterArgs...)
	m.waitOutput(t, "workers join with", 90*time.Second)
	w := startChild(t, "worker w1", "worker", "--join", "nats://"+listen, "--name", "w1", "--token-file", db+".token",
		"--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(), "--leave-grace", "500ms")
	if code := m.wait(t); code != 0 {
		t.Fatalf("the master exited with status %d:\n%s", code, tail(m.out.String(), 20))
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := w.wait(t)
	out := w.out.String()
	want := "crawlconsole worker: w1 stopped: master unreachable (no connection to its NATS server for 500ms); nothing is missing:"
	if code != ExitUndelivered || !strings.Contains(out, want) {
		t.Fatalf("worker exited with status %d; want %d and a line saying %q:\n%s", code, ExitUndelivered, want, tail(out, 10))
	}
}
