// Package notice tells the short lines inside an article's container that are the
// site's, not the article's: a publication or update stamp, a paywall's notice. The
// extractor leaves them out of the main text.
package notice

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// MaxStampLetters bounds the lines Stamp reads: a date and time with a label
// ("Submitted on", "آخر تحديث"), not a sentence that names a time.
const MaxStampLetters = 48

// Stamp reports a line that gives a year (19xx or 20xx, standing alone) and a
// time of day (h:mm) and does not end as a sentence: a publication or update stamp
// in any language, which the metadata reads and the article's text does not hold.
func Stamp(s []byte) bool {
	if endsSentence(s) {
		return false
	}
	year, clock := false, false
	for i := 0; i < len(s); {
		if !isDigitByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigitByte(s[j]) {
			j++
		}
		switch n := s[i:j]; {
		case len(n) == 4 && (n[0] == '1' && n[1] == '9' || n[0] == '2' && n[1] == '0'):
			year = true
		case len(n) <= 2 && j+2 < len(s) && s[j] == ':' && isDigitByte(s[j+1]) && isDigitByte(s[j+2]) && (j+3 == len(s) || !isDigitByte(s[j+3])):
			clock = true
		}
		i = j
	}
	return year && clock
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// endsSentence reports a line that ends as a sentence does (closing quotes and
// brackets aside).
func endsSentence(s []byte) bool {
	if t := bytes.TrimRight(s, " \t\n\r\f\"'”’)»」』"); len(t) > 0 {
		r, _ := utf8.DecodeLastRune(t)
		return strings.ContainsRune(".!?:;…。！？；", r)
	}
	return false
}

// MaxLetters bounds the lines Paywall reads: a notice is a line or two.
const MaxLetters = 100

// paywallPhrases are what a paywall's or a registration wall's notice says, in the
// languages of the news the crawler reads (lower case): the notice stands where the
// text is cut, inside the article's container, and is the site's, not the article's.
var paywallPhrases = [][]byte{
	[]byte("会員限定"), []byte("続きをお読みいただけます"), []byte("続きを読むには"), // ja: members only, read the rest by registering
	[]byte("登录后阅读"), []byte("订阅后阅读"), []byte("付费阅读"), // zh: read after logging in / subscribing, paid reading
	[]byte("subscribe to continue reading"), []byte("to continue reading, "),
	[]byte("réservé aux abonnés"), []byte("nur für abonnenten"), []byte("exclusivo para suscriptores"), []byte("олько для подписчиков"),
}

// labelPhrases are paywall words that news sentences say too ("it would raise
// prices for subscribers in the US"): a notice only on a line that ends no sentence
// (a label: "SUBSCRIBERS ONLY").
var labelPhrases = [][]byte{[]byte("subscribers only"), []byte("for subscribers")}

// Paywall reports a line that is a paywall's notice (paywallPhrases). Its ASCII
// letters are lower-cased into scratch (the phrases' other letters are lower case as
// written), returned for the next line to reuse.
func Paywall(s, scratch []byte) (notice bool, _ []byte) {
	low := scratch[:0]
	for _, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	for _, p := range paywallPhrases {
		if bytes.Contains(low, p) {
			return true, low
		}
	}
	if !endsSentence(s) {
		for _, p := range labelPhrases {
			if bytes.Contains(low, p) {
				return true, low
			}
		}
	}
	return false, low
}
