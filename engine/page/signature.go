package page

import (
	"github.com/cespare/xxhash/v2"
)

// The change signal beside the seed's SimHash. A 64-bit SimHash of a long
// article moves by a bit or two when one paragraph of fifty is replaced, so at the
// seed's threshold (5 bits) most real edits went unseen. The main text is now exact
// enough (article.go) to be digested whole: any edit to the article body or headline
// changes the digest, while everything outside the article (consent banners, ads,
// menus, most-read lists, tickers) is not in it. Inside it, the churn that remains is
// numbers and times ("updated 5 minutes ago", "1,204 comments", a date line), which
// the digest masks.

// Signature is what one fetch says about a page's content.
type Signature struct {
	SimHash  uint64 // seed 001's fingerprint of the main text (headline and body)
	Text     uint64 // digest of the normalised article body, numbers and times masked
	Title    uint64 // digest of the normalised headline, numbers and times masked
	Page     uint64 // digest of the raw body: tells "only boilerplate moved" from "nothing moved"
	Fallback bool   // no recognisable article: the body is the page's visible text (Text.Fallback)
}

// Sign extracts a page's main text and returns its change signature with the text,
// or ok=false when the body has no usable text (see Fingerprint).
func Sign(body []byte, contentType string) (sig Signature, t Text, ok bool) {
	return Parse(body, contentType, nil).sign()
}

// sign is Sign of the parsed body.
func (p *Parsed) sign() (sig Signature, t Text, ok bool) {
	t, ok = p.mainText()
	if !ok {
		return Signature{}, Text{}, false
	}
	sums, ok := textSignature(t)
	if !ok {
		return Signature{}, Text{}, false
	}
	sig.SimHash, sig.Text, sig.Title = sums.simhash, sums.text, sums.title
	sig.Page = xxhash.Sum64(p.body)
	sig.Fallback = t.Fallback
	return sig, t, true
}

// timeUnits are the words that follow a number in a time or a relative time ("5
// minutes ago", "3 hrs", "2 days"), and the month names of dates, in the languages
// of the benchmark; they are masked with the number before them.
var timeUnits = map[string]bool{
	"s": true, "sec": true, "secs": true, "second": true, "seconds": true, "min": true,
	"mins": true, "minute": true, "minutes": true, "h": true, "hr": true, "hrs": true,
	"hour": true, "hours": true, "d": true, "day": true, "days": true, "wk": true,
	"week": true, "weeks": true, "month": true, "months": true, "year": true,
	"years": true, "ago": true, "am": true, "pm": true, "utc": true, "gmt": true,
	"minuten": true, "stunden": true, "stunde": true, "tagen": true, "minutos": true,
	"horas": true, "hora": true, "dias": true, "días": true, "heures": true, "heure": true,
	"jours": true, "minuti": true, "ore": true, "giorni": true,
	"秒": true, "分": true, "钟": true, "鐘": true, "小": true, "时": true, "時": true,
	"天": true, "日": true, "月": true, "年": true, "周": true, "前": true, "号": true,
	"号前": true, "間": true, "분": true, "시간": true, "일": true, "전": true,
}

// monthNames are masked wherever they stand: a date line's month changes too.
var monthNames = map[string]bool{
	"jan": true, "january": true, "feb": true, "february": true, "mar": true,
	"march": true, "apr": true, "april": true, "may": true, "jun": true, "june": true,
	"jul": true, "july": true, "aug": true, "august": true, "sep": true, "sept": true,
	"september": true, "oct": true, "october": true, "nov": true, "november": true,
	"dec": true, "december": true, "monday": true, "tuesday": true, "wednesday": true,
	"thursday": true, "friday": true, "saturday": true, "sunday": true,
	"yesterday": true, "today": true,
}

// maybeMonth is a cheap filter before the monthNames lookup: month and day names
// are 3 to 9 ASCII letters starting with one of a few letters.
func maybeMonth(tok string) bool {
	if len(tok) < 3 || len(tok) > 9 {
		return false
	}
	switch tok[0] {
	case 'a', 'd', 'f', 'j', 'm', 'n', 'o', 's', 't', 'w', 'y':
		return true
	}
	return false
}

// isNumberToken reports a token that is a number, or a number with a unit glued to
// it ("5m", "3h", "12k", "1st").
func isNumberToken(tok string) bool {
	if tok == "" || tok[0] < '0' || tok[0] > '9' {
		return false // NFKC has already made full-width digits ASCII
	}
	digits := 0
	for _, c := range tok {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	return digits*2 >= len(tok)
}
