// Package natstest starts a throwaway embedded NATS server for tests of a
// distributed crawl: the master's, the worker's and the engine's. It is apart from
// clustertest because it imports cluster, whose own tests import clustertest.
package natstest

import (
	"path/filepath"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
)

// Token is the server's client token.
const Token = "tok"

// Start starts an embedded NATS server on a loopback port (token Token, its store
// in dir/nats, shut down with the test) and returns dir, a temp dir for the test's
// other files, and conn, which connects a named client to it (closed with the test).
func Start(t testing.TB) (dir string, conn func(name string) *cluster.Conn) {
	t.Helper()
	dir = t.TempDir()
	srv, err := embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: Token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return dir, func(name string) *cluster.Conn {
		t.Helper()
		c, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: name, Token: Token})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
}
