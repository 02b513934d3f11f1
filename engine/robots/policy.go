package robots

import (
	"fmt"
	"net/http"
)

// MaxRedirects is how many redirects a robots.txt fetch follows, across hosts too
// (RFC 9309 §2.3.1.2: "crawlers SHOULD follow at least five consecutive redirects,
// even across authorities"). More than that, or a loop, means robots.txt is
// unavailable: allow all, as the RFC allows ("MAY assume that the robots.txt file is
// unavailable"), never disallow all.
const MaxRedirects = 5

// FromResponse turns a robots.txt fetch into rules for token (RFC 9309 §2.3.1):
//   - 2xx: the body parsed (up to MaxBytes), whatever its content type — HTML or
//     binary garbage yield no group and so allow all, as Google does;
//   - 3xx left over (more than MaxRedirects hops, a loop): unavailable, allow all;
//   - 429 and 5xx: unreachable, disallow all, retried later (§2.3.1.4; a 429 is the
//     server asking us to slow down, not a missing file);
//   - other 4xx: unavailable, allow all (§2.3.1.3).
//
// A network failure (no status) is DisallowAll(0, ...), built by the caller.
func FromResponse(status int, body []byte, token string) *Rules {
	switch {
	case status == http.StatusTooManyRequests || status >= 500:
		return DisallowAll(status, fmt.Sprintf("robots.txt answered %d", status))
	case status >= 200 && status < 300:
		r := Parse(body).For(token)
		r.Status = status
		r.Note = fmt.Sprintf("%d bytes", len(body))
		return r
	case status >= 300 && status < 400:
		r := AllowAll(fmt.Sprintf("robots.txt still redirecting (%d) after %d hops: unavailable, allow all", status, MaxRedirects))
		r.Status = status
		return r
	}
	r := AllowAll(fmt.Sprintf("robots.txt answered %d: unavailable, allow all", status))
	r.Status = status
	return r
}
