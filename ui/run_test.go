package ui

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// fakeTerminal is a pseudo-terminal: Run draws on its slave side, the test reads
// the screen and types on the master side, as a terminal emulator would.
type fakeTerminal struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
}

func newFakeTerminal(t *testing.T, cols, rows int) *fakeTerminal {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTerminal{master: master, slave: slave}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			ft.mu.Lock()
			ft.out.Write(buf[:n])
			ft.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { slave.Close(); master.Close() })
	return ft
}

func (ft *fakeTerminal) raw() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.out.String()
}

func (ft *fakeTerminal) waitFor(t *testing.T, text string) {
	t.Helper()
	uitest.WaitUntil(t, "the terminal to show "+text, func() bool { return strings.Contains(ansi.Strip(ft.raw()), text) })
}

func (ft *fakeTerminal) lflag(t *testing.T) uint32 {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(ft.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag
}

func TestRunOnATerminal(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, ft *fakeTerminal, cancel context.CancelFunc)
	}{
		{name: "q then y quits", end: func(t *testing.T, ft *fakeTerminal, _ context.CancelFunc) {
			ft.master.Write([]byte("q"))
			ft.waitFor(t, "Quit crawlconsole?")
			ft.master.Write([]byte("y"))
		}},
		{name: "cancelled context ends it", end: func(_ *testing.T, _ *fakeTerminal, cancel context.CancelFunc) { cancel() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := newFakeTerminal(t, 120, 40)
			before := ft.lflag(t)
			if before&unix.ICANON == 0 || before&unix.ECHO == 0 {
				t.Fatalf("a fresh terminal should be cooked: lflag %#x", before)
			}
			ctrl := fake.New(fake.Config{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				errc <- Run(ctx, ctrl, Options{Input: ft.slave, Output: ft.slave, Refresh: 50 * time.Millisecond, Clock: fixedClock})
			}()
			ft.waitFor(t, "blog-11.sandbox.test")
			if ft.lflag(t)&unix.ICANON != 0 {
				t.Fatal("the console should put the terminal in raw mode")
			}
			tc.end(t, ft, cancel)
			select {
			case err := <-errc:
				if err != nil {
					t.Fatalf("Run = %v", err)
				}
			case <-time.After(uitest.Deadline):
				t.Fatal("Run did not return")
			}
			if after := ft.lflag(t); after != before {
				t.Fatalf("terminal not restored: lflag %#x, was %#x", after, before)
			}
			uitest.WaitUntil(t, "the alternate screen to be left", func() bool {
				raw := ft.raw()
				return strings.LastIndex(raw, "\x1b[?1049l") > strings.LastIndex(raw, "\x1b[?1049h")
			})
			if len(ctrl.Calls()) != 0 {
				t.Fatalf("Run must leave stopping the engine to its caller: %v", ctrl.Calls())
			}
		})
	}
}

func TestRunRejectsAnUnknownTheme(t *testing.T) {
	err := Run(context.Background(), fake.New(fake.Config{}), Options{Theme: "neon"})
	if err == nil || !strings.Contains(err.Error(), `unknown theme "neon"`) {
		t.Fatalf("Run = %v", err)
	}
}
