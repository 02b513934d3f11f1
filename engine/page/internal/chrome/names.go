// Package chrome reads an element's class and id names as the article extractor
// does (engine/page): whether they name page chrome, and how they weigh a candidate.
//
// The names tell chrome from content after Readability.js (unlikelyCandidates,
// okMaybeItsACandidate, positive and negative), plus the consent managers and ad
// slots the revisit bench's churn comes from. A name only marks an element as a
// candidate for removal: the extractor decides, and never removes what holds the
// article.
package chrome

import "strings"

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

// Name reports whether a lower-cased class/id list names page chrome.
func Name(names string) bool {
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
	// Its words ("f_ads_x i-nav": f ads x i nav), read in place.
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && (names[j] >= 'a' && names[j] <= 'z' || names[j] >= '0' && names[j] <= '9') {
			j++
		}
		if j > i && chromeTokens[names[i:j]] {
			return true
		}
		i = j + 1
	}
	return false
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

// ClassWeight is Readability's class weight of a lower-cased class/id list.
func ClassWeight(names string) float64 {
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
