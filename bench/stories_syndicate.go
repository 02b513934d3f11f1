package main

// Syndication as the "stories" bench does it: an article republished by other
// outlets, each in its own template, with a byline, a dateline, ads between the
// paragraphs and a headline of its own.

import (
	"fmt"
	stdhtml "html"
	"math/rand/v2"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// copiesPerArticle is how many outlets republish each article.
const copiesPerArticle = 2

// outlet is a syndicating site's template.
type outlet struct {
	name, host string
	head, foot string // its boilerplate around the article
	byline     string // %s: an agency
	dateline   string // %s: a place
	ads        []string
}

var outlets = []outlet{
	{
		name: "Harbor Times", host: "harbor-times.example",
		head: `<header><a href="/">Harbor Times</a><nav><ul><li><a href="/world">World</a></li><li><a href="/business">Business</a></li><li><a href="/sport">Sport</a></li><li><a href="/opinion">Opinion</a></li></ul></nav></header>
<div class="breaking">Breaking: ferry services suspended as storm nears the coast</div>`,
		foot: `<aside class="most-read"><h3>Most read</h3><ol><li><a href="/a/1">Council approves new budget after long debate</a></li><li><a href="/a/2">Local team wins title in overtime thriller</a></li><li><a href="/a/3">Tide tables: the week ahead</a></li></ol></aside>
<footer><p>© 2026 Harbor Times Media. All rights reserved.</p><p><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a> · <a href="/contact">Contact us</a></p></footer>`,
		byline: "By Staff and wire reports, %s", dateline: "%s (AP) — ",
		ads: []string{"Advertisement", "Sponsored: Refinance now — rates at a 3-year low", "Subscribe to the Harbor Times for 99 cents a week"},
	},
	{
		name: "Valley Courier", host: "valleycourier.example",
		head: `<div id="top-bar"><a href="/">The Valley Courier</a> <form action="/search"><input name="q"></form></div>
<ul class="menu"><li><a href="/news">News</a></li><li><a href="/local">Local</a></li><li><a href="/weather">Weather</a></li><li><a href="/obituaries">Obituaries</a></li></ul>`,
		foot: `<div class="related"><h4>Related stories</h4><ul><li><a href="/r/1">Water rates to rise next spring</a></li><li><a href="/r/2">School board names new superintendent</a></li></ul></div>
<div class="footer">Valley Courier · 12 Main Street · Newsroom: news@valleycourier.example · Copyright 2026</div>`,
		byline: "%s", dateline: "%s — ",
		ads: []string{"ADVERTISEMENT", "Story continues below advertisement", "Shop local: Valley Hardware's winter sale ends Sunday"},
	},
	{
		name: "Daily Ledger", host: "dailyledger.example",
		head: `<header class="site"><h2 class="logo">The Daily Ledger</h2><nav><a href="/politics">Politics</a> <a href="/economy">Economy</a> <a href="/tech">Tech</a> <a href="/science">Science</a></nav></header>
<div class="cookie">We use cookies to improve your experience. <a href="/cookies">Learn more</a> <button>Accept</button></div>`,
		foot: `<section class="newsletter"><h3>Get the Ledger in your inbox</h3><p>Sign up for our morning briefing.</p><form><input name="email"><button>Sign up</button></form></section>
<footer>The Daily Ledger is published by Ledger Group. <a href="/about">About</a> <a href="/ethics">Ethics policy</a></footer>`,
		byline: "From %s", dateline: "%s: ",
		ads: []string{"Advertisement · Scroll to continue", "Paid content: Five gadgets everyone wants this winter", "Advertisement"},
	},
}

var (
	agencies = []string{"The Associated Press", "Reuters", "Agence France-Presse", "Bloomberg News", "Xinhua"}
	places   = []string{"WASHINGTON", "LONDON", "NEW YORK", "BEIJING", "SAN FRANCISCO", "BRUSSELS"}
)

// syndicate returns each corpus page as its original and copiesPerArticle copies
// by outlets, the copies published 1 to 12 hours after the original.
func syndicate(corpus []corpusPage, r *rand.Rand) []storyPage {
	epoch := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	var out []storyPage
	for i, p := range corpus {
		at := epoch.Add(time.Duration(i) * time.Hour)
		out = append(out, storyPage{article: i, original: true, url: p.URL, html: p.HTML, at: at})
		for c := range copiesPerArticle {
			o := outlets[(i+c)%len(outlets)]
			out = append(out, storyPage{
				article: i, url: fmt.Sprintf("https://%s/news/%d-%d", o.host, i, c),
				html: o.republish(p, r), at: at.Add(time.Duration(1+r.IntN(12)) * time.Hour),
			})
		}
	}
	return out
}

// republish is the page as the outlet runs it: its own boilerplate instead of the
// original's (header, nav, aside and footer elements that hold no article
// paragraph are dropped, the outlet's put around the rest), a byline and a
// "Published" line before the article, a dateline opening its first paragraph,
// ads between its paragraphs and a headline of its own (in <h1> and <title>).
func (o outlet) republish(p corpusPage, r *rand.Rand) []byte {
	m, err := parsePage(p.HTML, p.Truth)
	if err != nil {
		return p.HTML
	}
	inArticle := map[*html.Node]bool{}
	for _, para := range m.paras {
		for n := para; n != nil; n = n.Parent {
			inArticle[n] = true
		}
	}
	var chrome []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && !inArticle[n] {
			switch n.DataAtom {
			case atom.Header, atom.Nav, atom.Footer, atom.Aside:
				chrome = append(chrome, n)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(m.body)
	for _, n := range chrome {
		n.Parent.RemoveChild(n)
	}
	prepend(m.body, o.head)
	appendHTML(m.body, o.foot)

	headline := rewriteHeadline(p, m, r)
	if m.h1 != nil && m.h1.Parent != nil {
		setText(m.h1, headline)
	}
	setTitle(m.doc, headline+" | "+o.name)
	if len(m.paras) == 0 {
		return m.render()
	}
	first := m.paras[0]
	byline := fmt.Sprintf(o.byline, agencies[r.IntN(len(agencies))])
	published := time.Date(2026, 11, 1+r.IntN(28), r.IntN(24), r.IntN(60), 0, 0, time.UTC).Format("January 2, 2006 3:04 PM MST")
	for _, n := range frag(fmt.Sprintf(`<p class="byline">%s</p><p class="date">Published %s</p>`, stdhtml.EscapeString(byline), published)) {
		first.Parent.InsertBefore(n, first)
	}
	first.InsertBefore(&html.Node{Type: html.TextNode, Data: fmt.Sprintf(o.dateline, places[r.IntN(len(places))])}, first.FirstChild)
	for j, para := range m.paras {
		if j%4 == 2 && j < len(m.paras)-1 { // an ad slot every few paragraphs
			insertAfter(para, fmt.Sprintf(`<div class="ad"><p>%s</p></div>`, stdhtml.EscapeString(o.ads[r.IntN(len(o.ads))])))
		}
	}
	return m.render()
}

// setTitle replaces the document's <title> text.
func setTitle(doc *html.Node, title string) {
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			setText(n, title)
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(doc)
}

// rewriteHeadline gives the copy a headline of its own, as a desk does when the
// wire's does not fit: made from the article's first sentence.
func rewriteHeadline(p corpusPage, m *mutable, r *rand.Rand) string {
	first := ""
	if len(m.paras) > 0 {
		first = nodeText(m.paras[0])
	} else if lines := strings.Fields(p.Truth); len(lines) > 0 {
		first = p.Truth
	}
	if i := strings.IndexAny(first, ".!?。！？"); i > 0 {
		first = first[:i]
	}
	w := strings.Fields(first)
	if len(w) > 10 {
		w = w[:10]
	}
	if len(w) == 0 {
		w = []string{"News", "update"}
	}
	prefix := []string{"", "WATCH: ", "Explainer: ", "Update: "}[r.IntN(4)]
	return prefix + strings.Join(w, " ")
}
