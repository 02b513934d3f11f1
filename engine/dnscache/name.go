package dnscache

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// DNS length limits (RFC 1035 §2.3.4, presentation form without the final dot).
const (
	maxNameLen  = 253
	maxLabelLen = 63
)

// ipLiteral recognises hosts that need no lookup: "192.0.2.1", "::1", "[::1]".
func ipLiteral(host string) (netip.Addr, bool) {
	// Only digits and dots, or a colon, can be an address; skip the parse (and its
	// error allocation) for ordinary names on the fetch path.
	if !strings.Contains(host, ":") && strings.Trim(host, "0123456789.") != "" {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// canonicalName turns a host as found in a URL into the name queried and cached:
// IDN converted to punycode, lower case, no final dot, DNS limits checked before any
// query is sent. Two spellings of one host share one cache entry.
func canonicalName(host string) (string, error) {
	name := strings.TrimSuffix(host, ".")
	if name == "" {
		return "", &LookupError{Host: host, Kind: KindMalformed, Err: fmt.Errorf("empty name")}
	}
	// A name this long cannot fit even after punycode shrinks it; do not feed megabytes
	// of hostile input to the IDNA mapper.
	if len(name) > 4*maxNameLen {
		return "", &LookupError{Host: clip(host), Kind: KindNameTooLong, Err: fmt.Errorf("%d bytes, limit %d", len(name), maxNameLen)}
	}
	if !isASCII(name) {
		ascii, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", &LookupError{Host: host, Kind: KindMalformed, Err: fmt.Errorf("invalid international name: %w", err)}
		}
		name = ascii
	}
	name = strings.ToLower(name)
	if len(name) > maxNameLen {
		return "", &LookupError{Host: clip(host), Kind: KindNameTooLong, Err: fmt.Errorf("%d bytes, limit %d", len(name), maxNameLen)}
	}
	for rest := name; rest != ""; {
		label := rest
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			label, rest = rest[:i], rest[i+1:]
			if rest == "" {
				label = "" // "a." was trimmed above, so a final dot here means "a.."
			}
		} else {
			rest = ""
		}
		switch {
		case label == "":
			return "", &LookupError{Host: host, Kind: KindMalformed, Err: fmt.Errorf("empty label")}
		case len(label) > maxLabelLen:
			return "", &LookupError{Host: clip(host), Kind: KindNameTooLong, Err: fmt.Errorf("label of %d bytes, limit %d", len(label), maxLabelLen)}
		}
		for i := 0; i < len(label); i++ {
			if !hostByte(label[i]) {
				return "", &LookupError{Host: host, Kind: KindMalformed, Err: fmt.Errorf("byte %q not allowed in a host name", label[i])}
			}
		}
	}
	return name, nil
}

// hostByte accepts letters, digits, '-' and '_' (seen in real host names though not
// in RFC 952), nothing that would need escaping in a DNS message.
func hostByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// clip keeps error messages about absurd names readable.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:77] + "..."
}

// registeredDomain is the eTLD+1 a host is filed under in the positive cache (M5: the
// domain → hosts tree). A name that is itself a public suffix is its own domain.
func registeredDomain(name string) string {
	d, err := publicsuffix.EffectiveTLDPlusOne(name)
	if err != nil {
		return name
	}
	return d
}
