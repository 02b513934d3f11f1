package stories

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/mfonda/simhash"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// The story fingerprint. The page fingerprint (page.Signature.SimHash) answers "did
// this page change": it reads the headline and every line of the article. A story
// is the same article republished, and what changes between two outlets' copies is
// exactly what that fingerprint reads most: the headline (desks rewrite it), the
// short lines in and around the article (bylines, datelines, "Published ..." lines,
// "Advertisement", captions) and what each outlet's template leaks into the
// extracted text. The story fingerprint reads only the body's long paragraphs,
// the article's prose, which syndication leaves alone.
//
// Features are word pairs in spaced scripts and character pairs in unspaced ones
// (Chinese, Japanese, Thai: page.IsUnspacedScript), after NFKC and case folding,
// with numbers dropped (a copy's figures get reformatted). mfonda/simhash's own
// tokenizer splits on ASCII only, so the features are made here, hashed with
// xxhash and voted, weighted, into a simhash.Vector that its Fingerprint folds.

// minParagraphWords is the size of a paragraph of prose (two characters of an
// unspaced script count as a word): shorter lines are bylines, datelines,
// captions, ad labels and the like.
const minParagraphWords = 12

// maxStoryFeatures bounds the work on a huge page: the first this many features
// decide (a long article has a few thousand; a syndicated copy keeps its
// opening paragraphs, where the first 4,000 word pairs are).
const maxStoryFeatures = 4000

// Fingerprint returns the story fingerprint of an article: its main text's Body,
// one paragraph a line (page.Text). ok is false when the body has no paragraph of
// prose: a listing, a gallery, a form, which are nobody's story.
func Fingerprint(t page.Text) (fp uint64, ok bool) {
	return fingerprint(t, maxStoryFeatures)
}

func fingerprint(t page.Text, maxFeats int) (fp uint64, ok bool) {
	if t.Fallback {
		return 0, false
	}
	var v simhash.Vector
	var prev, pair, tok []byte
	var paraFeats []uint64
	n := 0
	body := t.Body
	for len(body) > 0 && n < maxFeats {
		para := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			para, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		words := prose(para)
		if words < minParagraphWords {
			continue
		}
		para = fold(stripDateline(para))
		prev, paraFeats = prev[:0], paraFeats[:0]
		havePrev := false
		emit := func() {
			if len(tok) == 0 {
				return
			}
			if allDigits(tok) {
				tok = tok[:0]
				return
			}
			if havePrev {
				pair = append(append(append(pair[:0], prev...), ' '), tok...)
				paraFeats = append(paraFeats, xxhash.Sum64(pair))
			}
			prev, havePrev = append(prev[:0], tok...), true
			tok = tok[:0]
		}
		for i := 0; i < len(para); {
			if c := para[i]; c < utf8.RuneSelf { // the common case, without the Unicode tables
				if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
					tok = append(tok, c)
				} else {
					emit()
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(para[i:])
			i += size
			switch {
			case page.IsUnspacedScript(r):
				emit()
				tok = utf8.AppendRune(tok, r)
				emit()
			case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
				tok = utf8.AppendRune(tok, r)
			default:
				emit()
			}
		}
		emit()
		// A paragraph's features weigh by the square of its length: the article's
		// prose outweighs the newsletter pitch or the credits line an extractor let
		// through (on the benchmark, 0.895 of truth-text copies grouped against
		// 0.873 weighing by length).
		w := min(words, maxParagraphWeight)
		w *= w
		if n+len(paraFeats) > maxFeats {
			paraFeats = paraFeats[:maxFeats-n]
		}
		// Each feature votes +w on its set bits and -w on the others: the paragraph's
		// vote on a bit is w·(2·ones − features).
		var ones [64]int
		for _, f := range paraFeats {
			for ; f != 0; f &= f - 1 {
				ones[bits.TrailingZeros64(f)]++
			}
		}
		for bit := range 64 {
			v[bit] += w * (2*ones[bit] - len(paraFeats))
		}
		n += len(paraFeats)
	}
	if n == 0 {
		return 0, false
	}
	return simhash.Fingerprint(v), true
}

// maxParagraphWeight caps a paragraph's length in words where it weighs its
// features (by the square: a 60-word paragraph of prose counts nine times a
// 20-word credits line per feature).
const maxParagraphWeight = 80

// prose returns the size of a paragraph in words, counting two characters of an
// unspaced script as one.
func prose(p string) int {
	words, unspaced, inWord := 0, 0, false
	for i := 0; i < len(p); {
		if c := p[i]; c < utf8.RuneSelf {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				if !inWord {
					words++
				}
				inWord = true
			} else {
				inWord = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch {
		case page.IsUnspacedScript(r):
			unspaced++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return words + unspaced/2
}

// stripDateline drops the datelines that open a paragraph: "WASHINGTON (AP) — ",
// "BEIJING: ", "SAN FRANCISCO - ": up to a dash or colon within the first
// maxDateline bytes, with no lower-case letter before it. Each outlet writes its
// own, so they are no part of the story.
func stripDateline(p string) string {
	for range 3 { // "BEIJING — VIENNA — ...": a syndicator's before the wire's
		cut := -1
		for i, r := range p {
			if i > maxDateline {
				break
			}
			if r == '—' || r == '–' || r == ':' || r == '-' && i > 0 && p[i-1] == ' ' {
				cut = i + utf8.RuneLen(r)
				break
			}
			if unicode.IsLower(r) {
				break
			}
		}
		if cut <= 1 || !hasUpper(p[:cut]) {
			return p
		}
		p = strings.TrimLeft(p[cut:], " ")
	}
	return p
}

// maxDateline is the longest dateline, in bytes: a city and an agency.
const maxDateline = 48

func hasUpper(s string) bool { return strings.IndexFunc(s, unicode.IsUpper) >= 0 }

// fold is NFKC then case folding, as page's normalisation. (A Caser keeps state:
// one per call.)
// ASCII is its own NFKC form and folds to lower case: most prose takes that path,
// without the normalisation tables.
func fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return cases.Fold().String(norm.NFKC.String(s))
		}
	}
	return strings.ToLower(s)
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
