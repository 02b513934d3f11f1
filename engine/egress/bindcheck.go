package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// CheckBind says whether a bind: egress can send from this machine: every
// connection from an address it does not have fails (bind: cannot assign requested
// address), so each site's robots.txt is unreachable and a crawl ends with
// "nothing was fetched: robots_unreachable", nothing saying why. The start-up
// config and the console's `:egress add` ask the same question. Other kinds pass.
// The error names the egress (its name and spec): with several bind: egresses, the
// address alone does not say which line of a config to fix.
func (s Spec) CheckBind() error {
	if s.Kind != KindBind {
		return nil
	}
	fail := func(why string) error {
		return &SpecError{Name: s.Name, Masked: "bind:" + s.Address, Reason: why}
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
		return nil
	}
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		return fail(fmt.Sprintf("%s is not an address of this machine, so no request can leave from it; give one it has (ip -br addr lists them)", s.Address))
	}
	return nil
}
