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

// Name reports whether a lower-cased class/id list names page chrome: no content
// part in it, and a chrome part or a chrome word. The parts are looked for in one
// walk of the list, at each byte only those that start with it (partsAt): a page
// of the real web has hundreds of elements with long lists, and a strings.Contains
// for each of the 64 parts costs an eighth of its reading.
func Name(names string) bool {
	chrome := false
	for i := 0; i < len(names); i++ {
		for _, p := range partsAt[names[i]] {
			if len(p.s) <= len(names)-i && names[i+1] == p.s[1] && names[i:i+len(p.s)] == p.s {
				if p.content {
					return false
				}
				chrome = true
			}
		}
	}
	if chrome {
		return true
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

// part is a content or chrome part of partsAt.
type part struct {
	s       string
	content bool
}

// partsAt are contentParts and chromeParts by their first byte (each has two
// bytes at least).
var partsAt = func() (t [256][]part) {
	for _, p := range contentParts {
		t[p[0]] = append(t[p[0]], part{p, true})
	}
	for _, p := range chromeParts {
		t[p[0]] = append(t[p[0]], part{p, false})
	}
	return t
}()

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
