package cluster

import (
	"net"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/clustertest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
)

const testToken = "s3cret-test-token"

// startTestServer starts an embedded server on a random loopback port with a fresh
// store, after edit (if any) adjusts the options; it is shut down with the test.
func startTestServer(t testing.TB, edit func(*embedded.Options)) (*embedded.Server, embedded.Options) {
	t.Helper()
	o := embedded.Options{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Token: testToken}
	if edit != nil {
		edit(&o)
	}
	s, err := embedded.Start(o)
	if err != nil {
		t.Fatalf("embedded.Start: %v", err)
	}
	t.Cleanup(s.Shutdown)
	return s, o
}

// connectTest connects with the test token and closes the connection with the test.
func connectTest(t testing.TB, url string, o ClientOptions) *Conn {
	t.Helper()
	if o.Token == "" {
		o.Token = testToken
	}
	c, err := Connect(url, o)
	if err != nil {
		t.Fatalf("Connect(%s): %v", url, err)
	}
	t.Cleanup(c.Close)
	return c
}

// waitFor polls cond until it holds or the deadline passes; it never sleeps longer
// than one short tick at a time.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// testPKI is a throwaway CA and a server certificate it signed for 127.0.0.1.
type testPKI = clustertest.PKI

func newTestPKI(t testing.TB) testPKI { return clustertest.NewPKI(t) }
