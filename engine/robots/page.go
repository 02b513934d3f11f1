package robots

import "strings"

// Directives are the page-level robots directives that apply to us: from
// <meta name="robots">, <meta name="OUR-TOKEN"> and the X-Robots-Tag header
// (general or scoped to our token). The strictest wins: one noindex anywhere is
// noindex. Only noindex and nofollow change what the crawler does; the others
// (noarchive, nosnippet, max-snippet, unavailable_after, ...) concern search engines'
// result pages.
type Directives struct {
	NoIndex  bool `json:"noindex,omitempty"`  // the page is not stored (nor exported)
	NoFollow bool `json:"nofollow,omitempty"` // the page's links are not queued
}

// Any reports whether a directive is set.
func (d Directives) Any() bool { return d.NoIndex || d.NoFollow }

// String lists the set directives ("noindex,nofollow"; "" for none).
func (d Directives) String() string {
	var s []string
	if d.NoIndex {
		s = append(s, "noindex")
	}
	if d.NoFollow {
		s = append(s, "nofollow")
	}
	return strings.Join(s, ",")
}

// AddMeta reads a <meta name=... content=...> tag: name "robots" speaks to every
// crawler, name token (our product token, case-insensitive) to us; other names are
// other crawlers' business.
func (d *Directives) AddMeta(name, content, token string) {
	name = strings.TrimSpace(name)
	if !strings.EqualFold(name, "robots") && (token == "" || !strings.EqualFold(name, token)) {
		return
	}
	for _, part := range strings.Split(content, ",") {
		d.add(part)
	}
}

// AddHeader reads one X-Robots-Tag header value. "noindex, nofollow" speaks to every
// crawler; "crawlconsole: nofollow" (a user agent, a colon, directives) only to that
// crawler, and the directives after it stay scoped to it until another agent is
// named. A directive that itself carries a colon (unavailable_after: DATE,
// max-snippet: N) is not an agent.
func (d *Directives) AddHeader(value, token string) {
	ours := true
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if i := strings.IndexByte(part, ':'); i > 0 {
			head := strings.TrimSpace(part[:i])
			if !directiveWithValue(head) {
				ours = token != "" && strings.EqualFold(head, token)
				part = part[i+1:]
			}
		}
		if ours {
			d.add(part)
		}
	}
}

// add applies one directive ("none" is noindex plus nofollow).
func (d *Directives) add(s string) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "noindex":
		d.NoIndex = true
	case "nofollow":
		d.NoFollow = true
	case "none":
		d.NoIndex, d.NoFollow = true, true
	}
}

// directiveWithValue tells directives written "name: value" from a user agent.
func directiveWithValue(s string) bool {
	switch strings.ToLower(s) {
	case "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview", "indexifembedded":
		return true
	}
	return false
}
