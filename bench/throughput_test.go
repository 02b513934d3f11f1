package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// throughputParentEnv, set to 1, makes the test binary a bench process that starts a
// sandbox child, prints "PID HTTPADDR" and blocks until killed: the parent whose
// death the child must not outlive.
const throughputParentEnv = "CRAWLCONSOLE_BENCH_THROUGHPUT_TEST_PARENT"

func init() {
	if os.Getenv(throughputParentEnv) == "1" && os.Getenv(throughputSandboxEnv) == "" {
		sb, err := startThroughputSandbox(context.Background(), 4, 1, 0, "")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%d %s\n", sb.Pid(), sb.Info.HTTP)
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // the test never closes it: blocks until killed
		os.Exit(0)
	}
}

// The child serves the sandbox, and accounts for what it served and its CPU time
// between a mark and an account, as the bench reads a run.
func TestThroughputSandboxChildAccountsARun(t *testing.T) {
	sb, err := startThroughputSandbox(context.Background(), 4, 1, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	seeds := sb.seeds()
	if len(seeds) == 0 || sb.Info.DNS == "" || len(sb.hosts()) < 4 {
		t.Fatalf("child's sandbox: %d seeds, DNS %q, hosts %v", len(seeds), sb.Info.DNS, sb.hosts())
	}
	mark, err := sb.mark()
	if err != nil {
		t.Fatal(err)
	}
	tr := crawlTransport(sb.Info.DNS, netip.Addr{})
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for _, u := range seeds {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck // only the sandbox's account matters
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", u, resp.StatusCode)
		}
	}
	a, dns, cpu, err := sb.account(mark)
	if err != nil {
		t.Fatal(err)
	}
	if a.requests != len(seeds) || a.pages != len(seeds) || a.unique != len(seeds) {
		t.Errorf("account after %d entry pages: %d requests, %d pages, %d unique", len(seeds), a.requests, a.pages, a.unique)
	}
	// Go's resolver asks for each new host's name (no cache in this transport).
	if hosts := len(seeds); dns < hosts {
		t.Errorf("%d DNS queries answered for %d hosts", dns, hosts)
	}
	if mark.cpu <= 0 || cpu < 0 {
		t.Errorf("child CPU %v at the mark, %v over the window", mark.cpu, cpu)
	}
	// A second window from a new mark holds nothing yet.
	mark2, err := sb.mark()
	if err != nil {
		t.Fatal(err)
	}
	if a, dns, _, err := sb.account(mark2); err != nil || a.requests != 0 || dns != 0 {
		t.Errorf("a window with no requests: %+v, %d DNS queries, %v", a, dns, err)
	}
	if mark2.next != mark.next+len(seeds) {
		t.Errorf("second mark %d, want %d", mark2.next, mark.next+len(seeds))
	}
	if err := sb.Close(); err != nil {
		t.Errorf("the child's exit after its stdin closed: %v", err)
	}
}

// The child goes away when the bench's context ends.
func TestThroughputSandboxChildEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb, err := startThroughputSandbox(ctx, 4, 1, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if c, err := net.Dial("tcp", sb.Info.HTTP); err != nil {
		t.Fatalf("the child does not serve: %v", err)
	} else {
		c.Close()
	}
	cancel()
	select {
	case <-sb.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the child (pid %d) still runs 20 s after the context ended", sb.Pid())
	}
	var exit *exec.ExitError
	if !errors.As(sb.waitErr, &exit) {
		t.Errorf("child's exit: %v, want it killed", sb.waitErr)
	}
	if c, err := net.Dial("tcp", sb.Info.HTTP); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after the child ended", sb.Info.HTTP)
	}
	if _, err := sb.mark(); err == nil {
		t.Error("mark answered by a child that has ended")
	}
}

// The child goes away when the bench process is killed outright (no deferred
// Close, no context): its stdin ends with its parent.
func TestThroughputSandboxChildDiesWithParent(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(self)
	parent.Env = append(os.Environ(), throughputParentEnv+"=1")
	stdin, err := parent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// The child inherits the parent's stderr: this pipe ends when both have exited.
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer errR.Close()
	parent.Stderr = errW
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	errW.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	pidText, addr, ok := strings.Cut(strings.TrimSpace(line), " ")
	pid, perr := strconv.Atoi(pidText)
	if err != nil || !ok || perr != nil {
		parent.Process.Kill() //nolint:errcheck // cleanup
		parent.Wait()         //nolint:errcheck // cleanup
		t.Fatalf("parent's line %q: %v", line, err)
	}
	if c, err := net.Dial("tcp", addr); err != nil {
		t.Errorf("the child does not serve: %v", err)
	} else {
		c.Close()
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	parent.Wait() //nolint:errcheck // killed
	errR.SetReadDeadline(time.Now().Add(20 * time.Second))
	rest, err := io.ReadAll(errR)
	if err != nil {
		if p, ferr := os.FindProcess(pid); ferr == nil {
			p.Kill() //nolint:errcheck // cleanup of a child that outlived its parent
		}
		t.Fatalf("the child (pid %d) outlived its killed parent by 20 s: %v (stderr %q)", pid, err, rest)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after the parent was killed", addr)
	}
}
