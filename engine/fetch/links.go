package fetch

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractLinks scans an HTML body with the tokenizer (no DOM: a page is read once,
// start tags only) and returns the raw targets of a[href] and area[href] in document
// order, the first <base href>, and the first <link rel=canonical href>. Resolution
// and normalisation are the frontier's job (frontier.Base). The tokenizer is as
// lenient as browsers: broken markup and invalid UTF-8 yield what can be read.
func extractLinks(body []byte) (links []string, base, canonical string) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return links, base, canonical
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !hasAttr {
				continue
			}
			switch atom.Lookup(name) {
			case atom.A, atom.Area:
				if v, ok := attr(z, "href"); ok {
					links = append(links, v)
				}
			case atom.Base:
				if v, ok := attr(z, "href"); ok && base == "" {
					base = v
				}
			case atom.Link:
				var rel, href string
				for {
					k, v, more := z.TagAttr()
					switch string(k) {
					case "rel":
						rel = string(v)
					case "href":
						href = string(v)
					}
					if !more {
						break
					}
				}
				if canonical == "" && href != "" && hasToken(rel, "canonical") {
					canonical = href
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

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// ExtractLinks returns what extractLinks finds in a stored HTML body: the raw a/area
// hrefs in document order, <base href> and <link rel=canonical> (the JSONL export
// lists a page's links from its stored body).
func ExtractLinks(body []byte) (links []string, base, canonical string) {
	return extractLinks(body)
}
