package meta

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// The page's language: what its markup declares (<html lang>, Content-Language,
// og:locale, JSON-LD inLanguage), checked against the script of its main text; with
// no declaration, or one the text contradicts, the text's script decides, and for
// Latin and Cyrillic text its commonest function words. A site template that says
// lang="en" on every page in every language is the usual case this catches.

// scriptCounts are the letters of a text by script, and its function words by
// language.
type scriptCounts struct {
	letters                                        int
	latin, cyrillic, greek, arabic, hebrew, hangul int
	han, kana, thai, devanagari                    int
	words                                          [len(wordLangs)]int // function words seen, by wordLangs
}

// wordLangs are the languages functionWords can tell apart.
var wordLangs = [...]string{"en", "de", "fr", "es", "it", "pt", "nl", "ru", "uk"}

// wordsOf is how many function words of lang the text has (0 for a language
// functionWords does not know).
func (c *scriptCounts) wordsOf(lang string) int {
	if i := wordLang(lang); i >= 0 {
		return c.words[i]
	}
	return 0
}

// wordLang is lang's index in wordLangs, -1 when it has no function words.
func wordLang(lang string) int {
	for i, l := range wordLangs {
		if l == lang {
			return i
		}
	}
	return -1
}

// functionWords are frequent short words of languages written in Latin or Cyrillic
// letters, each only in the list of one language: the index of the language in
// wordLangs, -1 for a word in two lists (it tells nothing).
var functionWords = map[string]int{}

// maxFunctionRunes and maxFunctionBytes are the length in runes and in bytes of the
// longest function word.
var maxFunctionRunes, maxFunctionBytes int

// shapeWords are the function words that tell a language (not those in two lists)
// of each wordShape, at shapeIndex[shape]-1 (shapeIndex is 0 for a shape no such word
// has): a word of text is compared byte for byte with the few of its shape, without
// hashing it, and most words are ruled out by a look-up in a table of 4 KB.
var (
	shapeIndex [1 << 12]uint8
	shapeWords [][]shapeWord
)

// shapeWord is a function word and the index of its language in wordLangs.
type shapeWord struct {
	w    string
	lang int
}

func init() {
	for lang, list := range map[string]string{
		"en": "the and of to in is that for with was on are as this by be from have it has",
		"de": "der die das und ist nicht ein eine mit den dem auf für sich auch des im wird werden",
		"fr": "le la les et des du est une pour pas dans sur qui au avec sont ce ces",
		"es": "el los las y del es por una con para como más pero sus fue está son",
		"it": "il di che è della per sono gli una nel alla anche non più dei delle",
		"pt": "o os da do das dos não uma com para mais foi são pelo pela também",
		"nl": "het een van en niet dat zijn op te voor met ook maar bij wordt",
		"ru": "и в не на что с по это как из но он она они был для",
		"uk": "і та що не на це як від але він вона вони був для із",
	} {
		for _, w := range strings.Fields(list) {
			maxFunctionRunes = max(maxFunctionRunes, utf8.RuneCountInString(w))
			maxFunctionBytes = max(maxFunctionBytes, len(w))
			if _, dup := functionWords[w]; dup {
				functionWords[w] = -1
				continue
			}
			functionWords[w] = wordLang(lang)
		}
	}
	for w, lang := range functionWords {
		if lang >= 0 {
			k := wordShape([]byte(w))
			if shapeIndex[k] == 0 {
				shapeWords = append(shapeWords, nil)
				shapeIndex[k] = uint8(len(shapeWords)) // (fewer than 256 words)
			}
			shapeWords[shapeIndex[k]-1] = append(shapeWords[shapeIndex[k]-1], shapeWord{w, lang})
		}
	}
	for r := range rune(len(lowerRunes)) {
		lowerRunes[r] = unicode.ToLower(r)
	}
	for w := range functionWords {
		for _, r := range w {
			if int(r) >= len(lowerRunes) {
				panic("meta: function word " + w + " has a letter past lowerRunes")
			}
		}
	}
}

// lowerRunes is unicode.ToLower of the runes of the Latin, Greek and Cyrillic
// blocks, looked up for each letter of a short word that is not ASCII. Every
// function word is written in them (init checks): a word with a letter whose lower
// case is past them is none (letterTable marks the few of the Basic Multilingual
// Plane whose lower case is in them, the Kelvin sign's k among them).
var lowerRunes [0x530]rune

// countScripts counts the letters of a text (its headline, then its body) by
// script, and its function words by language.
func countScripts(title, body string) scriptCounts {
	var c scriptCounts
	nwords := 0
	c.count(title, &nwords, false)
	c.count(body, &nwords, true)
	return c
}

// count counts s's letters and, of the text's first 4,000 words, its function
// words; the last word of the text (last) is counted past them. ASCII, most of
// most pages, takes a path of its own: an ASCII letter is Latin, eight bytes of
// ASCII are read a step (their letters counted at once, each other byte ending a
// word), and a word of ASCII letters is lower-cased byte for byte.
func (c *scriptCounts) count(s string, nwords *int, last bool) {
	table := letterTable()
	var scripts [scDevanagari + 1]int // letters by script past ASCII, added to c at the end
	latin := 0                        // ASCII letters
	runK, runN := scNone, 0           // the letters past ASCII of script runK not yet in scripts
	word, ascii := 0, true            // the current word starts at word; all its letters ASCII so far
	for i := 0; i < len(s); {
		ch := s[i]
		if ch < utf8.RuneSelf {
			for i+8 <= len(s) {
				x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
				if x&highBits != 0 {
					break
				}
				// Each byte below 0x80, a byte's worth added to each sets its
				// high bit without carrying into the next: from 'a' up, and from
				// past 'z' up, of its lower case.
				lower := x | 0x20*lowBits
				alpha := (lower + (0x80-'a')*lowBits) &^ (lower + (0x80-'z'-1)*lowBits) & highBits
				latin += bits.OnesCount64(alpha)
				for ends := ^alpha & highBits; ends != 0; ends &= ends - 1 {
					j := i + bits.TrailingZeros64(ends)>>3
					if j > word && *nwords < 4000 {
						if w := s[word:j]; !ascii || asciiShape(w) != 0 {
							c.countWordOf(w, ascii, table)
						}
						*nwords++
					}
					word, ascii = j+1, true
				}
				i += 8
			}
			if i == len(s) {
				break
			}
			if ch = s[i]; ch >= utf8.RuneSelf {
				continue
			}
			if lower := ch | 0x20; 'a' <= lower && lower <= 'z' {
				j := i + 1 // the run of ASCII letters, counted at once
				for j < len(s) && 'a' <= s[j]|0x20 && s[j]|0x20 <= 'z' {
					j++
				}
				latin += j - i
				i = j
				continue
			}
			if i > word && *nwords < 4000 {
				if w := s[word:i]; !ascii || asciiShape(w) != 0 {
					c.countWordOf(w, ascii, table)
				}
				*nwords++
			}
			word, ascii = i+1, true
			i++
			continue
		}
		// textutil.DecodeRuneInString, its two- and three-byte forms written out:
		// every letter of a text past ASCII comes here.
		var r rune
		size := 0
		if i+2 < len(s) {
			c1, c2 := s[i+1], s[i+2]
			if ch-0xC2 <= 0xDF-0xC2 && c1&0xC0 == 0x80 {
				r, size = rune(ch&0x1F)<<6|rune(c1&0x3F), 2
			} else if ch&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (ch != 0xE0 || c1 >= 0xA0) && (ch != 0xED || c1 < 0xA0) {
				r, size = rune(ch&0x0F)<<12|rune(c1&0x3F)<<6|rune(c2&0x3F), 3
			}
		}
		if size == 0 {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		k := scNone
		switch {
		case uint32(r-hanLo) <= uint32(hanHi-hanLo):
			k = scHan // the commonest letters past ASCII, without a look-up in the table
		case r < 0x10000:
			k = table[r] & scriptBits
		default:
			k = letterScript(r)
		}
		if k != scNone {
			// (a run of one script, most of a text past ASCII, is counted at
			// its end: no store a letter)
			if k != runK {
				scripts[runK] += runN
				runK, runN = k, 0
			}
			runN++
			ascii = false
			i += size
			continue
		}
		if i > word && *nwords < 4000 {
			if w := s[word:i]; !ascii || asciiShape(w) != 0 {
				c.countWordOf(w, ascii, table)
			}
			*nwords++
		}
		word, ascii = i+utf8.RuneLen(r), true // (an invalid byte's U+FFFD is 3 bytes)
		i += size
	}
	if word < len(s) && (last || *nwords < 4000) {
		c.countWordOf(s[word:], ascii, table)
		*nwords++
	}
	scripts[scLatin] += latin
	scripts[runK] += runN
	for k, n := range scripts {
		if k != int(scNone) {
			c.letters += n
			c.add(uint8(k), n)
		}
	}
}

// Eight bytes in one word, for count.
const (
	lowBits  = 0x0101010101010101 // each byte's lowest bit
	highBits = 0x8080808080808080 // each byte's highest bit
)

// countWordOf is countWord, told whether w is ASCII letters only; table is
// letterTable().
func (c *scriptCounts) countWordOf(w string, ascii bool, table *[0x10000]uint8) {
	if !ascii {
		c.countWord(w, table)
		return
	}
	// One byte a rune, and lower-casing keeps each byte's place: the length and
	// shape are known before anything is copied, and a candidate is compared
	// with each byte lower-cased in place.
	k := asciiShape(w)
	if k == 0 {
		return
	}
	for _, f := range shapeWords[k-1] {
		if len(f.w) == len(w) && equalLowerASCII(w, f.w) {
			c.words[f.lang]++
			return
		}
	}
}

// asciiShape is shapeIndex of w, a word of ASCII letters, 0 when no function word
// has its length and shape, as most words: count lets those go without a call.
func asciiShape(w string) uint8 {
	n := len(w)
	if n > maxFunctionRunes {
		return 0
	}
	return shapeIndex[shapeOf(n, w[0]|0x20, w[n-1]|0x20)]
}

// equalLowerASCII reports whether w, ASCII letters, lower-cased is lower, of the
// same length.
func equalLowerASCII(w, lower string) bool {
	for i := range len(w) {
		if w[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// countWord counts w if it is a function word. It is lower-cased rune by rune, as
// strings.ToLower does, on the stack: a word of more runes than the longest
// function word is none, nor is one with a letter no function word has in lower
// case, nor one whose shape no function word has. table is letterTable().
func (c *scriptCounts) countWord(w string, table *[0x10000]uint8) {
	if len(w) > utf8.UTFMax*maxFunctionRunes {
		return // more runes than that
	}
	var buf [64]byte
	b, n := buf[:0], 0
	for i := 0; i < len(w); {
		if n++; n > maxFunctionRunes {
			return
		}
		if ch := w[i]; ch < utf8.RuneSelf {
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			if b = append(b, ch); len(b) > maxFunctionBytes {
				return // longer than any function word, lower-cased
			}
			i++
			continue
		}
		var r rune
		var size int
		if c0 := w[i]; c0-0xC2 <= 0xDF-0xC2 && i+1 < len(w) && w[i+1]&0xC0 == 0x80 {
			r, size = rune(c0&0x1F)<<6|rune(w[i+1]&0x3F), 2 // two bytes (Cyrillic, Greek), decoded here
		} else {
			r, size = textutil.DecodeRuneInString(w[i:])
		}
		switch {
		case int(r) < len(lowerRunes):
			r = lowerRunes[r]
		case r < 0x10000 && table[r]&lowerInWords == 0:
			return // (U+FFFD for an invalid byte among them)
		default:
			r = unicode.ToLower(r)
		}
		if b = utf8.AppendRune(b, r); len(b) > maxFunctionBytes {
			return
		}
		i += size
	}
	k := shapeIndex[wordShape(b)]
	if k == 0 {
		return
	}
	for _, f := range shapeWords[k-1] {
		if f.w == string(b) {
			c.words[f.lang]++
			return
		}
	}
}

// wordShape hashes a word's length and its first and last bytes: shapeIndex holds
// those of the function words, a filter that lets most other words go without
// reading them whole.
func wordShape(b []byte) uint16 { return shapeOf(len(b), b[0], b[len(b)-1]) }

// shapeOf is wordShape of a word of n bytes that starts with first and ends with last.
func shapeOf(n int, first, last byte) uint16 {
	return uint16((n*61 + int(first)*31 + int(last)) & (len(shapeIndex) - 1))
}

// The scripts of letters countScripts tells apart; scNone is no letter.
const (
	scNone uint8 = iota
	scOther
	scLatin
	scCyrillic
	scGreek
	scArabic
	scHebrew
	scHangul
	scKana
	scHan
	scThai
	scDevanagari
)

// letterScript is the script of a rune, scNone when it is no letter.
func letterScript(r rune) uint8 {
	switch {
	case !unicode.IsLetter(r):
		return scNone
	case r < 0x250:
		return scLatin
	case unicode.Is(unicode.Cyrillic, r):
		return scCyrillic
	case unicode.Is(unicode.Greek, r):
		return scGreek
	case unicode.Is(unicode.Arabic, r):
		return scArabic
	case unicode.Is(unicode.Hebrew, r):
		return scHebrew
	case unicode.Is(unicode.Hangul, r):
		return scHangul
	case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
		return scKana
	case unicode.Is(unicode.Han, r):
		return scHan
	case unicode.Is(unicode.Thai, r):
		return scThai
	case unicode.Is(unicode.Devanagari, r):
		return scDevanagari
	}
	return scOther
}

// letterTable is letterScript of every rune of the Basic Multilingual Plane (its
// scriptBits), built on first use: every letter of a page's main text is looked up.
// Its other bits say what a title's words and a short word's lower case need to know
// of each rune without the Unicode tables' walks.
var letterTable = sync.OnceValue(func() *[0x10000]uint8 {
	t := new([0x10000]uint8)
	for r := range rune(len(t)) {
		t[r] = letterScript(r)
	}
	// unicode.ToLower and unicode.IsDigit, from their tables' ranges rather than a
	// walk of them for each rune (TestLetterTable checks every rune against them).
	for _, cr := range unicode.CaseRanges {
		for r := rune(cr.Lo); r <= rune(cr.Hi) && r < rune(len(t)); r++ {
			lower := r + cr.Delta[unicode.LowerCase]
			if cr.Delta[unicode.LowerCase] > unicode.MaxRune { // an upper, lower, upper... run
				lower = rune(cr.Lo) + ((r-rune(cr.Lo))&^1 | 1)
			}
			if lower != r {
				t[r] |= changesLower
			}
			if int(r) >= len(lowerRunes) && int(lower) < len(lowerRunes) {
				t[r] |= lowerInWords
			}
		}
	}
	for _, rg := range unicode.Digit.R16 {
		for r := int(rg.Lo); r <= int(rg.Hi); r += int(rg.Stride) {
			t[r] |= digitRune
		}
	}
	// textutil.UnspacedScript, from its tables' ranges rather than a walk of them
	// for each rune (TestLetterTable checks every rune against it).
	for _, tab := range unspacedTables {
		for _, rg := range tab.R16 {
			for r := int(rg.Lo); r <= int(rg.Hi); r += int(rg.Stride) {
				t[r] |= unspacedRune
			}
		}
	}
	for _, rg := range [][2]rune{{0x4E00, 0x9FFF}, {0x3040, 0x30FF}, {0xAC00, 0xD7A3}} {
		for r := rg[0]; r <= rg[1]; r++ {
			t[r] |= unspacedRune // textutil.UnspacedScript's ranges read without the tables
		}
	}
	for r := range rune(0x0E00) {
		t[r] &^= unspacedRune
	}
	// The run of Han letters around U+4E00 (the CJK Unified Ideographs): count
	// tells those apart from the others without reading the table, which a page
	// of Chinese would read all over.
	hanLo, hanHi = 0x4E00, 0x4E00
	for hanLo > 0 && t[hanLo-1]&scriptBits == scHan {
		hanLo--
	}
	for hanHi+1 < rune(len(t)) && t[hanHi+1]&scriptBits == scHan {
		hanHi++
	}
	return t
})

// hanLo and hanHi bound the run of Han letters around U+4E00 (letterTable).
var hanLo, hanHi rune

// unspacedTables are the scripts of textutil.UnspacedScript.
var unspacedTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// The bits of letterTable.
const (
	scriptBits   uint8 = 0x0F // letterScript (scNone: no letter)
	unspacedRune uint8 = 0x10 // textutil.UnspacedScript
	digitRune    uint8 = 0x20 // unicode.IsDigit
	changesLower uint8 = 0x40 // unicode.ToLower changes it
	// lowerInWords marks a rune past lowerRunes whose lower case is in them: it
	// may be the letter of a function word.
	lowerInWords uint8 = 0x80
)

// add counts n letters of script k.
func (c *scriptCounts) add(k uint8, n int) {
	switch k {
	case scLatin:
		c.latin += n
	case scCyrillic:
		c.cyrillic += n
	case scGreek:
		c.greek += n
	case scArabic:
		c.arabic += n
	case scHebrew:
		c.hebrew += n
	case scHangul:
		c.hangul += n
	case scKana:
		c.kana += n
	case scHan:
		c.han += n
	case scThai:
		c.thai += n
	case scDevanagari:
		c.devanagari += n
	}
}
