package dnscache

import (
	"bufio"
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
)

// hostsTable holds the box's static names: the hosts file (/etc/hosts by default,
// read once when the Cache is made), and localhost, which RFC 6761 §6.3 keeps on the
// loopback whatever a server says. They are answered like IP literals, before the
// caches and without a query, as every other client on the box (curl, a browser,
// Go's own resolver) reads the hosts file first: a crawl of http://localhost:8080/
// must work on a box whose DNS server does not know the name, or that has none.
type hostsTable map[string][]netip.Addr

// maxHostsFile bounds what is read of a hosts file.
const maxHostsFile = 1 << 20

// readHosts reads a hosts file ("address name [aliases...]" lines, # comments);
// a missing or unreadable file is an empty table.
func readHosts(path string) hostsTable {
	t := hostsTable{}
	f, err := os.Open(path)
	if err != nil {
		return t
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxHostsFile))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		if len(fs) < 2 {
			continue
		}
		a, err := netip.ParseAddr(fs[0])
		if err != nil {
			continue
		}
		a = a.WithZone("").Unmap()
		for _, n := range fs[1:] {
			n = strings.ToLower(strings.TrimSuffix(n, "."))
			if !slices.Contains(t[n], a) {
				t[n] = append(t[n], a)
			}
		}
	}
	return t
}

var loopback = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}

// lookup answers a static name: the hosts file's addresses, else the loopback for
// localhost and names under it. skipAAAA leaves IPv6 addresses out.
func (t hostsTable) lookup(host string, skipAAAA bool) ([]netip.Addr, bool) {
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	addrs, ok := t[name]
	if !ok && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		addrs, ok = loopback, true
	}
	if !ok {
		return nil, false
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if !skipAAAA || a.Is4() {
			out = append(out, a)
		}
	}
	return out, len(out) > 0
}
