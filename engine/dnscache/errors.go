package dnscache

import (
	"errors"
	"fmt"
)

// Kinds of lookup failure, the values of LookupError.Kind. The engine counts fetch
// errors by kind, so these strings are part of the stats contract.
const (
	KindNXDomain    = "nxdomain"      // the name does not exist (RFC 2308 cached)
	KindServFail    = "servfail"      // upstream could not answer (transient, backed off)
	KindTimeout     = "timeout"       // no answer in time (transient, backed off)
	KindRefused     = "refused"       // upstream refused or does not implement the query
	KindMalformed   = "malformed"     // a garbage, truncated or mismatched answer, or an invalid name
	KindNameTooLong = "name_too_long" // over 253 bytes, or a label over 63 (never queried)
	KindNoServers   = "no_servers"    // none configured, or none reachable
	KindNoAddress   = "no_address"    // the name exists but has no A/AAAA record
)

// ErrClosed is returned by lookups on a closed Cache that would need upstream.
var ErrClosed = errors.New("dnscache: cache closed")

// LookupError is the error of a failed lookup: the host asked for, a Kind above and
// the underlying cause.
type LookupError struct {
	Host string
	Kind string
	Err  error
}

// Error says which host failed, how, and why.
func (e *LookupError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("dns %s: %s", e.Host, e.Kind)
	}
	return fmt.Sprintf("dns %s: %s: %v", e.Host, e.Kind, e.Err)
}

// Unwrap gives the cause (a net error, context error or dns error).
func (e *LookupError) Unwrap() error { return e.Err }

// Timeout reports a lookup that ran out of time (net.Error).
func (e *LookupError) Timeout() bool { return e.Kind == KindTimeout }

// Temporary reports a failure worth retrying later: everything but a definite answer
// that the name has no address, or a name that can never be queried.
func (e *LookupError) Temporary() bool { return transient(e.Kind) }

// NotFound reports a definite negative answer: the name or its addresses do not exist.
func (e *LookupError) NotFound() bool { return e.Kind == KindNXDomain || e.Kind == KindNoAddress }

// transient kinds are retried with backoff and may be answered from stale data;
// definite kinds (nxdomain, no_address) are cached for their RFC 2308 TTL.
func transient(kind string) bool {
	switch kind {
	case KindServFail, KindTimeout, KindRefused, KindMalformed, KindNoServers:
		return true
	}
	return false
}

// kindRank orders transient failures by how much they tell the operator, to pick the
// one reported when every server failed differently.
func kindRank(kind string) int {
	switch kind {
	case KindServFail:
		return 5
	case KindRefused:
		return 4
	case KindMalformed:
		return 3
	case KindTimeout:
		return 2
	case KindNoServers:
		return 1
	}
	return 0
}
