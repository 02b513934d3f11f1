package page

import "strings"

// Class and id names that tell chrome from content, after Readability.js
// (unlikelyCandidates, okMaybeItsACandidate, positive and negative), plus the
// consent managers and ad slots the revisit bench's churn comes from. A name only
// marks an element as a candidate for removal: article.go decides, and never removes
// what holds the article.

// chromeParts are substrings of a class or id that name page chrome.
var chromeParts = []string{
	"-ad-", "ai2html", "banner", "breadcrumb", "combx", "comment", "community",
	"cover-wrap", "disqus", "extra", "footer", "gdpr", "header", "legends", "menu",
	"related", "remark", "replies", "rss", "shoutbox", "sidebar", "skyscraper",
	"social", "sponsor", "supplemental", "ad-break", "agegate", "pagination", "pager",
	"popup", "yom-remote",
	// consent managers, newsletters, share bars, tickers, most-read lists
	"cookie", "consent", "newsletter", "share", "ticker", "most-read", "mostread",
	"most-popular", "trending", "outbrain", "taboola", "advert", "subscribe",
	"onetrust", "didomi", "cmp-", "qc-cmp", "truste", "caption", "credit", "gallery",
	"slideshow", "carousel", "byline", "author", "dateline",
}

// chromeTokens are whole class/id words that name chrome ("gg" is the usual pinyin
// abbreviation of 广告, advertisement, on Chinese sites).
var chromeTokens = map[string]bool{
	"ad": true, "ads": true, "adv": true, "gg": true, "guanggao": true, "nav": true,
	"navbar": true, "navigation": true, "toolbar": true, "widget": true, "modal": true,
	"login": true, "tags": true, "byline": true, "promo": true, "hidden": true,
	"dateline": true, "timestamp": true, "counter": true, "views": true,
}

// contentParts rescue a chrome-looking name (Readability's okMaybeItsACandidate).
var contentParts = []string{"and", "article", "body", "column", "content", "main", "shadow"}

// chromeName reports whether a lower-cased class/id list names page chrome.
func chromeName(names string) bool {
	for _, p := range contentParts {
		if strings.Contains(names, p) {
			return false
		}
	}
	for _, p := range chromeParts {
		if strings.Contains(names, p) {
			return true
		}
	}
	for _, tok := range nameTokens(names) {
		if chromeTokens[tok] {
			return true
		}
	}
	return false
}

// nameTokens splits a class/id list into words: "f_ads_x i-nav" -> f ads x i nav.
func nameTokens(names string) []string {
	return strings.FieldsFunc(names, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// positiveParts and negativeParts weigh a candidate by its names (Readability's
// getClassWeight: ±25).
var (
	positiveParts = []string{"article", "body", "content", "entry", "hentry", "h-entry",
		"main", "page", "post", "text", "blog", "story"}
	negativeParts = []string{"-ad-", "hidden", "banner", "combx", "comment", "com-",
		"contact", "footer", "gdpr", "masthead", "media", "meta", "outbrain", "promo",
		"related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor",
		"shopping", "tags", "widget"}
)

// classWeight is Readability's class weight of a lower-cased class/id list.
func classWeight(names string) float64 {
	if names == "" {
		return 0
	}
	w := 0.0
	for _, p := range negativeParts {
		if strings.Contains(names, p) {
			w -= 25
			break
		}
	}
	for _, p := range positiveParts {
		if strings.Contains(names, p) {
			w += 25
			break
		}
	}
	return w
}
