package route

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// CheckSessionProxy puts the address of a proxy added from a console session
// through the targets' SSRF policy (fetch.Guard with the start-up allow_private
// ranges): a session must not point the crawl's proxy traffic, credentials
// included, at the server's own network. A host name is resolved now (through
// resolver; nil: the system's) and every address must pass. A bind egress names a
// local source address, not a destination, and is not checked.
func CheckSessionProxy(ctx context.Context, sp egress.Spec, allowPrivate []string, resolver fetch.Resolver) error {
	if sp.Kind == egress.KindBind {
		return nil
	}
	refuse := func(reason string) error {
		return &egress.SpecError{Name: sp.Name, Masked: sp.Masked(), Reason: reason}
	}
	guard, err := fetch.NewGuard(allowPrivate)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(sp.Address)
	if err != nil {
		return refuse("proxy address must be host:port")
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if resolver != nil {
			addrs, err = resolver.LookupAddrs(ctx, host)
		} else {
			addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
		if err != nil {
			return refuse("proxy host does not resolve: " + err.Error())
		}
		if len(addrs) == 0 {
			return refuse("proxy host has no address")
		}
	}
	for _, a := range addrs {
		if guard.Check(host, a) != nil {
			return refuse(fmt.Sprintf("proxy address %s is loopback/private/link-local: refused from a console session unless the start-up allow_private ranges cover it", a.Unmap()))
		}
	}
	return nil
}
