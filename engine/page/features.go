package page

import (
	"encoding/binary"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"github.com/mfonda/simhash"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// SimHash features that work in every script (M2: "CJK text needs real segmentation
// or character n-grams; whitespace splitting is not enough").
//
// mfonda/simhash's own WordFeatureSet matches [\w']+ (ASCII only), so a Chinese page
// has no features at all and every Chinese page gets the same fingerprint. Here the
// text is NFKC-normalised and case-folded (full-width Ａ and a, Straße and STRASSE
// agree), then:
//   - scripts written with spaces yield word 2-shingles ("quick brown", "brown fox");
//   - scripts written without spaces (Han, Hiragana, Katakana, Hangul, and Thai, Lao,
//     Khmer, Myanmar for the same reason) yield character bigrams of each run, a
//     segmenter-free stand-in that is known to work well for near-duplicate detection;
//   - a word or character standing alone (no neighbour to pair with) is a unigram.
// Each feature is hashed with xxhash64 (well mixed in every bit, which SimHash needs;
// FNV-1a, the library's own choice, mixes short inputs poorly) and weighted by the
// density of its text block (mainBlocks), so that one-line churn beside an article
// weighs less than the article's paragraphs.

// maxFeatures bounds the work on giant pages; the first 200k features of a page are
// plenty to tell whether it changed.
const maxFeatures = 200_000

// feature is one hashed shingle or bigram with the weight of its text block;
// simhash.Feature is implemented on the pointer so a slice of features needs one
// allocation, not one per feature.
type feature struct {
	sum    uint64
	weight int
}

// Sum returns the feature's 64-bit hash.
func (f *feature) Sum() uint64 { return f.sum }

// Weight returns the weight of the block the feature came from (see mainBlocks).
func (f *feature) Weight() int { return f.weight }

// featureSet is a page's features, handed to simhash.Simhash.
type featureSet struct {
	store []feature
	feats []simhash.Feature
	mixed bool // some feature's weight is not 1
	sh    shingler
	dg    digester
	st    storyWalk
	norm  []byte // the normalised texts of a walk (textSignature)
}

// GetFeatures implements simhash.FeatureSet.
func (fs *featureSet) GetFeatures() []simhash.Feature {
	fs.feats = fs.feats[:0]
	for i := range fs.store {
		fs.feats = append(fs.feats, &fs.store[i])
	}
	return fs.feats
}

// normalize applies NFKC and Unicode case folding. ASCII text (most of the web's
// markup-free text in English) takes a fast path: NFKC leaves it as it is and folding
// it is lower-casing.
func normalize(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	if out, ok := foldStable(s); ok {
		return out
	}
	return cases.Fold().String(norm.NFKC.String(s))
}

// appendNormalized appends normalize(s) to dst, walking s once: ASCII is lower-cased
// byte by byte and the fold table's runes are looked up as they come; on the first
// rune the table does not hold, what was appended is dropped and s takes the long
// way. The bytes are normalize's whatever s holds (TestNormalizeFoldTable).
//
// sameProse reports that the text appended is s rune for rune with each rune's
// prose class kept (proseClasses: what prose counts): a line's prose is then the
// same read from either text, and Sign's walk counts it over the normalised text
// as it goes (storyWalk.lineEnd). Only a rune the fold changes can change class,
// so it is checked there. false says nothing (the long way, a class changed).
func appendNormalized(dst []byte, s string) (_ []byte, sameProse bool) {
	start := len(dst)
	var t *[runeClassSize]uint16 // the fold table, from the first rune that is not ASCII
	var classes *[runeClassSize]uint8
	nul := false // the table has no NUL: normalize takes the long way for it beside such a rune
	long := false
	sameProse = true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// Eight bytes at a time while they are ASCII and no NUL: each of
			// A-Z lower-cased (lowerASCII8), the rest copied.
			for i+8 <= len(s) {
				x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
				if x&highBits != 0 || (x-lowBits)&^x&highBits != 0 {
					break
				}
				dst = binary.LittleEndian.AppendUint64(dst, lowerASCII8(x))
				i += 8
			}
			if i == len(s) {
				break
			}
			if c = s[i]; c >= utf8.RuneSelf {
				continue
			}
			switch {
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A' // the table's folding of ASCII (TestNormalizeFoldTable)
			case c == 0:
				nul = true
			default:
				// The run of ASCII at i that folds to itself, copied at once.
				j := i + 1
				for j < len(s) && asciiFolded[s[j]] {
					j++
				}
				dst = append(dst, s[i:j]...)
				i = j
				continue
			}
			dst = append(dst, c)
			i++
			continue
		}
		if t == nil {
			t = foldTable()
		}
		var r rune
		n := 3
		if c0, c1, c2 := s[i], byte(0), byte(0); c0&0xF0 == 0xE0 && i+2 < len(s) {
			// A three-byte rune (CJK, most of what is not ASCII), decoded here as
			// decodeRune does, saves a call a rune.
			c1, c2 = s[i+1], s[i+2]
			r = rune(c0&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
			if c1&0xC0 != 0x80 || c2&0xC0 != 0x80 || r < 0x800 || 0xD800 <= r && r <= 0xDFFF {
				r, n = textutil.DecodeRuneInString(s[i:])
			}
		} else if c0-0xC2 <= 0xDF-0xC2 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			r, n = rune(c0&0x1F)<<6|rune(s[i+1]&0x3F), 2 // two bytes: Cyrillic, Greek, accented Latin
		} else {
			r, n = textutil.DecodeRuneInString(s[i:])
		}
		if n == 3 && uint32(r-foldKeptLo) <= uint32(foldKeptHi-foldKeptLo) {
			j := i + 3 // the run of CJK ideographs from i, which the fold keeps, copied at once
			for j+2 < len(s) && s[j]&0xF0 == 0xE0 && s[j+1]&0xC0 == 0x80 && s[j+2]&0xC0 == 0x80 &&
				uint32(rune(s[j]&0x0F)<<12|rune(s[j+1]&0x3F)<<6|rune(s[j+2]&0x3F)-foldKeptLo) <= uint32(foldKeptHi-foldKeptLo) {
				j += 3
			}
			dst, i = append(dst, s[i:j]...), j
			continue
		}
		if r >= runeClassSize || t[r] == 0 {
			long = true // also an invalid byte: U+FFFD of size 1 is not in the table
			break
		}
		if f := rune(t[r]); f != r {
			if classes == nil {
				classes = runeClasses()
			}
			if classes[f]&proseClasses != classes[r]&proseClasses {
				sameProse = false // ² and ① fold to a digit, which prose counts
			}
			dst = utf8.AppendRune(dst, f)
		} else if n == 3 { // most runes fold to themselves: their bytes are copied
			dst = append(dst, s[i], s[i+1], s[i+2])
		} else if n == 2 {
			dst = append(dst, s[i], s[i+1])
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	if long || nul && t != nil {
		return append(dst[:start], cases.Fold().String(norm.NFKC.String(s))...), false
	}
	return dst, sameProse
}

// lowerASCII8 is x, eight ASCII bytes (little-endian), with each of A-Z
// lower-cased. Below 0x80, adding 0x3F or 0x25 to a byte carries into no other:
// the sum's high bit says the byte is at least 'A', or past 'Z'.
func lowerASCII8(x uint64) uint64 {
	upper := (x + (0x80-'A')*lowBits) &^ (x + (0x80-'Z'-1)*lowBits) & highBits
	return x | upper>>2 // 0x80 >> 2 is 0x20, the case bit
}

// asciiFolded holds the bytes appendNormalized copies as they are: ASCII but A-Z, NUL.
var asciiFolded = func() (t [256]bool) {
	for c := 1; c < utf8.RuneSelf; c++ {
		t[c] = c < 'A' || c > 'Z'
	}
	return t
}()

// foldStable is normalize for text whose every rune is in the fold table (most
// Cyrillic, Greek, CJK and accented Latin text, full-width punctuation): runes that
// combine with nothing before them (canonical class 0, not composing backward) and
// that NFKC maps to one such rune are normalised each on its own, as no composition
// can join two of them (UAX #15), and their NFKC and case folding is one rune,
// looked up. ok is false when some rune is not in the table (or is an invalid byte):
// the caller takes the long way.
func foldStable(s string) (string, bool) {
	t := foldTable()
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if r >= runeClassSize || t[r] == 0 {
			return "", false // also an invalid byte: U+FFFD of size 1 is not in the table
		}
		b.WriteRune(rune(t[r]))
		i += n
	}
	return b.String(), true
}

var (
	foldOnce  sync.Once
	foldRunes *[runeClassSize]uint16
	// foldKeptLo and foldKeptHi bound the run of runes around U+4E00 that fold to
	// themselves (the CJK ideographs): appendNormalized copies a row of them at once.
	foldKeptLo, foldKeptHi rune
)

// freeStarter reports a rune (UTF-8 in b) that starts a segment for NFKC and cannot
// combine with the rune before it.
func freeStarter(b []byte) bool {
	p := norm.NFKC.Properties(b)
	return p.CCC() == 0 && p.BoundaryBefore()
}

// foldTable maps each rune of the Basic Multilingual Plane that foldStable may
// handle to its case folding, 0 for the others; built on first use, in reused buffers
// (a string a rune took each process some 25 ms of CPU more).
func foldTable() *[runeClassSize]uint16 {
	foldOnce.Do(func() {
		t := new([runeClassSize]uint16)
		fold := cases.Fold()
		var b, n, f []byte = nil, nil, make([]byte, 64) // a rune, its NFKC form, that folded
		for r := rune(1); r < runeClassSize; r++ {
			if r >= 0xD800 && r <= 0xDFFF {
				continue // surrogates are not runes of UTF-8 text
			}
			if b = utf8.AppendRune(b[:0], r); !freeStarter(b) {
				continue
			}
			n = norm.NFKC.Append(n[:0], b...) // full-width forms, ligatures, ...
			if _, size := utf8.DecodeRune(n); size != len(n) || !freeStarter(n) {
				continue
			}
			fold.Reset()
			m, _, err := fold.Transform(f, n, true)
			if c, size := utf8.DecodeRune(f[:m]); err == nil && size == m && c != 0 && c < runeClassSize && c != utf8.RuneError {
				t[r] = uint16(c)
			}
		}
		t[utf8.RuneError] = 0 // an invalid byte and U+FFFD read alike: leave both to the long way
		// The runes around U+4E00 the fold keeps, all of three bytes.
		foldKeptLo, foldKeptHi = 0x4E00, 0x4E00
		for ; foldKeptLo > 0x800 && t[foldKeptLo-1] == uint16(foldKeptLo-1); foldKeptLo-- {
		}
		for ; foldKeptHi < 0xD7FF && t[foldKeptHi+1] == uint16(foldKeptHi+1); foldKeptHi++ {
		}
		foldRunes = t
	})
	return foldRunes
}

// isUnspacedScript reports whether r belongs to a script written without spaces
// between words, where features are character bigrams.
func isUnspacedScript(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	if r < runeClassSize {
		return runeClasses()[r]&classUnspaced != 0
	}
	return textutil.UnspacedScript(r)
}

// isWordRune reports whether r is part of a word in a spaced script. Combining marks
// count so that Devanagari, Arabic or decomposed Latin words are not split.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if r < runeClassSize {
		return runeClasses()[r]&classWord != 0
	}
	return wordRune(r)
}

// wordRune is isWordRune by the Unicode tables; every rune of a page's text goes
// through isUnspacedScript and isWordRune several times (letters, features,
// digest), so the Basic Multilingual Plane's answers are kept in a table.
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r)
}

// storyWordRune reports whether r is part of a word as the story fingerprint reads
// it (storyFeatures.paragraph): fewer runes than isWordRune (no letter-like numbers,
// no spacing or enclosing marks).
func storyWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Rune classes of the table.
const (
	classUnspaced uint8 = 1 << iota
	classWord
	classStoryOdd // classWord, but no part of a word to the story (storyWordRune)
	classProse    // a letter or a digit (unicode.IsLetter, unicode.IsDigit): what prose counts as words
	classNumber   // unicode.IsNumber: what a number is made of (allDigits)

	// proseClasses are the classes prose tells runes apart by.
	proseClasses = classUnspaced | classProse

	runeClassSize = 0x10000 // the Basic Multilingual Plane
)

var (
	classOnce  sync.Once
	classTable *[runeClassSize]uint8
)

// runeClasses returns the class table, built on first use (a few milliseconds).
func runeClasses() *[runeClassSize]uint8 {
	classOnce.Do(func() {
		t := new([runeClassSize]uint8)
		for r := rune(0); r < runeClassSize; r++ {
			if textutil.UnspacedScript(r) {
				t[r] |= classUnspaced
			}
			if r >= utf8.RuneSelf && wordRune(r) || r < utf8.RuneSelf && isWordRune(r) {
				t[r] |= classWord
				if !storyWordRune(r) {
					t[r] |= classStoryOdd
				}
			}
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				t[r] |= classProse
			}
			if unicode.IsNumber(r) {
				t[r] |= classNumber
			}
		}
		classTable = t
	})
	return classTable
}

// add appends the features of one block of normalised text, all with weight. With
// maskNumbers every all-digit word reads as "#": in the short lines beside an article
// the numbers are clocks and counters (see mainBlocks).
func (fs *featureSet) add(text string, weight int, maskNumbers bool) {
	sh := fs.shingler(weight, maskNumbers)
	for _, r := range text {
		sh.step(r, classOf(r))
	}
	sh.end()
}
