package dnscache

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A name of the hosts file, and localhost always, resolve with no DNS server at
// all, as they do for the box's other clients; other names still go to the servers
// (here none: no_servers). Before, a crawl of http://localhost:8080/ on a box with no
// DNS server failed as robots_unreachable.
func TestHostsFileAndLocalhostNeedNoServer(t *testing.T) {
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("# static names\n127.0.0.2 intranet.example intra # an alias\n::1 v6only.example\nnot-an-address bad.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.ResolvConf = filepath.Join(t.TempDir(), "none") // no server at all
	o.HostsFile = hosts
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := map[string][]netip.Addr{
		"intranet.example":  {netip.MustParseAddr("127.0.0.2")},
		"INTRA.":            {netip.MustParseAddr("127.0.0.2")},
		"v6only.example":    {netip.MustParseAddr("::1")},
		"localhost":         {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
		"api.dev.localhost": {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
	}
	for name, addrs := range want {
		got, err := c.LookupAddrs(context.Background(), name)
		if err != nil || !slices.Equal(got, addrs) {
			t.Errorf("%s: %v, %v; want %v", name, got, err, addrs)
		}
	}
	if got, err := c.LookupAddrs(context.Background(), "bad.example"); err == nil {
		t.Errorf("bad.example (a line whose address does not parse) resolved to %v without a server", got)
	}
	if n := c.Stats().Lookups; n != 1 {
		t.Errorf("%d lookups counted; want 1 (static names are not lookups, as IP literals are not)", n)
	}
}
