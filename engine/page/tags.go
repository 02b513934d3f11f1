package page

import "golang.org/x/net/html/atom"

// The sets of tags the tree builder (parseDoc) applies the HTML5 rules with.

// rawSkip are elements whose subtree is never text a reader sees.
var rawSkip = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Select: true, atom.Textarea: true,
	atom.Button: true, atom.Head: true, atom.Dialog: true, atom.Video: true, atom.Audio: true,
	atom.Picture: true, atom.Map: true,
	// A ruby annotation (furigana over kanji, pinyin over hanzi) is a reading aid
	// printed above the text; read inline it splits words ("子こども" for "子ども").
	atom.Rt: true, atom.Rp: true,
}

// headTags may appear in <head>; any other start tag ends an unclosed one.
var headTags = map[atom.Atom]bool{
	atom.Meta: true, atom.Link: true, atom.Title: true, atom.Style: true, atom.Script: true,
	atom.Noscript: true, atom.Base: true, atom.Template: true, atom.Head: true,
}

// chromeTags are elements that are page chrome by their HTML5 meaning, unless they
// hold the article (a site that wraps its whole page in <header> or <form>).
var chromeTags = map[atom.Atom]bool{
	atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Header: true, atom.Menu: true,
	atom.Form: true, atom.Time: true,
}

// blockTags delimit paragraphs; inline elements (a, span, b, ...) do not.
var blockTags = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Td: true, atom.Th: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Article: true, atom.Section: true, atom.Main: true,
	atom.Blockquote: true, atom.Pre: true, atom.Dd: true, atom.Dt: true,
	atom.Table: true, atom.Tr: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Figure: true, atom.Figcaption: true, atom.Address: true, atom.Body: true,
	atom.Html: true, atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Header: true,
	atom.Form: true, atom.Caption: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.Menu: true, atom.Fieldset: true, atom.Details: true, atom.Summary: true,
	atom.Center: true, atom.Hgroup: true,
}

// voidTags never have an end tag.
var voidTags = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true,
	atom.Hr: true, atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true,
	atom.Source: true, atom.Track: true, atom.Wbr: true, atom.Param: true,
}

// closesP are start tags that end an open <p> (HTML5 "close a p element").
var closesP = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Table: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Pre: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Aside: true, atom.Nav: true,
	atom.Header: true, atom.Footer: true, atom.Figure: true, atom.Main: true,
	atom.Address: true, atom.Form: true, atom.Hr: true, atom.Fieldset: true,
	atom.Details: true, atom.Menu: true,
}

// Tag kinds: the sets above as bits of one table (tagSlots), so that a tag is looked
// up once, not once per set; a page has thousands of tags.
const (
	kindRawSkip uint8 = 1 << iota
	kindHead
	kindChrome
	kindBlock
	kindVoid
	kindClosesP
)

// siblingScope maps an element that closes an open element of its kind to the
// elements that bound the search: a new <li> closes the open <li> of its list.
var siblingScope = map[atom.Atom][]atom.Atom{
	atom.Li:     {atom.Ul, atom.Ol, atom.Menu},
	atom.Dt:     {atom.Dl},
	atom.Dd:     {atom.Dl},
	atom.Tr:     {atom.Table, atom.Tbody, atom.Thead, atom.Tfoot},
	atom.Td:     {atom.Tr, atom.Table},
	atom.Th:     {atom.Tr, atom.Table},
	atom.Option: {atom.Select, atom.Datalist},
}

// tagSlots holds a tag's kinds and its siblingScope (index in scopes plus one), probed
// by the atom: parseDoc looks up every tag of a page, and a map costs several probes.
var tagSlots, scopes = func() (t [256]struct {
	tag         atom.Atom
	kind, scope uint8
}, scopes [][]atom.Atom) {
	slot := func(tag atom.Atom) int {
		i := tagSlot(tag)
		for t[i].tag != tag && t[i].tag != 0 {
			i = (i + 1) % len(t)
		}
		t[i].tag = tag
		return i
	}
	for kind, set := range map[uint8]map[atom.Atom]bool{kindRawSkip: rawSkip, kindHead: headTags,
		kindChrome: chromeTags, kindBlock: blockTags, kindVoid: voidTags, kindClosesP: closesP} {
		for tag := range set {
			t[slot(tag)].kind |= kind
		}
	}
	for tag, bounds := range siblingScope {
		scopes = append(scopes, bounds)
		t[slot(tag)].scope = uint8(len(scopes))
	}
	return t, scopes
}()

// tagSlot is where a tag's probe starts in tagSlots.
func tagSlot(tag atom.Atom) int { return int(uint32(tag) * 0x9E3779B1 >> 24) }

// tagKind is a tag's kinds (0 for a tag in no set) and its siblingScope (nil).
func tagKind(tag atom.Atom) (kind uint8, bounds []atom.Atom) {
	for i := tagSlot(tag); ; i = (i + 1) % len(tagSlots) {
		if s := &tagSlots[i]; s.tag == tag || s.tag == 0 {
			if s.scope > 0 {
				bounds = scopes[s.scope-1]
			}
			return s.kind, bounds
		}
	}
}
