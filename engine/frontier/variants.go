package frontier

import (
	"strings"
)

// URL variants: one article reached under many URLs. Marketing links carry tracking
// parameters (utm_source=newsletter, fbclid=...), servers that cannot set a cookie
// put the session in the URL (;jsessionid=..., ?PHPSESSID=...), and every such link
// is, byte for byte, a new URL to the dedupe filter: the same page fetched once per
// visitor, campaign and share. Variants drops those parameters from a normalised URL
// before it is hashed, so the variants collapse to one URL and one fetch. The
// parameters dropped are ones no server reads to choose the content: analytics tags
// (the lists of Firefox's query stripping, ClearURLs and Brave's debouncer agree on
// the common ones) and session ids. Generic names such as "sid" or "session" are
// dropped only when their value looks like a token (long, letters and digits), since
// "sid=3" may well pick a section.

// VariantOptions configures URL variant collapsing (YAML "url_variants").
type VariantOptions struct {
	// Keep turns collapsing off: every variant of a URL is fetched as a URL of its
	// own, as the crawler did before (the variants benchmark's baseline).
	Keep bool `yaml:"keep"`
	// StripParams are more query parameter names to drop, besides the built-in
	// tracking and session parameters; matched without regard to case, and a name
	// ending in "*" is a prefix ("mkt_*").
	StripParams []string `yaml:"strip_params"`
	// NoCanonical stops a page's rel=canonical from standing for the page: by
	// default a canonical URL on the page's own host, other than the page's, is
	// taken as the same article and not fetched again (see Engine's link
	// extraction). A site that points every page's canonical at its home page is
	// the case for turning it off.
	NoCanonical bool `yaml:"no_canonical"`
}

// trackingParams are analytics and click-id parameters: they say who sent the
// visitor, never what the page shows.
var trackingParams = []string{
	"utm_*", "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid",
	"twclid", "ttclid", "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi",
	"mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "li_fat_id", "s_cid", "ncid",
	"icid", "cmpid", "wt_mc", "wt.mc_id", "ref_src", "ref_url", "spm", "share_source",
}

// sessionParams are session ids always dropped: no server picks content by them.
var sessionParams = []string{"jsessionid", "phpsessid", "aspsessionid*", "cfid", "cftoken"}

// tokenSessionParams are session ids dropped when their value looks like a token.
var tokenSessionParams = []string{"sid", "sessid", "sessionid", "session_id", "session", "sess"}

// minTokenLen is the shortest value of a generic session parameter taken as a token:
// session ids are 16 to 64 random characters, section or page ids a few digits.
const minTokenLen = 16

// Variants collapses URL variants; the zero value and nil collapse nothing.
type Variants struct {
	on       bool
	always   paramSet
	ifToken  paramSet
	fromPage bool // rel=canonical stands for the page
}

// paramSet matches parameter names, exactly or by prefix, lower-cased.
type paramSet struct {
	exact    map[string]bool
	prefixes []string
}

func newParamSet(names ...[]string) paramSet {
	s := paramSet{exact: map[string]bool{}}
	for _, list := range names {
		for _, n := range list {
			n = strings.ToLower(strings.TrimSpace(n))
			switch {
			case n == "", n == "*":
			case strings.HasSuffix(n, "*"):
				s.prefixes = append(s.prefixes, strings.TrimSuffix(n, "*"))
			default:
				s.exact[n] = true
			}
		}
	}
	return s
}

func (s paramSet) has(name string) bool {
	if s.exact[name] {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// NewVariants returns the collapser o asks for.
func NewVariants(o VariantOptions) *Variants {
	if o.Keep {
		return &Variants{}
	}
	return &Variants{
		on:       true,
		always:   newParamSet(trackingParams, sessionParams, o.StripParams),
		ifToken:  newParamSet(tokenSessionParams),
		fromPage: !o.NoCanonical,
	}
}

// Canonical reports whether a page's rel=canonical stands for the page.
func (v *Variants) Canonical() bool { return v != nil && v.on && v.fromPage }

// Collapse returns u, a URL in Normalize's form, without its tracking and session
// parameters (query parameters and ";name=value" path parameters). The result is
// in Normalize's form too; a URL without any is returned as it is, unallocated.
func (v *Variants) Collapse(u string) string {
	if v == nil || !v.on {
		return u
	}
	q := strings.IndexByte(u, '?')
	path, query := u, ""
	if q >= 0 {
		path, query = u[:q], u[q+1:]
	}
	newPath, pathChanged := path, false
	if strings.IndexByte(path, ';') >= 0 {
		newPath, pathChanged = v.stripPathParams(path)
	}
	newQuery, queryChanged := query, false
	if query != "" {
		newQuery, queryChanged = v.stripQuery(query)
	}
	if !pathChanged && !queryChanged {
		return u
	}
	if newQuery == "" {
		return newPath
	}
	return newPath + "?" + newQuery
}

// drop reports whether the parameter name=value is a variant's.
func (v *Variants) drop(name, value string) bool {
	name = strings.ToLower(name)
	if v.always.has(name) {
		return true
	}
	return v.ifToken.has(name) && looksLikeToken(value)
}

// stripQuery drops the variant parameters of a query, keeping the others in order.
func (v *Variants) stripQuery(query string) (string, bool) {
	any := false // most queries keep every parameter: find out before allocating
	for rest := query; rest != "" && !any; {
		p, next, _ := strings.Cut(rest, "&")
		name, value, _ := strings.Cut(p, "=")
		any, rest = p == "" || v.drop(name, value), next
	}
	if !any {
		return query, false
	}
	params := strings.Split(query, "&")
	kept := params[:0]
	for _, p := range params {
		name, value, _ := strings.Cut(p, "=")
		if p != "" && !v.drop(name, value) {
			kept = append(kept, p)
		}
	}
	if len(kept) == len(params) {
		return query, false
	}
	return strings.Join(kept, "&"), true
}

// stripPathParams drops ";name=value" session parameters from a path's segments
// (Java servlets' ;jsessionid=, and their kind).
func (v *Variants) stripPathParams(path string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(path); {
		j := strings.IndexByte(path[i:], ';')
		if j < 0 {
			b.WriteString(path[i:])
			break
		}
		b.WriteString(path[i : i+j])
		i += j
		end := len(path) // the parameter runs to the next ";" or "/"
		if k := strings.IndexAny(path[i+1:], ";/"); k >= 0 {
			end = i + 1 + k
		}
		name, value, _ := strings.Cut(path[i+1:end], "=")
		if v.drop(name, value) {
			changed = true
		} else {
			b.WriteString(path[i:end])
		}
		i = end
	}
	if !changed {
		return path, false
	}
	return b.String(), true
}

// looksLikeToken reports a value that reads as a random session token: long and
// made of letters and digits (hex, base64url), with at least one of each.
func looksLikeToken(v string) bool {
	if len(v) < minTokenLen || len(v) > 256 {
		return false
	}
	letters, digits := 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters++
		case '0' <= c && c <= '9':
			digits++
		case c == '-' || c == '_' || c == '.' || c == '%':
		default:
			return false
		}
	}
	return letters > 0 && digits > 0
}
