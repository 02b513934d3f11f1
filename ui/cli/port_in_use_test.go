package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPortInUseSaysWhatToDo: an --operator or --metrics port another process holds
// stops the start with exit 2, naming the flag and what to do, and leaves no store
// behind. The operator port said "start the embedded NATS server on --listen …"
// (a flag crawl does not take) in NATS's words.
func TestPortInUseSaysWhatToDo(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	for _, flag := range []string{"--operator", "--metrics"} {
		t.Run(flag, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "a.db")
			var out, errs strings.Builder
			code := runCrawl(context.Background(), []string{"--headless", "--db", db, flag, addr, "http://127.0.0.1:9/"}, &out, &errs)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			msg := errs.String()
			for _, want := range []string{flag + " " + addr, "another process listens on that port: give " + flag + " another port"} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "--listen") {
				t.Errorf("stderr names --listen, a flag crawl does not take:\n%s", msg)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("the failed start left %s behind", db)
			}
		})
	}
}

// TestMasterListenInUseSaysWhatToDo: a master whose --listen port another process
// holds (a master already running there, often) stops with exit 2 saying what to do,
// and leaves no store behind. It said NATS's "Error listening on port: …" alone.
func TestMasterListenInUseSaysWhatToDo(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	db := filepath.Join(t.TempDir(), "m.db")
	var out, errs strings.Builder
	code := Main([]string{"master", "--headless", "--db", db, "--listen", addr, "http://127.0.0.1:9/"}, &out, &errs)
	if code != ExitUsage {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
	msg := errs.String()
	for _, want := range []string{"--listen " + addr, "another process listens on that port: give --listen another port", "console --attach"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("the failed start left %s behind", db)
	}
}
