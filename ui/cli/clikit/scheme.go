package clikit

import (
	"net"
	"net/url"
	"strings"
)

// SchemeFix is raw with the http:// it lacks, when raw reads as a host (and port)
// written without its scheme: "example.com/a", "example.com:8080/",
// "localhost:8080". Otherwise "". A URL parser reads "example.com:8080/" as the
// scheme "example.com", so an error about that scheme would miss the point; the
// fix names the URL to give instead. No scheme is added silently: a crawl stores
// what it was given, and http:// may not be what the operator meant.
func SchemeFix(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.Contains(raw, "://") || strings.ContainsAny(raw, "@ \\") || strings.HasPrefix(raw, "/") {
		return ""
	}
	fixed := "http://" + raw
	u, err := url.Parse(fixed)
	if err != nil || u.Hostname() == "" {
		return "" // mailto:x, javascript:… have no port after their colon
	}
	host := u.Hostname()
	if u.Port() == "" && !strings.Contains(host, ".") && host != "localhost" && net.ParseIP(host) == nil {
		return "" // a bare word is no host the operator meant
	}
	return fixed
}
