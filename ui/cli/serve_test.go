package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
)

// syncBuffer is a bytes.Buffer safe for the SSH reader goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// answer, if set, gets the terminal's replies to the renderer's queries.
	answer io.Writer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	if s.answer != nil && bytes.Contains(p, []byte("\x1b[c")) {
		// Like a real terminal: background colour and device attributes.
		s.answer.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[?62;c"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestServeSteersACrawlOverSSH runs `crawlconsole serve` on loopback, pauses the crawl
// from an operator's SSH session, and checks that ending the server ends the crawl
// cleanly with its stats written.
func TestServeSteersACrawlOverSSH(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/p/%d", &n)
		fmt.Fprintf(w, `<html><a href="/p/%d">next</a></html>`, n+1)
	}))
	defer site.Close()
	dir := t.TempDir()
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	sp, _ := gossh.NewPublicKey(pub)
	keys := filepath.Join(dir, "operators")
	os.WriteFile(keys, gossh.MarshalAuthorizedKey(sp), 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stats := filepath.Join(dir, "stats.json")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- runServe(ctx, []string{"--ssh", addr, "--host-key", filepath.Join(dir, "host_key"),
			"--authorized-keys", keys, "--db", filepath.Join(dir, "c.db"), "--allow-private", "127.0.0.0/8",
			"--delay", "20ms..40ms", "--stats-json", stats, site.URL + "/p/0"}, &out, &errOut)
	}()

	var client *gossh.Client
	deadline := time.Now().Add(enginetest.Patience)
	for {
		client, err = gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "op", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
			HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("ssh: %v (server said: %s)", err, errOut.String())
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	stdin, _ := sess.StdinPipe()
	screen := &syncBuffer{answer: stdin}
	sess.Stdout = screen
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	waitText := func(want string) {
		t.Helper()
		deadline := time.Now().Add(enginetest.Patience)
		for !strings.Contains(screen.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("console never showed %q", want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitText("RUNNING")
	_, port, _ := net.SplitHostPort(addr)
	if want := "serving the console over SSH on " + addr + " (connect: ssh -p " + port + " 127.0.0.1)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("the start does not say how to connect (%q):\n%s", want, errOut.String())
	}
	stdin.Write([]byte("p"))
	waitText("PAUSED")
	sess.Close()

	cancel() // SIGINT/SIGTERM in real life
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("serve exited %d: %s", c, errOut.String())
		}
	case <-time.After(enginetest.Patience):
		t.Fatal("serve did not stop after its context ended")
	}
	if _, err := os.Stat(stats); err != nil {
		t.Fatalf("no stats written at exit: %v", err)
	}
	if !strings.Contains(out.String(), "done:") {
		t.Fatalf("no summary line: %q", out.String())
	}
	// Stopped paused, with its endless chain of pages left: how to go on names serve,
	// not crawl, which would go on without the SSH console.
	if want := "to go on, start serve again with --db " + filepath.Join(dir, "c.db") + " and its --ssh flags"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, errOut.String())
	}
}

// TestServeThatCannotServeExitsBeforeCrawling: a taken port, a host key others can
// read, or an authorized_keys line with options are usage errors (exit 2) found
// before the crawl starts: nothing is fetched and no store is created. Before, the
// crawl started, the SSH server failed beside it, and serve exited 0.
func TestServeThatCannotServeExitsBeforeCrawling(t *testing.T) {
	fetched := make(chan string, 100)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched <- r.URL.Path
		fmt.Fprint(w, `<html>hi</html>`)
	}))
	defer site.Close()
	dir := t.TempDir()
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	sp, _ := gossh.NewPublicKey(pub)
	keys := filepath.Join(dir, "operators")
	os.WriteFile(keys, gossh.MarshalAuthorizedKey(sp), 0o600)
	optioned := filepath.Join(dir, "optioned")
	os.WriteFile(optioned, append([]byte("restrict,from=\"10.0.0.1\" "), gossh.MarshalAuthorizedKey(sp)...), 0o600)
	openKey := filepath.Join(dir, "open_host_key")
	os.WriteFile(openKey, []byte("not even a key"), 0o644)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free := "127.0.0.1:0"

	for _, c := range []struct {
		name, addr, hostKey, keys, want string
	}{
		{"port taken", taken.Addr().String(), filepath.Join(dir, "hk1"), keys, "address already in use"},
		{"host key readable by others", free, openKey, keys, "readable by others"},
		{"authorized key with options", free, filepath.Join(dir, "hk2"), optioned, "options"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".db")
			var out, errOut syncBuffer
			code := runServe(context.Background(), []string{"--ssh", c.addr, "--host-key", c.hostKey,
				"--authorized-keys", c.keys, "--db", db, "--allow-private", "127.0.0.0/8", site.URL + "/"}, &out, &errOut)
			if code != ExitUsage || !strings.Contains(errOut.String(), c.want) {
				t.Fatalf("exit %d, stderr %q: want exit %d saying %q", code, errOut.String(), ExitUsage, c.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("a serve that could not serve created its store %s", db)
			}
			select {
			case p := <-fetched:
				t.Errorf("a serve that could not serve fetched %s", p)
			default:
			}
		})
	}
}
