package main

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// The seed's main-text extractor, the baseline of `go run ./bench changes`
// (seedFingerprint, seedPageText); the product reads pages with engine/page.
//
// It streams the tokens, drops chrome elements and every subtree whose class/id
// contains a chrome substring, and weights the remaining blocks by text density. On
// the article extraction benchmark's real pages that loses the article whenever a
// wrapper's name happens to contain "ad", "share", "nav", "widget", "sidebar" or
// "header" (F1 0.727 against 0.963 for article.go), and its density weights let a
// one-paragraph consent banner outweigh a short article.

// seedSkipTags are elements whose whole subtree is page chrome, never main text.
var seedSkipTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Title: true, atom.Nav: true, atom.Header: true,
	atom.Footer: true, atom.Aside: true, atom.Form: true, atom.Iframe: true,
	atom.Svg: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Time: true, atom.Menu: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Dialog: true,
}

// seedBlockTags delimit text blocks; inline elements (a, span, b, ...) do not.
var seedBlockTags = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Td: true, atom.Th: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Article: true, atom.Section: true, atom.Main: true,
	atom.Blockquote: true, atom.Pre: true, atom.Dd: true, atom.Dt: true,
	atom.Table: true, atom.Tr: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Figure: true, atom.Figcaption: true, atom.Address: true, atom.Body: true,
	atom.Hr: true, atom.Br: true,
}

// seedVoidTags never have an end tag, so they are never pushed on the open-element stack.
var seedVoidTags = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true,
	atom.Hr: true, atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true,
	atom.Source: true, atom.Track: true, atom.Wbr: true, atom.Param: true,
}

// boilerTokens are whole class/id tokens that mark churn: ads ("gg" is the common
// pinyin abbreviation of 广告 on Chinese sites), counters and timestamps.
var boilerTokens = map[string]bool{
	"ad": true, "ads": true, "adv": true, "advert": true, "gg": true, "guanggao": true,
	"time": true, "date": true, "datetime": true, "pubtime": true, "updated": true,
	"views": true, "pv": true, "hits": true, "clicks": true, "count": true,
	"nav": true, "menu": true, "share": true, "social": true, "related": true,
	"recommend": true, "popular": true, "hot": true, "tags": true, "byline": true,
	"meta": true, "toolbar": true, "widget": true, "cookie": true, "popup": true,
	"modal": true, "login": true, "subscribe": true, "newsletter": true,
	"pagination": true, "pager": true, "breadcrumb": true, "breadcrumbs": true,
}

// boilerParts are substrings that mark churn anywhere in a class/id, so that
// camelCase and run-together names ("adBanner", "viewcounter") are caught too.
var boilerParts = []string{
	"advert", "banner", "sidebar", "comment", "timestamp", "counter", "sponsor",
	"promo", "footer", "header", "navbar", "share", "recommend", "related",
	"breadcrumb", "cookie", "widget", "viewcount", "readcount", "pageview",
}

// isBoilerName reports whether a class or id attribute value names page chrome.
func isBoilerName(v string) bool {
	if v == "" {
		return false
	}
	v = strings.ToLower(v)
	for _, p := range boilerParts {
		if strings.Contains(v, p) {
			return true
		}
	}
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if boilerTokens[tok] {
			return true
		}
	}
	return false
}

// textBlock is the text of one block element with the share of it inside links.
type textBlock struct {
	text      string
	letters   int // letter and digit runes
	linkRunes int // letter and digit runes inside <a>
	units     int // words, counting each rune of an unspaced script (CJK) as a word
	weight    int // SimHash weight of the block's features (mainBlocks sets it)
}

// openElem is one element on the extractor's stack of open elements.
type openElem struct {
	tag  atom.Atom
	name string // tag name when tag is 0 (unknown elements)
	skip bool   // this subtree is chrome
	link bool   // inside <a>
}

// blockMinUnits is the size below which a block is never main text when the page has
// larger blocks: "Share", "12:01", "Next page".
const blockMinUnits = 4

// blockMaxLinkDensity drops link lists (menus, "related" lists) from the main text.
const blockMaxLinkDensity = 0.5

// maxBlockWeight is the weight of the densest blocks. A block's weight is its size
// relative to the densest block, from 1 to maxBlockWeight: an unmarked one-line
// "Updated 19:42 · 98,765 readers" beside the article's paragraphs moves the SimHash a
// quarter as much as a paragraph would, while a real change of a paragraph counts in
// full. (Dropping short blocks outright would also drop short real paragraphs.)
// Blocks of at most half the top weight also have their numbers masked: that is
// where dates, clocks and view counters live.
const maxBlockWeight = 4

// mainBlocks returns the main-text blocks of an HTML document already decoded to
// UTF-8, each weighted by its density: blocks outside chrome, not mostly links, not
// tiny. A page that is all links (a news index, a search result page) keeps its links:
// they are its content.
func mainBlocks(doc []byte) []textBlock {
	blocks := htmlBlocks(doc)
	var kept []textBlock
	for _, b := range blocks {
		if float64(b.linkRunes) <= blockMaxLinkDensity*float64(b.letters) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		kept = blocks
	}
	densest := 0
	for _, b := range kept {
		densest = max(densest, b.units)
	}
	minUnits := min(blockMinUnits, densest)
	out := kept[:0]
	for _, b := range kept {
		if b.units < minUnits {
			continue
		}
		b.weight = max(1, (maxBlockWeight*b.units+densest/2)/densest)
		out = append(out, b)
	}
	return out
}

// htmlBlocks tokenizes an HTML document into text blocks, skipping chrome subtrees.
// It streams the tokens (no tree) so that giant pages cost linear time and little
// memory, and tolerates broken markup: an end tag closes up to its matching open
// element, and an end tag with no open match is ignored.
func htmlBlocks(doc []byte) []textBlock {
	z := html.NewTokenizer(bytes.NewReader(doc))
	var (
		stack  []openElem
		blocks []textBlock
		cur    strings.Builder
		cb     textBlock
	)
	flush := func() {
		if cb.letters > 0 {
			cb.text = strings.TrimSpace(cur.String())
			blocks = append(blocks, cb)
		}
		cur.Reset()
		cb = textBlock{}
	}
	inSkip := func() bool { return len(stack) > 0 && stack[len(stack)-1].skip }
	inLink := func() bool { return len(stack) > 0 && stack[len(stack)-1].link }
	for {
		tokType := z.Next()
		switch tokType {
		case html.ErrorToken:
			flush()
			return blocks
		case html.TextToken:
			if inSkip() {
				continue
			}
			text := z.Text()
			n, units := countText(text)
			if n == 0 {
				if cur.Len() > 0 {
					cur.WriteByte(' ')
				}
				continue
			}
			cur.Write(text)
			cb.letters += n
			cb.units += units
			if inLink() {
				cb.linkRunes += n
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := atom.Lookup(name)
			if tag == atom.Body {
				// An unclosed <head> must not swallow the body.
				stack = stack[:0]
			}
			if seedBlockTags[tag] {
				if !inSkip() {
					flush()
				}
			} else if !inSkip() && cur.Len() > 0 {
				cur.WriteByte(' ')
			}
			if seedVoidTags[tag] || tokType == html.SelfClosingTagToken {
				continue
			}
			e := openElem{tag: tag, skip: inSkip() || seedSkipTags[tag], link: inLink() || tag == atom.A}
			if tag == 0 {
				e.name = string(name)
			}
			for hasAttr && !e.skip {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				switch string(key) {
				case "class", "id":
					e.skip = isBoilerName(string(val))
				case "hidden":
					e.skip = true
				case "aria-hidden":
					e.skip = string(val) == "true"
				}
			}
			stack = append(stack, e)
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := atom.Lookup(name)
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].tag == tag && (tag != 0 || stack[i].name == string(name)) {
					stack = stack[:i]
					if seedBlockTags[tag] && !inSkip() {
						flush()
					}
					break
				}
			}
			if !inSkip() && cur.Len() > 0 {
				cur.WriteByte(' ')
			}
		}
	}
}

// countText counts letter and digit runes, and text units: words of spaced scripts
// plus runes of unspaced scripts (see isUnspacedScript), the measure of how much a
// block says whatever its script.
func countText(b []byte) (letters, units int) {
	inWord := false
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		isLetter := false
		if r < utf8.RuneSelf {
			isLetter = r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		} else {
			isLetter = page.IsUnspacedScript(r) || unicode.IsLetter(r) || unicode.IsNumber(r)
		}
		switch {
		case !isLetter:
			inWord = false
		case page.IsUnspacedScript(r):
			letters++
			units++
			inWord = false
		default:
			letters++
			if !inWord {
				units++
			}
			inWord = true
		}
	}
	return letters, units
}

// seedFingerprint is the seed extractor's fingerprint: block-density weights over
// the tokenizer's text blocks, class/id substrings that drop whole subtrees.
func seedFingerprint(body []byte, contentType string) (hash uint64, ok bool) {
	blocks, ok := seedBlocks(body, contentType)
	if !ok {
		return 0, false
	}
	parts := make([]page.Weighted, len(blocks))
	for i, b := range blocks {
		parts[i] = page.Weighted{Text: b.text, Weight: b.weight, MaskNumbers: b.weight <= maxBlockWeight/2}
	}
	return page.WeightedSimHash(parts)
}

// seedPageText is the seed extractor's main text, one block a line.
func seedPageText(body []byte, contentType string) (text string, ok bool) {
	blocks, ok := seedBlocks(body, contentType)
	if !ok {
		return "", false
	}
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		parts[i] = b.text
	}
	return strings.Join(parts, "\n"), true
}

// seedBlocks decodes a body as the product does and returns the seed extractor's
// weighted main-text blocks, or ok=false when it has no usable text.
func seedBlocks(body []byte, contentType string) (blocks []textBlock, ok bool) {
	decoded, isHTML, ok := page.Decode(body, contentType)
	if !ok {
		return nil, false
	}
	if isHTML {
		blocks = mainBlocks(decoded)
	} else {
		blocks = []textBlock{{text: string(decoded), weight: 1}}
	}
	for _, b := range blocks {
		if page.UsableText(b.text) {
			return blocks, true
		}
	}
	return nil, false
}
