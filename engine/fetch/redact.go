package fetch

import (
	"net/http"
	"strings"
)

// RedactHeaders returns a copy of h with every RedactHeader field redacted (a
// cookie is a login to the site for whoever holds it, so cookie headers are redacted
// everywhere). Cookie headers keep each cookie's name and lose its value and
// attributes ("a=1; Path=/" becomes "a=[redacted]"): the names stay for block-page
// classification (vendor cookies such as incap_ses_*); other credentials become
// Redacted. Call it on any header map before keeping or printing it (the captures
// use HeadText, which applies the same list). nil stays nil.
func RedactHeaders(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := h.Clone()
	for k, vs := range out {
		if !RedactHeader(k) {
			continue
		}
		red := make([]string, len(vs))
		for i, v := range vs {
			switch http.CanonicalHeaderKey(k) {
			case "Cookie":
				red[i] = redactCookieList(v)
			case "Set-Cookie", "Set-Cookie2":
				red[i] = redactSetCookie(v)
			default:
				red[i] = Redacted
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
