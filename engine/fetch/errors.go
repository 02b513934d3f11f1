package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// Error kinds: the names under which failures are counted in stats and the console.
const (
	KindDNS            = "dns"
	KindBlocked        = "ssrf_blocked"
	KindConnect        = "connect"
	KindTimeout        = "timeout"
	KindReset          = "reset"
	KindTooManyRedir   = "too_many_redirects"
	KindRedirectLoop   = "redirect_loop"
	KindBadRedirect    = "bad_redirect"
	KindTooLarge       = "body_too_large"
	KindEncoding       = "content_encoding" // a Content-Encoding not decoded (br, ...) or a corrupt compressed body
	KindContentType    = "content_type"
	KindBinary         = "binary_body"
	KindHTTP4xx        = "http_4xx"
	KindHTTP5xx        = "http_5xx"
	KindRefused        = "refused"
	KindRobots         = "robots_disallowed"
	KindRobotsDown     = "robots_unreachable"
	KindCanceled       = "canceled"
	KindOther          = "other"
	KindProtocol       = "protocol"
	KindMalformedHTML  = "malformed_html"
	KindRedirectTarget = "redirect_target"
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
	var fe *Error
	if errors.As(err, &fe) {
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

// redirectError is returned by the redirect check; it carries its kind.
type redirectError struct {
	kind string
	msg  string
}

func (e *redirectError) Error() string { return e.msg }

// Kind classifies an error from a fetch.
func Kind(err error) string {
	var fe *Error
	var be *BlockedError
	var de *DNSError
	var re *redirectError
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &fe):
		return fe.Kind
	case errors.As(err, &be):
		return KindBlocked
	case errors.As(err, &re):
		return re.kind
	case errors.As(err, &de):
		return KindDNS
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return KindReset
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return KindConnect
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return KindConnect
	}
	if errors.As(err, &oe) {
		return KindReset
	}
	return KindOther
}
