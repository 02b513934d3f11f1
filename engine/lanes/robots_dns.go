package lanes

import (
	"errors"
	"net"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// nameFailure is why host's own name did not resolve when err kept its robots.txt
// from being fetched: the lookup's kind (nxdomain, servfail, refused, timeout, ...)
// and whether it is final (the name, or its addresses, do not exist). ok is false
// when err is no DNS failure of host (a redirect's target that does not resolve
// leaves the site itself reachable).
func nameFailure(err error, host string) (kind string, final, ok bool) {
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

// dnsGivesUp reports whether a site whose robots.txt got no answer because its
// name did not resolve fails as dns now: at once for a final answer (NXDOMAIN,
// no address: asking again gives the same), after fetch.retries more tries with
// robots.txt's back-off for a failure that may pass (SERVFAIL, REFUSED, timeout).
// Without this its URLs would wait for robots.txt forever.
func (r *Runner) dnsGivesUp(final bool, origin string) bool {
	return final || r.Robots.Failures(origin) > r.Opts.Fetch.Retries
}
