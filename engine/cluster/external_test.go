package cluster

import (
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// externalServer is a nats-server binary (Debian's package nats-server, 2.9.x) run as
// its own process: the oldest server the package promises to work with.
type externalServer struct {
	t     *testing.T
	bin   string
	port  int
	dir   string
	token string
	url   string

	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	log  lockedBuffer
}

// lockedBuffer collects the server's output for failure messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startExternal starts nats-server from PATH with JetStream and token auth on a free
// loopback port, or skips the test when the binary is not installed.
func startExternal(t *testing.T, token string) *externalServer {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not on PATH: install Debian's package nats-server (apt-get install nats-server) to test against nats-server 2.9")
	}
	out, _ := exec.Command(bin, "--version").CombinedOutput()
	t.Logf("external server: %s", strings.TrimSpace(string(out)))
	x := &externalServer{t: t, bin: bin, port: freePort(t), dir: t.TempDir(), token: token}
	x.url = fmt.Sprintf("nats://127.0.0.1:%d", x.port)
	x.start()
	t.Cleanup(x.kill)
	return x
}

// start runs the process and waits, polling Connect, until it accepts clients.
func (x *externalServer) start() {
	x.t.Helper()
	x.cmd = exec.Command(x.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(x.port),
		"-js", "-sd", x.dir, "--auth", x.token)
	x.cmd.Stdout, x.cmd.Stderr = &x.log, &x.log
	if err := x.cmd.Start(); err != nil {
		x.t.Fatalf("start %s: %v", x.bin, err)
	}
	x.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(x.cmd, x.done)
	deadline := time.Now().Add(90 * time.Second)
	for {
		c, err := Connect(x.url, ClientOptions{Name: "probe", Token: x.token, Timeout: time.Second})
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-x.done:
			x.t.Fatalf("nats-server exited before accepting clients:\n%s", x.log.String())
		default:
		}
		if time.Now().After(deadline) {
			x.kill()
			x.t.Fatalf("nats-server did not accept clients within 90s (last error: %v):\n%s", err, x.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (x *externalServer) kill() {
	if x.cmd == nil || x.cmd.Process == nil {
		return
	}
	_ = x.cmd.Process.Signal(syscall.SIGKILL)
	<-x.done
	x.cmd = nil
}

func TestExternalNATSServer(t *testing.T) {
	t.Parallel()
	x := startExternal(t, testToken)
	t.Run("refuses strangers", func(t *testing.T) { checkRefusesStrangers(t, x.url) })
	c := connectTest(t, x.url, ClientOptions{Name: "worker-1"})
	t.Run("round trip", func(t *testing.T) {
		// A stock server keeps nats' 1 MiB max_payload; only the embedded one raises it.
		if got := c.NC.MaxPayload(); got < 512<<10 {
			t.Fatalf("server max payload %d", got)
		}
		checkRoundTrip(t, c, 512<<10)
	})
	t.Run("survives SIGKILL", func(t *testing.T) {
		checkSurvivesRestart(t, c, x.kill, x.start, false)
	})
}
