package page

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/mfonda/simhash"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/bitvote"
	"github.com/crawlconsole/crawlconsole/engine/page/internal/xxshort"
)

// The story fingerprint as a third machine of Sign's walk over the normalised body
// (signText): the shingler already cuts the body into the words the story reads and
// hashes most of the word pairs the story votes with. A story feature is the hash of
// "previous-word word" with numbers left out, a SimHash feature the same pair with a
// number read as "#": where no number, unspaced character or rune the two read
// differently stands between two words, the shingler's hash is the story's and is
// not computed again. The result is storyFingerprint's, bit for bit
// (TestStoryWalkIsStoryFingerprint): a paragraph that holds a rune the two
// tokenizers read differently, or that opens with a dateline, is read the old way.

// storyWalk is the story's machine: the features of the current line, and the vote
// of the lines done.
type storyWalk struct {
	feats      []uint64
	prev, buf  []byte
	havePrev   bool
	prevShared bool // prev is the shingler's previous word in its chain: its pair hash is ours
	odd        bool // the line holds a rune the story reads otherwise (kindWordOdd, kindInvalid)
	words      int  // words of the line the shingler ended (word, number)

	raw       string // the rest of the body as extracted: its lines are the walk's lines, folded
	sameProse bool   // raw's prose is the folded text's, rune for rune (appendNormalized)
	v         simhash.Vector
	n         int // features voted
	sf        *storyFeatures
	fp        uint64 // the fingerprint, once the last line is voted
	fpOK      bool
}

// start readies the machine for a body whose extracted text is raw; sameProse is
// appendNormalized's word on it.
func (st *storyWalk) start(raw string, sameProse bool) {
	st.feats, st.prev, st.havePrev, st.prevShared, st.odd, st.words = st.feats[:0], st.prev[:0], false, false, false, 0
	st.raw, st.sameProse, st.v, st.n, st.fp, st.fpOK = raw, sameProse, simhash.Vector{}, 0, 0, false
}

// fingerprint is the story fingerprint of the lines voted, once the walk is done.
func (st *storyWalk) fingerprint() (fp uint64, ok bool) { return st.fp, st.fpOK }

// word reads a word the shingler ended, not masked: h is the hash of the shingler's
// pair ending with it when paired.
func (st *storyWalk) word(w []byte, h uint64, paired bool) {
	st.words++
	if st.havePrev {
		if paired && st.prevShared {
			st.feats = append(st.feats, h)
		} else {
			st.pair(w)
		}
	}
	st.prev, st.havePrev, st.prevShared = append(st.prev[:0], w...), true, true
}

// number reads a word the shingler masked as a number: an ASCII number is left out
// of the story, another script's digits are a word of it.
func (st *storyWalk) number(w []byte) {
	st.words++
	st.prevShared = false
	if !asciiDigits(w) {
		st.own(w)
	}
}

// unspaced reads a character of an unspaced script, a word of its own to the story
// (the shingler pairs characters without a space, and not across a word).
func (st *storyWalk) unspaced(c []byte) {
	st.prevShared = false
	st.own(c)
}

// unspacedString is unspaced of a character held in a string.
func (st *storyWalk) unspacedString(c string) {
	st.prevShared = false
	if st.havePrev {
		if len(st.prev) == 3 && len(c) == 3 {
			st.feats = append(st.feats, xxshort.Spaced33(st.prev, c))
		} else {
			st.buf = append(appendShort(st.buf[:0], st.prev), ' ')
			st.buf = appendShort(st.buf, c)
			st.feats = append(st.feats, xxhash.Sum64(st.buf))
		}
	}
	st.prev, st.havePrev = appendShort(st.prev[:0], c), true
}

// appendShort is append(dst, s...) with a character of three bytes (most
// unspaced text) copied byte by byte: a memmove call costs more than the copy.
func appendShort[T string | []byte](dst []byte, s T) []byte {
	if len(s) == 3 {
		return append(dst, s[0], s[1], s[2])
	}
	return append(dst, s...)
}

// own reads a word whose pair with the previous one the shingler did not hash.
func (st *storyWalk) own(w []byte) {
	if st.havePrev {
		st.pair(w)
	}
	st.prev, st.havePrev = append(st.prev[:0], w...), true
}

// pair adds the feature of the previous word and w.
func (st *storyWalk) pair(w []byte) {
	st.buf = append(append(append(st.buf[:0], st.prev...), ' '), w...)
	st.feats = append(st.feats, xxhash.Sum64(st.buf))
}

// lineEnd votes the line that ended, norm being its folded text, as storyFingerprint
// does, and readies the machine for the next; it reports false once the features
// are all voted (MaxStoryFeatures), when nothing more need be read. The walk gives
// the line's characters of unspaced scripts, and proseOdd when one of its words
// holds a rune that is no letter nor digit; last is the body's last line. Once the
// last line, or the last feature, is voted, the fingerprint is made.
func (st *storyWalk) lineEnd(norm string, unspaced int, proseOdd, last bool) bool {
	para := st.raw
	if i := strings.IndexByte(st.raw, '\n'); i >= 0 {
		para, st.raw = st.raw[:i], st.raw[i+1:]
	} else {
		st.raw = ""
	}
	feats := st.feats
	// prose(para) from what the walk counted, without reading the line again:
	// prose's words are the runs of letters and digits and its other runes its
	// characters of unspaced scripts, and so are the shingler's words and the
	// walk's unspaced characters on the folded line when no word holds another
	// rune (proseOdd) and the fold kept every rune's class (sameProse; an ASCII
	// line is only lower-cased).
	var words int
	switch {
	case st.sameProse && !proseOdd:
		words = min(st.words+unspaced/2, maxParagraphWeight)
	case asciiOnly(para):
		words = min(st.words, maxParagraphWeight)
	default:
		words = prose(para)
	}
	if words >= minParagraphWords {
		if st.odd || len(stripDateline(para)) != len(para) {
			if st.sf == nil {
				st.sf = storyScratch.Get().(*storyFeatures) // given back with the feature set
			}
			feats = st.sf.paragraph(foldedProse(para, norm))
		}
		st.n = voteParagraph(&st.v, feats, words, st.n, MaxStoryFeatures)
	}
	st.feats, st.havePrev, st.prevShared, st.odd, st.words = st.feats[:0], false, false, false, 0
	more := st.n < MaxStoryFeatures
	if (last || !more) && st.n > 0 {
		st.fp, st.fpOK = simhash.Fingerprint(st.v), true
	}
	return more
}

// voteParagraph adds to v the vote of a paragraph of prose of the given size in
// words, whose features are feats, n features having been voted before it; it
// returns the features voted, at most maxFeats.
func voteParagraph(v *simhash.Vector, feats []uint64, words, n, maxFeats int) int {
	// A paragraph's features weigh by the square of its length: the article's
	// prose outweighs the newsletter pitch or the credits line an extractor let
	// through (on the benchmark, 0.895 of truth-text copies grouped against
	// 0.873 weighing by length).
	w := min(words, maxParagraphWeight)
	w *= w
	if n+len(feats) > maxFeats {
		feats = feats[:maxFeats-n]
	}
	// Each feature votes +w on its set bits and -w on the others: the paragraph's
	// vote on a bit is w·(2·ones − features).
	var ones [64]int
	bitvote.Count(feats, &ones)
	for bit := range 64 {
		v[bit] += w * (2*ones[bit] - len(feats))
	}
	return n + len(feats)
}

// asciiOnly reports whether s is all ASCII, eight bytes at a time.
func asciiOnly(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
