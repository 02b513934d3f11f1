package fetch

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// pageLinks is what one pass over an HTML body reads for the crawl.
type pageLinks struct {
	links     []string // a/area href values, in document order, without rel=nofollow ones
	nofollow  []string // hrefs of links marked rel="nofollow" (a hint; the engine decides)
	base      string   // the first <base href>
	canonical string   // the first <link rel=canonical href>
	robots    robots.Directives
}

// extractLinks scans an HTML body with the tokenizer (no DOM: a page is read once,
// start tags only) and returns the raw targets of a[href] and area[href] in document
// order, those marked rel="nofollow" apart, the first <base href>, the first <link
// rel=canonical href>, and the directives of <meta name="robots"> and <meta
// name="TOKEN"> (token: our product token). Resolution and normalisation are the
// frontier's job (frontier.Base). The tokenizer is as lenient as browsers: broken
// markup and invalid UTF-8 yield what can be read.
func extractLinks(body []byte, token string) (p pageLinks) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return p
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !hasAttr {
				continue
			}
			switch a := atom.Lookup(name); a {
			case atom.A, atom.Area:
				href, ok, rel, _ := attr2(z, "href", "rel")
				if ok {
					if hasToken(rel, "nofollow") {
						p.nofollow = append(p.nofollow, href)
					} else {
						p.links = append(p.links, href)
					}
				}
			case atom.Base:
				if v, ok := attr(z, "href"); ok && p.base == "" {
					p.base = v
				}
			case atom.Link:
				href, _, rel, _ := attr2(z, "href", "rel")
				if p.canonical == "" && href != "" && hasToken(rel, "canonical") {
					p.canonical = href
				}
			case atom.Meta:
				if name, ok, content, _ := attr2(z, "name", "content"); ok {
					p.robots.AddMeta(name, content, token)
				}
			}
		}
	}
}

// attr returns the named attribute of the current tag (consuming its attributes).
func attr(z *html.Tokenizer, name string) (string, bool) {
	for {
		k, v, more := z.TagAttr()
		if string(k) == name {
			return strings.TrimSpace(string(v)), true
		}
		if !more {
			return "", false
		}
	}
}

// attr2 returns two attributes of the current tag (the first of each; consuming
// them all) without allocating a map per tag: a page has hundreds of links.
func attr2(z *html.Tokenizer, n1, n2 string) (v1 string, ok1 bool, v2 string, ok2 bool) {
	for {
		k, v, more := z.TagAttr()
		switch {
		case !ok1 && string(k) == n1:
			v1, ok1 = strings.TrimSpace(string(v)), true
		case !ok2 && string(k) == n2:
			v2, ok2 = strings.TrimSpace(string(v)), true
		}
		if !more {
			return
		}
	}
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// ExtractLinks returns what extractLinks finds in a stored HTML body: the raw a/area
// hrefs in document order (rel="nofollow" ones after the others: the page links to
// them too), <base href> and <link rel=canonical> (the JSONL export lists a page's
// links from its stored body).
func ExtractLinks(body []byte) (links []string, base, canonical string) {
	p := extractLinks(body, "")
	return append(p.links, p.nofollow...), p.base, p.canonical
}
