package sandbox

import (
	"fmt"
	"strings"
)

// URL variants (LayoutConfig.URLVariants): links to an article or post carry the
// parameters real sites add to them, tracking parameters of the page that links
// (utm_*, fbclid, gclid) and session ids of a server that cannot set a cookie
// (;jsessionid= in the path, PHPSESSID=, a token sid=), each link several times over
// in different forms, as a page's teaser, headline and "read more" links do. The
// sandbox serves the page under any of them: a crawler that does not collapse them
// fetches one article once per form.

// variantForms is how many links to one article a page carries with the option on.
const variantForms = 4

// appendVariant writes the i-th variant suffix of the link to p: a path parameter or
// a query. Tokens are derived from the page, so the web stays reproducible.
func appendVariant(buf []byte, p page, i int) []byte {
	k := p.key()
	switch i % variantForms {
	case 0:
		return fmt.Appendf(buf, "?utm_source=listing&utm_medium=web&utm_campaign=c%x", k%997)
	case 1:
		return fmt.Appendf(buf, ";jsessionid=%016X%08X", k, uint32(k>>13))
	case 2:
		return fmt.Appendf(buf, "?fbclid=IwAR%x&PHPSESSID=%016x", k>>20, k^0x5e55)
	default:
		return fmt.Appendf(buf, "?sid=%016x%x&gclid=Cj0K%x", k*0x9e3779b97f4a7c15, k%31, k>>40)
	}
}

// variantParams are the query parameters appendVariant writes; StripVariants drops
// them ("utm_" is a prefix).
var variantParams = []string{"utm_", "fbclid", "gclid", "phpsessid", "sid"}

// StripVariants returns a sandbox URL (or path with its query) without the
// parameters URLVariants adds to links: the page's one URL. The truth of which
// requests fetched the same page, whatever the crawler made of the links.
func StripVariants(u string) string {
	path, query, hasQuery := strings.Cut(u, "?")
	if i := strings.Index(path, ";jsessionid="); i >= 0 {
		rest := path[i+1:]
		end := strings.IndexAny(rest, "/;")
		if end < 0 {
			path = path[:i]
		} else {
			path = path[:i] + rest[end:]
		}
	}
	if !hasQuery {
		return path
	}
	var kept []string
	for _, kv := range strings.Split(query, "&") {
		name, _, _ := strings.Cut(kv, "=")
		name = strings.ToLower(name)
		drop := false
		for _, v := range variantParams {
			if name == v || strings.HasSuffix(v, "_") && strings.HasPrefix(name, v) {
				drop = true
				break
			}
		}
		if !drop && kv != "" {
			kept = append(kept, kv)
		}
	}
	if len(kept) == 0 {
		return path
	}
	return path + "?" + strings.Join(kept, "&")
}
