// Package uitest holds what the console's tests share across packages (ui, ui/ssh,
// ui/cli): a wait on a condition the test can observe, bounded by one deadline, and
// a free loopback address.
package uitest

import (
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// HTMLSite is a loopback web site without a robots.txt whose every page is the
// HTML page(w, path) writes; it is closed at cleanup.
func HTMLSite(t testing.TB, page func(w io.Writer, path string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page(w, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// FreeAddr is a loopback "127.0.0.1:PORT" that was free a moment ago, for a test
// that must give a process a port before it starts (and the same port again when
// it restarts). The port is drawn below the kernel's ephemeral range: a port the
// kernel hands out (a listener on :0, the local end of any outgoing connection of
// the tests running beside this one) is never one of these, so none can take it
// between this check and the process's listen. Each is handed out once a process.
func FreeAddr(t testing.TB) string {
	t.Helper()
	lo := ephemeralLow()
	for range 200 {
		port := lo - 1 - rand.IntN(min(12000, lo-1024))
		freeMu.Lock()
		taken := freeGiven[port]
		freeGiven[port] = true
		freeMu.Unlock()
		if taken {
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

var (
	freeMu    sync.Mutex
	freeGiven = map[int]bool{}
)

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// ip_local_port_range; IANA's 49152 where it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if lo, err := strconv.Atoi(f[0]); err == nil && lo > 2048 {
				return lo
			}
		}
	}
	return 49152
}

// Deadline bounds every wait: generous, as the box running the tests may be shared
// and loaded. A wait that reaches it failed; one that succeeds returns as soon as its
// condition holds.
const Deadline = 30 * time.Second

// WaitUntil checks cond every 20 ms until it holds, and fails t naming what it
// waited for when Deadline passes first.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
