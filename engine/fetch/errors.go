package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
)

// Error kinds: the names under which failures are counted in stats and the console.
const (
	KindDNS          = "dns"
	KindBlocked      = "ssrf_blocked"
	KindConnect      = "connect"
	KindTimeout      = "timeout"
	KindReset        = "reset"
	KindTooManyRedir = "too_many_redirects"
	KindRedirectLoop = "redirect_loop"
	KindBadRedirect  = "bad_redirect"
	KindTooLarge     = "body_too_large"
	// KindHeadersTooLarge: the response's header block passed
	// egress.MaxResponseHeaderBytes (a server flooding headers); nothing of it is kept.
	KindHeadersTooLarge = "headers_too_large"
	KindEncoding        = "content_encoding" // a Content-Encoding not decoded (br, ...) or a corrupt compressed body
	KindContentType     = "content_type"
	KindBinary          = "binary_body"
	KindHTTP4xx         = "http_4xx"
	KindHTTP5xx         = "http_5xx"
	KindRefused         = "refused"
	KindRobots          = "robots_disallowed"
	KindRobotsDown      = "robots_unreachable"
	KindCanceled        = "canceled"
	KindOther           = "other"
	KindProtocol        = "protocol"
	KindMalformedHTML   = "malformed_html"
	KindRedirectTarget  = "redirect_target"
	// KindNoindex: the page said noindex (meta robots, X-Robots-Tag); it was fetched
	// and its links followed, but it is not stored: skipped, not failed.
	KindNoindex = "noindex"
)

// Error is a failed fetch with its kind.
type Error struct {
	Kind string
	URL  string
	Err  error
	// Exchanges are the redirect hops answered before a fetch failed with no Result
	// (a redirect loop, too many redirects, a bad or blocked redirect target, a
	// reset or timeout on a later hop), for the archive: the page failed, but every
	// response received belongs in the WARC export. Empty otherwise.
	Exchanges []Exchange
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %v", e.Kind, e.URL, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// FailedExchanges returns the exchanges a fetch that failed with no Result got
// before it failed (Error.Exchanges), nil for any other error.
func FailedExchanges(err error) []Exchange {
	if fe, ok := errors.AsType[*Error](err); ok {
		return fe.Exchanges
	}
	return nil
}

// Transient reports whether a failure of this kind is worth retrying with backoff:
// network hiccups and overloaded servers, never client errors or policy refusals.
func Transient(kind string) bool {
	switch kind {
	case KindTimeout, KindReset, KindConnect, KindHTTP5xx, KindDNS:
		return true
	}
	return false
}

// NameNotFound reports a failure that is a definite answer that the host's name has
// no address (NXDOMAIN, no A/AAAA record): counted under KindDNS like a transient
// DNS failure, but not worth a retry (the DNS cache holds the answer for its TTL).
func NameNotFound(err error) bool {
	if le, ok := errors.AsType[*dnscache.LookupError](err); ok {
		return le.NotFound()
	}
	if de, ok := errors.AsType[*net.DNSError](err); ok {
		return de.IsNotFound
	}
	return false
}

// redirectError is returned by the redirect check; it carries its kind.
type redirectError struct {
	kind string
	msg  string
}

func (e *redirectError) Error() string { return e.msg }

// Kind classifies an error from a fetch. It runs several times per fetch, mostly on
// nil or on an *Error, so those cost no allocation (errors.AsType, not errors.As
// with an escaping target).
func Kind(err error) string {
	if err == nil {
		return ""
	}
	if fe, ok := errors.AsType[*Error](err); ok {
		return fe.Kind
	}
	if _, ok := errors.AsType[*BlockedError](err); ok {
		return KindBlocked
	}
	if re, ok := errors.AsType[*redirectError](err); ok {
		return re.kind
	}
	// A stop or the request's deadline, in a lookup too, is no DNS failure.
	switch {
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	// A name that does not resolve: through the guard's dialer (DNSError), the DNS
	// cache an egress's transport resolves with (LookupError), or Go's resolver.
	if _, ok := errors.AsType[*DNSError](err); ok {
		return KindDNS
	}
	if _, ok := errors.AsType[*dnscache.LookupError](err); ok {
		return KindDNS
	}
	if _, ok := errors.AsType[*net.DNSError](err); ok {
		return KindDNS
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return KindTimeout
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return KindReset
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return KindConnect
	}
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		if oe.Op == "dial" {
			return KindConnect
		}
		return KindReset
	}
	if headersTooLarge(err) {
		return KindHeadersTooLarge
	}
	return KindOther
}

// headersTooLarge reports net/http's refusal of a response whose header block
// passed the transport's MaxResponseHeaderBytes, over HTTP/1 or HTTP/2: neither
// has an error value to match, only its text.
func headersTooLarge(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "server response headers exceeded") ||
		strings.Contains(msg, "response header list larger than advertised limit")
}
