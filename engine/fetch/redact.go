package fetch

import (
	"net/http"
	"strings"
)

// Redacted stands in for a cookie's value wherever headers are kept or shown.
const Redacted = "[redacted]"

// redactedHeaders carry session secrets: a cookie is a login to the site for
// whoever holds it (issue 17: "cookie headers are redacted everywhere").
var redactedHeaders = []string{"Cookie", "Set-Cookie", "Cookie2", "Set-Cookie2"}

// RedactHeaders returns a copy of h whose cookie headers keep each cookie's name
// and lose its value and attributes ("a=1; Path=/" becomes "a=[redacted]"): the
// names stay for block-page classification (vendor cookies such as incap_ses_*), the
// session never reaches a log, the store or an export. Call it on any header set
// before keeping or printing it. nil stays nil.
func RedactHeaders(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := h.Clone()
	for _, k := range redactedHeaders {
		vs := out[k]
		if vs == nil {
			continue
		}
		red := make([]string, len(vs))
		for i, v := range vs {
			if k == "Cookie" || k == "Cookie2" {
				red[i] = redactCookieList(v)
			} else {
				red[i] = redactSetCookie(v)
			}
		}
		out[k] = red
	}
	return out
}

// redactSetCookie keeps the cookie name of one Set-Cookie value (RFC 6265 §5.2: the
// name is what precedes the first "=" of the first ";"-separated pair).
func redactSetCookie(v string) string {
	pair, _, _ := strings.Cut(v, ";")
	name, _, _ := strings.Cut(pair, "=")
	return strings.TrimSpace(name) + "=" + Redacted
}

// redactCookieList keeps the names of a Cookie header's "a=1; b=2" pairs.
func redactCookieList(v string) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		parts[i] = strings.TrimSpace(name) + "=" + Redacted
	}
	return strings.Join(parts, "; ")
}
