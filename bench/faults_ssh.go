package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/crawlconsole/crawlconsole/ui"
	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/ssh"
)

// faultsSSHServerEnv, set to a directory, makes this process the SSH console server
// of the faults bench (a process of its own, so its RSS is its own): it serves with
// DIR/operators and DIR/host_key on loopback, prints "listening ADDR", and runs
// until SIGINT or SIGTERM.
const faultsSSHServerEnv = "CRAWLCONSOLE_BENCH_FAULTS_SSH_SERVER"

func init() {
	if dir := os.Getenv(faultsSSHServerEnv); dir != "" {
		os.Exit(faultsSSHServer(dir))
	}
}

func faultsSSHServer(dir string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	fmt.Printf("listening %s\n", ln.Addr())
	err = ssh.Serve(ctx, fake.New(fake.Config{}), ssh.ServeOptions{Listener: ln,
		HostKeyPath: filepath.Join(dir, "host_key"), AuthorizedKeysPath: filepath.Join(dir, "operators"),
		Options: ui.Options{Title: "bench"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// sshFlood starts the SSH server in a process of its own, holds halfOpen silent
// connections from as many loopback addresses (127.0.1.0 on), and counts the
// OpenSSH client's first-try logins of tries. It returns those, the server's peak
// RSS in MB and how many silent connections were open at the end.
func sshFlood(dir string, tries, halfOpen int) (logins int, rssMB float64, held int64, err error) {
	sdir := filepath.Join(dir, "ssh")
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return 0, 0, 0, err
	}
	key := filepath.Join(sdir, "operator")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("ssh-keygen (apt-get install openssh-client): %v %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return 0, 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(sdir, "operators"), pub, 0o600); err != nil {
		return 0, 0, 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, 0, 0, err
	}
	srv, rss := timed(self)
	srv.Env = append(os.Environ(), faultsSSHServerEnv+"="+sdir)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return 0, 0, 0, err
	}
	defer func() {
		syscall.Kill(-srv.Process.Pid, syscall.SIGINT) // the group: time ignores it, the server stops
		srv.Wait()
		rssMB = rss()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		return 0, 0, 0, fmt.Errorf("the SSH server did not start: %q %v", line, err)
	}
	_, port, _ := net.SplitHostPort(addr)

	// The flood: each address holds one silent connection, dialled again 200 ms
	// after the server closes it (refused at accept or dropped).
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var open atomic.Int64
	var up sync.WaitGroup
	up.Add(halfOpen)
	for i := range halfOpen {
		from := net.IPv4(127, 0, byte(1+i/250), byte(1+i%250))
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: from}, Timeout: 5 * time.Second}
			for ctx.Err() == nil {
				c, err := d.DialContext(ctx, "tcp", addr)
				if err == nil {
					open.Add(1)
					stop := context.AfterFunc(ctx, func() { c.Close() })
					r := bufio.NewReader(c)
					r.ReadString('\n') // the server's version: taken (or EOF: refused)
					if first {
						first = false
						up.Done()
					}
					for { // silent: read until the server closes
						if _, err := r.ReadByte(); err != nil {
							break
						}
					}
					stop()
					c.Close()
					open.Add(-1)
				} else if first {
					first = false
					up.Done()
				}
				select {
				case <-ctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
	}
	up.Wait() // every address has connected once
	defer func() { cancel(); wg.Wait() }()

	for i := range tries {
		cmd := exec.Command("ssh", "-v", "-i", key, "-p", port, "-T",
			"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
			"-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=10", "-o", "ConnectionAttempts=1",
			"operator@127.0.0.1", "true")
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), "Authenticated to ") {
			logins++
		} else {
			fmt.Printf("  try %d: no login: %s\n", i+1, lastLines(string(out), 3))
		}
	}
	held = open.Load()
	return logins, 0, held, nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}
