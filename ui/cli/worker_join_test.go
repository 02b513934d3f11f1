package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// waitText waits for want in out (a 90 s guard: the box may be loaded).
func waitText(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(enginetest.Patience)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("never said %q:\n%s", want, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A worker started before its master waits for it (it used to exit 2 at once),
// saying the master is unreachable, and joins when it comes; when the master goes
// away it says so again, and when a master is back on the same database it says
// it rejoined. Stopped, it leaves gracefully (exit 0).
func TestWorkerWaitsForItsMasterAndSaysSo(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	sb := clusterSandbox(t, 12, 8, nil)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	if err := os.WriteFile(db+".token", []byte("a-token-copied-before-the-master-ran\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	listen := uitest.FreeAddr(t)
	wctx, stopWorker := context.WithCancel(context.Background())
	defer stopWorker()
	werr := &syncBuffer{}
	workerDone := make(chan int, 1)
	go func() {
		workerDone <- runWorker(wctx, []string{"--join", "nats://" + listen, "--name", "w1", "--token-file", db + ".token",
			"--allow-private", "127.0.0.0/8", "--egress", "bind:127.0.0.73"}, io.Discard, werr)
	}()
	waitText(t, werr, "worker w1: master unreachable")
	master := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		args := []string{"--config", politeConfig(t, sb, dir, 4), "--headless", "--db", db, "--listen", listen,
			"--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(), "--heartbeat", "200ms"}
		for _, s := range sb.Info().Sites {
			args = append(args, s.Entry)
		}
		done := make(chan int, 1)
		go func() { done <- runMaster(ctx, args, io.Discard, io.Discard) }()
		return func() { cancel(); <-done }
	}
	stopMaster := master()
	waitText(t, werr, "worker w1: master answered after")
	stopMaster()
	waitText(t, werr, "master unreachable: 2 heartbeats unanswered")
	stopMaster = master()
	defer stopMaster()
	waitText(t, werr, "worker w1: master reachable again")
	waitText(t, werr, "worker w1: rejoined")
	stopWorker()
	if code := <-workerDone; code != 0 {
		t.Errorf("worker exit %d after a graceful leave, want 0:\n%s", code, werr.String())
	}
}

// --join-wait bounds the wait: a worker whose master never comes gives up with the
// usage exit status and says why. Whether a retry (and its "master unreachable"
// line) fits in the second depends on how long the first try takes on a loaded box;
// the reason and the bound are in the final error either way.
func TestWorkerJoinWaitBoundsTheWait(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := Main([]string{"worker", "--join", "nats://" + uitest.FreeAddr(t), "--name", "w1", "--token", "x", "--join-wait", "1s"}, &out, &errb)
	if code != ExitUsage || !strings.Contains(errb.String(), "cannot reach the master") || !strings.Contains(errb.String(), "gave up after --join-wait 1s") {
		t.Fatalf("exit %d, stderr %q: want exit %d, the master not reached, and giving up after 1s", code, errb.String(), ExitUsage)
	}
}
