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

// Tag kinds: the sets above as bits of one table (tagKinds), so that a tag is looked
// up once, not once per set; a page has thousands of tags.
const (
	kindRawSkip uint8 = 1 << iota
	kindHead
	kindChrome
	kindBlock
	kindVoid
	kindClosesP
)

// tagKinds maps a tag to its kinds; a tag in none is absent (0).
var tagKinds = func() map[atom.Atom]uint8 {
	m := map[atom.Atom]uint8{}
	for kind, set := range map[uint8]map[atom.Atom]bool{kindRawSkip: rawSkip, kindHead: headTags,
		kindChrome: chromeTags, kindBlock: blockTags, kindVoid: voidTags, kindClosesP: closesP} {
		for tag := range set {
			m[tag] |= kind
		}
	}
	return m
}()

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
