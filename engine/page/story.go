package page

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/mfonda/simhash"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// The story fingerprint (engine/stories groups pages by it). The page fingerprint
// (Signature.SimHash) answers "did this page change": it reads the headline and
// every line of the article. A story is the same article republished, and what
// changes between two outlets' copies is exactly what that fingerprint reads most:
// the headline (desks rewrite it), the short lines in and around the article
// (bylines, datelines, "Published ..." lines, "Advertisement", captions) and what
// each outlet's template leaks into the extracted text. The story fingerprint
// reads only the body's long paragraphs, the article's prose, which syndication
// leaves alone.
//
// Features are word pairs in spaced scripts and character pairs in unspaced ones
// (Chinese, Japanese, Thai: IsUnspacedScript), after NFKC and case folding, with
// numbers dropped (a copy's figures get reformatted). mfonda/simhash's own
// tokenizer splits on ASCII only, so the features are made here, hashed with
// xxhash and voted, weighted, into a simhash.Vector that its Fingerprint folds.
//
// Sign computes it with the signature, from the body it has normalised already
// (textSignature), so a fetched article's text is folded once for both.

// minParagraphWords is the size of a paragraph of prose (two characters of an
// unspaced script count as a word): shorter lines are bylines, datelines,
// captions, ad labels and the like.
const minParagraphWords = 12

// MaxStoryFeatures bounds the work on a huge page: the first this many features
// decide (a long article has a few thousand; a syndicated copy keeps its opening
// paragraphs, where the first 4,000 word pairs are).
const MaxStoryFeatures = 4000

// StoryFingerprint returns the story fingerprint of an article: its main text's
// Body, one paragraph a line (Text). ok is false when the body has no paragraph of
// prose (a listing, a gallery, a form: nobody's story) or the text is the visible
// text of a page with no article (Text.Fallback). When Sign has just read the same
// text, the fingerprint it computed with the signature is returned.
func StoryFingerprint(t Text) (fp uint64, ok bool) {
	if t.Fallback {
		return 0, false
	}
	if s, hit := recent.get(textKey(t)); hit && s.storyDone {
		return s.story, s.storyOK
	}
	return storyFingerprint(t.Body, "", MaxStoryFeatures)
}

// storyFingerprint is the story fingerprint of a body of at most maxFeats features.
// norm is normalize(body) when the caller has it ("" when not): its lines are the
// body's lines folded, so a paragraph of prose is not folded again.
func storyFingerprint(body, norm string, maxFeats int) (fp uint64, ok bool) {
	if norm != "" && strings.Count(norm, "\n") != strings.Count(body, "\n") {
		norm = "" // not line for line (it always is: NFKC and folding keep line breaks)
	}
	var v simhash.Vector
	sf := storyScratch.Get().(*storyFeatures)
	defer sf.release()
	n := 0
	for len(body) > 0 && n < maxFeats {
		para, normPara := body, norm
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			para, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if norm != "" {
			if i := strings.IndexByte(norm, '\n'); i >= 0 {
				normPara, norm = norm[:i], norm[i+1:]
			} else {
				norm = ""
			}
		}
		words := prose(para)
		if words < minParagraphWords {
			continue
		}
		n = voteParagraph(&v, sf.paragraph(foldedProse(para, normPara)), words, n, maxFeats)
	}
	if n == 0 {
		return 0, false
	}
	return simhash.Fingerprint(v), true
}

// foldedProse is a paragraph of prose as its features are read: its datelines
// stripped, then normalised. normPara, when not "", is normalize(para).
func foldedProse(para, normPara string) string {
	rest := stripDateline(para)
	if normPara == "" {
		return normalize(rest)
	}
	if len(rest) == len(para) {
		return normPara
	}
	// The dateline ends before an ASCII character (white space was trimmed after a
	// dash or colon): nothing composes across it, so the normalised paragraph is
	// the normalised dateline followed by the normalised rest.
	if rest != "" && rest[0] < utf8.RuneSelf {
		if head := normalize(para[:len(para)-len(rest)]); strings.HasPrefix(normPara, head) {
			return normPara[len(head):]
		}
	}
	return normalize(rest)
}

// storyFeatures is the scratch of one fingerprint: the current paragraph's
// features and the tokens it pairs.
type storyFeatures struct {
	feats          []uint64
	prev, tok, buf []byte
	havePrev       bool
}

// storyScratch recycles the fingerprints' scratch: every article a crawl stores is
// fingerprinted.
var storyScratch = sync.Pool{New: func() any { return new(storyFeatures) }}

// release gives the scratch back, unless a giant paragraph made it too big to keep.
func (sf *storyFeatures) release() {
	if cap(sf.feats) > 1<<14 || cap(sf.prev) > 1<<12 || cap(sf.tok) > 1<<12 || cap(sf.buf) > 1<<13 {
		return
	}
	storyScratch.Put(sf)
}

// paragraph returns the features of a folded paragraph (valid until the next call):
// the hashes of its consecutive word pairs, numbers left out.
func (sf *storyFeatures) paragraph(para string) []uint64 {
	sf.feats, sf.prev, sf.tok, sf.havePrev = sf.feats[:0], sf.prev[:0], sf.tok[:0], false
	for i := 0; i < len(para); {
		if c := para[i]; c < utf8.RuneSelf { // the common case, without the Unicode tables
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
				sf.tok = append(sf.tok, c)
			} else {
				sf.emit()
			}
			i++
			continue
		}
		r, size := textutil.DecodeRuneInString(para[i:])
		i += size
		switch {
		case isUnspacedScript(r):
			sf.emit()
			sf.tok = utf8.AppendRune(sf.tok, r)
			sf.emit()
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			sf.tok = utf8.AppendRune(sf.tok, r)
		default:
			sf.emit()
		}
	}
	sf.emit()
	return sf.feats
}

// emit ends the current token: a number is dropped, a word pairs with the one
// before it.
func (sf *storyFeatures) emit() {
	if len(sf.tok) == 0 {
		return
	}
	if asciiDigits(sf.tok) {
		sf.tok = sf.tok[:0]
		return
	}
	if sf.havePrev {
		sf.buf = append(append(append(sf.buf[:0], sf.prev...), ' '), sf.tok...)
		sf.feats = append(sf.feats, xxhash.Sum64(sf.buf))
	}
	sf.prev, sf.havePrev = append(sf.prev[:0], sf.tok...), true
	sf.tok = sf.tok[:0]
}

// maxParagraphWeight caps a paragraph's length in words where it weighs its
// features (by the square: a 60-word paragraph of prose counts nine times a
// 20-word credits line per feature).
const maxParagraphWeight = 80

// prose returns the size of a paragraph in words, counting two characters of an
// unspaced script as one, up to maxParagraphWeight: past it a paragraph weighs the
// same (voteParagraph), so the rest of a long one is not read.
func prose(p string) int {
	words, unspaced, inWord := 0, 0, false
	table := runeClasses()
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if asciiWord[c] { // an ASCII letter or digit
				if !inWord {
					if words++; words+unspaced/2 >= maxParagraphWeight {
						return words + unspaced/2
					}
				}
				inWord = true
				// the rest of the word's ASCII letters and digits change nothing
				for i++; i < len(p) && asciiWordByte[p[i]]; i++ {
				}
				continue
			}
			inWord = false
			i++
			continue
		}
		// textutil.DecodeRuneInString, its three-byte form (CJK) written out.
		var r rune
		size := 0
		if i+2 < len(p) {
			if c1, c2 := p[i+1], p[i+2]; c&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c != 0xE0 || c1 >= 0xA0) && (c != 0xED || c1 < 0xA0) {
				r, size = rune(c&0x0F)<<12|rune(c1&0x3F)<<6|rune(c2&0x3F), 3
			}
		}
		if size == 0 {
			r, size = textutil.DecodeRuneInString(p[i:])
		}
		i += size
		cl := uint8(0)
		if r < runeClassSize {
			cl = table[r]
		} else {
			if isUnspacedScript(r) {
				cl |= classUnspaced
			}
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				cl |= classProse
			}
		}
		switch {
		case cl&classUnspaced != 0:
			if unspaced++; words+unspaced/2 >= maxParagraphWeight {
				return words + unspaced/2
			}
			inWord = false
		case cl&classProse != 0:
			if !inWord {
				if words++; words+unspaced/2 >= maxParagraphWeight {
					return words + unspaced/2
				}
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

// asciiDigits reports whether a token is a number (the tokenizer keeps digits of
// other scripts in words).
func asciiDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
