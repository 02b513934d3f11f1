package cli

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// bindNotLocal says which bind: egress names an address this machine does not have,
// before a crawl starts on it: every connection from it fails (bind: cannot assign
// requested address), so each site's robots.txt is unreachable and the crawl ends
// with "nothing was fetched: robots_unreachable", nothing saying why. A master's
// egresses are its workers' and are not checked here. The message names the egress
// (its name and spec, as the egress parser's errors do): with several bind:
// egresses, the address alone does not say which line of a config to fix.
func bindNotLocal(specs []string) error {
	list, err := egress.ParseSpecs(specs)
	if err != nil {
		return nil // the engine says what is wrong with the spec itself
	}
	for _, s := range list {
		if s.Kind != egress.KindBind {
			continue
		}
		fail := func(why string) error {
			return &egress.SpecError{Name: s.Name, Masked: "bind:" + s.Address, Reason: why}
		}
		// An IPv6 link-local address is an address of an interface, and a socket
		// bound to it needs that interface's zone, which a bind: spec cannot carry:
		// without it the kernel refuses the bind (EINVAL, not EADDRNOTAVAIL), the
		// same for every request, whichever interface holds the address.
		if a, err := netip.ParseAddr(s.Address); err == nil && a.Is6() && (a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast()) {
			return fail(fmt.Sprintf("%s is a link-local address, which needs its interface to be bound and an egress cannot name one, so no request can leave from it; give a global or private address of this machine (ip -br addr lists them)", s.Address))
		}
		l, err := net.Listen("tcp", net.JoinHostPort(s.Address, "0"))
		if err == nil {
			l.Close()
			continue
		}
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			return fail(fmt.Sprintf("%s is not an address of this machine, so no request can leave from it; give one it has (ip -br addr lists them)", s.Address))
		}
	}
	return nil
}
