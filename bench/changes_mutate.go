package main

// Mutations of the benchmark's real pages, made with an HTML parser
// (golang.org/x/net/html), for the "changes" bench: boilerplate churn around the
// article that must not count as a change, and real edits inside it that must.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// churnKinds are the boilerplate mutations: each renders the page twice,
// with variant 0 and variant 1 of the same churn.
var churnKinds = []string{"timestamp", "counters", "tokens", "ad_slot", "most_read", "consent_reworded",
	"consent_injected", "nav_reordered", "ticker"}

// editKinds are the real edits: the original page against the edited one.
var editKinds = []string{"replace_par", "append", "headline", "tiny"}

// mutable is a parsed page with its article paragraphs located.
type mutable struct {
	doc   *html.Node
	body  *html.Node
	paras []*html.Node // <p> elements whose text is in the reference article
	h1    *html.Node
}

// parsePage parses a page and finds the <p>s of its reference article.
func parsePage(src []byte, truth string) (*mutable, error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	m := &mutable{doc: doc}
	norm := strings.Join(strings.Fields(truth), " ")
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Body:
				m.body = n
			case atom.H1:
				if m.h1 == nil {
					m.h1 = n
				}
			case atom.P:
				t := strings.Join(strings.Fields(nodeText(n)), " ")
				if len(t) >= 40 && strings.Contains(norm, t) {
					m.paras = append(m.paras, n)
				}
			case atom.Script, atom.Style:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if m.body == nil {
		return nil, fmt.Errorf("no <body>")
	}
	return m, nil
}

// nodeText is the text under n.
func nodeText(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return sb.String()
}

// render serialises the page.
func (m *mutable) render() []byte {
	var b bytes.Buffer
	html.Render(&b, m.doc)
	return b.Bytes()
}

// frag parses an HTML fragment in the context of <body>.
func frag(s string) []*html.Node {
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		panic(err)
	}
	return nodes
}

func prepend(parent *html.Node, s string) {
	first := parent.FirstChild
	for _, n := range frag(s) {
		parent.InsertBefore(n, first)
	}
}

func appendHTML(parent *html.Node, s string) {
	for _, n := range frag(s) {
		parent.AppendChild(n)
	}
}

func insertAfter(ref *html.Node, s string) {
	next := ref.NextSibling
	for _, n := range frag(s) {
		ref.Parent.InsertBefore(n, next)
	}
}

func setText(n *html.Node, text string) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		c = next
	}
	n.AppendChild(&html.Node{Type: html.TextNode, Data: text})
}

// churn applies boilerplate churn kind in variant v (0 or 1) to m; r draws the
// random parts (tokens, counts).
func churn(m *mutable, kind string, v int, r *rand.Rand) {
	switch kind {
	case "timestamp":
		mins := []int{5, 47}[v]
		prepend(m.body, fmt.Sprintf(`<div class="updated-bar">Updated %d minutes ago · Nov %d, 2019 %02d:%02d</div>`, mins, 19+v, 8+v*9, 13+v*30))
		if len(m.paras) > 0 {
			// The page's own "updated" line inside the article wrapper.
			insertAfter(m.paras[0], fmt.Sprintf(`<p><span>Updated %d hours ago</span></p>`, 1+v*3))
		}
	case "counters":
		views := []int{1204, 98765}[v]
		prepend(m.body, fmt.Sprintf(`<div class="stats"><span>%d views</span> <a href="#c">%d comments</a></div>`, views, views/37))
		if len(m.paras) > 0 {
			insertAfter(m.paras[0], fmt.Sprintf(`<div>%s readers · %d shares</div>`, commaNumber(views), views/11))
		}
	case "tokens":
		tok := fmt.Sprintf("%016x", r.Uint64())
		appendHTML(m.body, `<form action="/s"><input type="hidden" name="csrf" value="`+tok+`"></form><script nonce="`+tok+`">window.__t="`+tok+`";</script>`)
	case "ad_slot":
		ads := []string{"Buy the new SuperPhone X today — 30% off!", "Refinance now: rates at a 3-year low"}
		html := fmt.Sprintf(`<div class="ad-slot"><a href="/ad?i=%d">%s</a><img src="/px?%d" width="1" height="1"></div>`, v, ads[v], r.Uint32())
		prepend(m.body, html)
		if len(m.paras) > 1 {
			insertAfter(m.paras[1], `<div id="div-gpt-ad-`+fmt.Sprint(v)+`"><a href="/ad">`+ads[v]+`</a></div>`)
		}
	case "most_read":
		var sb strings.Builder
		sb.WriteString(`<section class="most-read"><h3>Most read</h3><ol>`)
		for i := range 5 {
			sb.WriteString(fmt.Sprintf(`<li><a href="/s/%d">%s</a></li>`, i, []string{"Storm closes coastal roads as rivers rise", "Council approves new budget after long debate", "Local team wins title in overtime thriller", "Scientists spot water on a distant moon", "Markets slip as traders weigh rate outlook"}[(i+v*2)%5]))
		}
		sb.WriteString(`</ol></section>`)
		appendHTML(m.body, sb.String())
	case "consent_reworded":
		text := []string{
			"We and our partners use cookies and similar technologies to store and access information on your device, to measure the audience of our articles, to personalise content and advertising, and to improve our services. You can accept all cookies, refuse them, or choose which purposes you allow. Your choice applies to this site and you can change it at any time from the privacy settings link at the bottom of every page.",
			"This site and its partners store and read information on your device, such as cookies, to understand how readers use our pages, to show you relevant content and ads, and to keep our journalism free. Choose to accept, to decline, or to set your preferences purpose by purpose. You may withdraw your consent at any moment through the privacy centre linked in the page footer.",
		}[v]
		appendHTML(m.body, `<div class="message-container" style="position:fixed"><div class="message"><p>`+text+`</p><p><a href="#">Accept</a> <a href="#">Settings</a></p></div></div>`)
	case "consent_injected":
		if v == 1 {
			appendHTML(m.body, `<div id="qc-cmp2-container"><div class="qc-cmp2-summary"><p>We value your privacy. We and our partners store and access information on a device, such as unique IDs in cookies, to process personal data. You may accept or manage your choices by clicking below, including your right to object where legitimate interest is used, or at any time in the privacy policy page.</p></div></div>`)
		}
	case "nav_reordered":
		nav := findNav(m.body)
		if nav == nil {
			prepend(m.body, `<nav><ul><li><a href="/a">World</a></li><li><a href="/b">Business</a></li><li><a href="/c">Sport</a></li><li><a href="/d">Culture</a></li></ul></nav>`)
			nav = findNav(m.body)
		}
		if v == 1 {
			reverseChildren(nav)
		}
	case "ticker":
		var sb strings.Builder
		sb.WriteString(`<div class="news-ticker"><ul>`)
		items := []string{"BREAKING: Storm warning issued for the coast", "Markets open higher on trade hopes", "Minister resigns over expenses row"}
		for _, it := range items[:2+v] {
			sb.WriteString(`<li>` + it + `</li>`)
		}
		sb.WriteString(`</ul></div>`)
		prepend(m.body, sb.String())
	}
}

// commaNumber writes n with thousands separators.
func commaNumber(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// findNav returns the page's first <nav>, or nil.
func findNav(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == atom.Nav {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findNav(c); f != nil {
			return f
		}
	}
	return nil
}

// reverseChildren reverses the element children of the deepest list in n, or of n.
func reverseChildren(n *html.Node) {
	target := n
	var find func(*html.Node)
	find = func(x *html.Node) {
		if x.Type == html.ElementNode && (x.DataAtom == atom.Ul || x.DataAtom == atom.Ol) {
			target = x
			return
		}
		for c := x.FirstChild; c != nil && target == n; c = c.NextSibling {
			find(c)
		}
	}
	find(n)
	var kids []*html.Node
	for c := target.FirstChild; c != nil; c = c.NextSibling {
		kids = append(kids, c)
	}
	for _, k := range kids {
		target.RemoveChild(k)
	}
	for i := len(kids) - 1; i >= 0; i-- {
		target.AppendChild(kids[i])
	}
}

// edit applies real edit kind to m; other is a paragraph of another article, the
// new text. It reports false when the page has no article paragraph to edit.
func edit(m *mutable, kind string, others []string, r *rand.Rand) bool {
	if len(m.paras) == 0 {
		return false
	}
	switch kind {
	case "replace_par":
		setText(m.paras[len(m.paras)/2], others[0])
	case "append":
		last := m.paras[len(m.paras)-1]
		insertAfter(last, "<p>"+html.EscapeString(others[0])+"</p><p>"+html.EscapeString(others[1])+"</p>")
	case "headline":
		if m.h1 != nil {
			setText(m.h1, "Update: "+firstWords(others[1], 9))
		}
		setText(m.paras[0], others[0])
	case "tiny":
		p := m.paras[len(m.paras)/2]
		words := strings.Fields(nodeText(p))
		if len(words) < 6 {
			return false
		}
		for range 3 {
			i := r.IntN(len(words))
			words[i] = []string{"reportedly", "officials", "yesterday", "several", "quickly", "however"}[r.IntN(6)]
		}
		setText(p, strings.Join(words, " "))
	}
	return true
}

// firstWords returns the first n words of s.
func firstWords(s string, n int) string {
	w := strings.Fields(s)
	if len(w) > n {
		w = w[:n]
	}
	return strings.Join(w, " ")
}
