package pagetest

import (
	"fmt"
	"strings"
)

// ArticleParas is a long article (over a thousand words) in English, 24 paragraphs.
var ArticleParas = func() []string {
	var out []string
	for i := range 24 {
		out = append(out, fmt.Sprintf("Paragraph %s of the report: the council met on Tuesday evening, heard residents on the flood defences, the bus routes and the school budget, and agreed, after a long debate, to publish the engineers' findings in full before the winter storms arrive on the coast and the rivers rise again.", spell(i)))
	}
	return out
}()

func spell(i int) string {
	return []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
		"twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
		"twenty", "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six"}[i]
}

// ChromeTop and ChromeBottom are page chrome to put around an article: a menu, a
// most-read list and a footer, which must stay out of the main text.
const (
	ChromeTop    = `<nav><ul><li><a href="/w">World</a></li><li><a href="/b">Business</a></li></ul></nav>`
	ChromeBottom = `<div class="most-read"><h3>Most read</h3><ul><li><a href="/1">Storm closes roads</a></li><li><a href="/2">Markets slip</a></li></ul></div><footer>© 2019 Daily News · All rights reserved</footer>`
)

// Paras renders paragraphs as <p> elements, one a line.
func Paras(ps []string) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("<p>" + p + "</p>\n")
	}
	return b.String()
}

// NewsPage is a news article with a consent banner, a counter line and a relative
// time inside the article wrapper.
func NewsPage(headline string, ps []string, consent string, mins, views int) string {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>` + headline + `</title></head><body>` + ChromeTop +
		`<div class="article-wrap"><h1>` + headline + `</h1><p>Updated ` + fmt.Sprint(mins) + ` minutes ago · ` + fmt.Sprint(views) + ` views</p>` +
		Paras(ps) + `</div>` + ChromeBottom +
		`<div class="message-container"><div class="message"><p>` + consent + `</p><p><a href="#">Accept</a></p></div></div></body></html>`
}

// ConsentTexts are two wordings of one cookie-consent banner.
var ConsentTexts = []string{
	"We and our partners use cookies and similar technologies to store and access information on your device, to measure our audience, to personalise content and advertising, and to improve our services. You can accept all cookies, refuse them, or choose purposes.",
	"This site and its partners store and read information on your device, such as cookies, to understand how readers use our pages, to show relevant content and ads, and to keep our journalism free. Choose to accept, decline or set your preferences.",
}
