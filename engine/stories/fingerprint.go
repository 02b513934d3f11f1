package stories

import (
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
// decide (a long article has a few thousand).
const maxStoryFeatures = 20000

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
		for _, r := range para {
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
		for _, f := range paraFeats {
			for bit := range 64 {
				if f&(1<<bit) != 0 {
					v[bit] += w
				} else {
					v[bit] -= w
				}
			}
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
	for _, r := range p {
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
func fold(s string) string { return cases.Fold().String(norm.NFKC.String(s)) }

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
