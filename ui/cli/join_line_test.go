package cli

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestMasterJoinLineCarriesItsPrivateRanges: the worker command a master prints to
// paste names the --allow-private ranges the master was started with. Without them a
// worker started from the line refused every seed on loopback or a LAN as
// ssrf_blocked, and the crawl ended with nothing fetched.
func TestMasterJoinLineCarriesItsPrivateRanges(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	db := filepath.Join(t.TempDir(), "m.db")
	var out, errs strings.Builder
	runMaster(context.Background(), []string{"--headless", "--duration", "500ms", "--db", db, "--listen", addr,
		"--allow-private", "127.0.0.0/8", "--allow-private", "10.0.0.0/8", "http://127.0.0.1:9/"}, &out, &errs)
	var join string
	for _, l := range strings.Split(errs.String(), "\n") {
		if strings.Contains(l, "workers join with:") {
			join = l
		}
	}
	if join == "" {
		t.Fatalf("no join line:\n%s", errs.String())
	}
	if !strings.Contains(join, "--allow-private 127.0.0.0/8 --allow-private 10.0.0.0/8") {
		t.Errorf("join line without the master's private ranges:\n%s", join)
	}
}
