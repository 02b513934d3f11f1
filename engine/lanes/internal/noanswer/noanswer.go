// Package noanswer says why a site's robots.txt got no answer when the site
// itself is to blame for it: its own name did not resolve, or the SSRF guard
// refused its own address. A redirect's target failing so leaves the site
// reachable, and is none of these.
package noanswer

import (
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// NameFailure is why host's own name did not resolve when err kept its robots.txt
// from being fetched: the lookup's kind (nxdomain, servfail, refused, timeout, ...)
// and whether it is final (the name, or its addresses, do not exist). ok is false
// when err is no DNS failure of host (a redirect's target that does not resolve
// leaves the site itself reachable).
func NameFailure(err error, host string) (kind string, final, ok bool) {
	if fetch.Kind(err) != fetch.KindDNS {
		return "", false, false
	}
	name := ""
	if le, is := errors.AsType[*dnscache.LookupError](err); is {
		name, kind = le.Host, le.Kind
	} else if de, is := errors.AsType[*fetch.DNSError](err); is {
		name = de.Host
	} else if ne, is := errors.AsType[*net.DNSError](err); is {
		name = ne.Name
	}
	if !strings.EqualFold(strings.TrimSuffix(name, "."), host) {
		return "", false, false
	}
	final = fetch.NameNotFound(err)
	if kind == "" {
		kind = "no answer"
		if final {
			kind = dnscache.KindNXDomain
		}
	}
	return kind, final, true
}

// RefusedOrigin returns the SSRF guard's refusal of u's own host when that is why
// its robots.txt got no answer (rules unreachable), nil otherwise: a robots.txt
// redirected to a refused address leaves the site itself allowed, and unreachable.
func RefusedOrigin(rules *robots.Rules, u *url.URL) *fetch.BlockedError {
	if rules == nil || !rules.Unreachable {
		return nil // (every page asks: errors.As's target is made only when it may match)
	}
	return RefusedHost(rules.Err, u.Hostname())
}

// RefusedHost is err's refusal of host by the SSRF guard, nil when it is none.
func RefusedHost(err error, host string) *fetch.BlockedError {
	var be *fetch.BlockedError
	if !errors.As(err, &be) || !strings.EqualFold(be.Host, host) {
		return nil
	}
	return be
}
