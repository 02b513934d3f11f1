// Package uitest holds what the console's tests share across packages (ui, ui/ssh,
// ui/cli): a wait on a condition the test can observe, bounded by one deadline, and
// a free loopback address.
package uitest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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

// FreeAddr is a loopback "127.0.0.1:PORT" that was free a moment ago (a port the
// kernel just gave and took back).
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
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
