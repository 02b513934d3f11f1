package page

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/crawlconsole/crawlconsole/engine/page/pagetest"
)

// TestSignTextAsTwoWalks: one walk over the headline and the body (signText) gives
// the SimHash and the masked digests that the separate walks gave (normalizedSimhash,
// and the digest as it was, maskedDigestTwoWalks), on texts with numbers, times,
// dates, unspaced scripts, invalid bytes and paragraphs.
func TestSignTextAsTwoWalks(t *testing.T) {
	var texts []string
	for _, script := range []string{"chinese", "english", "russian"} {
		for _, a := range pagetest.Articles[script] {
			texts = append(texts, strings.Join(a, "\n"))
		}
	}
	texts = append(texts, "", "\n\n", "updated 5 minutes ago, 1,204 comments\nMay 3 2024 12:01 UTC",
		"3分钟前 发布\n台风来袭，沿海地区发布预警。", "bad \xff bytes in\xfe a word\n\xff", "one",
		"тест 12 минут назад\nмарт 2024", "a\u0301 combining\nx ½ ﬁ", "word\n\nword two",
		"中\xff文字，台\xfe风 来袭\xff。中", "字\n文")
	for i, body := range texts {
		title := texts[(i+1)%len(texts)]
		title = strings.ReplaceAll(title, "\n", " ")
		got, ok := signText(normalize(title), normalize(body))
		h, wantOK := normalizedSimhash(normalize(title), normalize(body))
		want := textSums{simhash: h, text: maskedDigestTwoWalks(normalize(body)), title: maskedDigestTwoWalks(normalize(title))}
		if !wantOK {
			want = textSums{}
		}
		if got != want || ok != wantOK {
			t.Fatalf("%q / %q: one walk %+v %v, two walks %+v %v", title, body, got, ok, want, wantOK)
		}
	}
}

// maskedDigestTwoWalks is maskedDigest as it was before signText: it digests normalised text (NFKC, case-folded: see normalize) with numbers, the time units
// after them and month and day names masked. Words, and each character of unspaced
// scripts (CJK), are the units, so the digest ignores spacing and punctuation
// changes. Empty text digests to 0.
func maskedDigestTwoWalks(text string) uint64 {
	if text == "" {
		return 0
	}
	d := xxhash.New()
	afterNumber := false
	n := 0
	emit := func(tok string) {
		d.WriteString(tok)
		d.Write([]byte{0})
		n++
	}
	forEachTokenOld(text, func(tok string) {
		switch {
		case isNumberToken(tok):
			if !afterNumber {
				emit("#")
			}
			afterNumber = true
		case afterNumber && timeUnits[tok]:
			// "5 minutes ago", "3分钟前": the unit goes with its number
		case maybeMonth(tok) && monthNames[tok]:
			emit("#")
			afterNumber = true
		default:
			afterNumber = false
			emit(tok)
		}
	})
	if n == 0 {
		return 0
	}
	return d.Sum64()
}

// forEachTokenOld calls fn with each word of a spaced script and each rune of an
// unspaced one, in order.
func forEachTokenOld(s string, fn func(string)) {
	start := -1
	for i, r := range s {
		switch {
		case isUnspacedScript(r):
			if start >= 0 {
				fn(s[start:i])
				start = -1
			}
			fn(s[i : i+utf8.RuneLen(r)])
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 {
				fn(s[start:i])
				start = -1
			}
		}
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// TestMonthCandidate: the shape filter lets every month and day name through.
func TestMonthCandidate(t *testing.T) {
	for name := range monthNames {
		if !monthCandidate(name) {
			t.Fatalf("%q filtered out", name)
		}
	}
	if monthCandidate("article") || monthCandidate("x") || monthCandidate("данные") {
		t.Fatal("words of no month's shape let through")
	}
}

// TestAllDigitsIsUnicode: a word is a number when each of its runes is one by the
// Unicode tables (an ASCII one a digit), whatever the rune table says, for every
// rune alone and after a digit, and with an invalid byte.
func TestAllDigitsIsUnicode(t *testing.T) {
	byTables := func(w []byte) bool {
		for _, r := range string(w) {
			if r < utf8.RuneSelf && (r < '0' || r > '9') || r >= utf8.RuneSelf && !unicode.IsNumber(r) {
				return false
			}
		}
		return true
	}
	for r := rune(0); r < 0x20000; r++ {
		for _, w := range [][]byte{utf8.AppendRune(nil, r), utf8.AppendRune([]byte("7"), r), append(utf8.AppendRune(nil, r), 0xff)} {
			if got, want := allDigits(w), byTables(w); got != want {
				t.Fatalf("allDigits(%q) = %v, the Unicode tables say %v", w, got, want)
			}
		}
	}
}
