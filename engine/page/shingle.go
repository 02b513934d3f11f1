package page

import (
	"math/bits"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/mfonda/simhash"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"github.com/crawlconsole/crawlconsole/engine/page/internal/xxshort"
)

// The two readings of a normalised main text, SimHash features (features.go) and
// the masked digest (signature.go), as rune-at-a-time machines, so that Sign walks
// the text once for both (signText) and classifies each rune once.

// Rune kinds for the machines (classOf).
const (
	kindOther    = iota // space, punctuation, symbols
	kindWord            // part of a word of a spaced script (isWordRune)
	kindUnspaced        // a character of an unspaced script (isUnspacedScript)
	kindInvalid         // utf8.RuneError: a stray invalid byte
	kindWordOdd         // part of a word that the story fingerprint reads as no letter (storyWordRune)
)

// asciiWord holds the ASCII bytes of kind kindWord.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range rune(utf8.RuneSelf) {
		t[c] = classOf(c) == kindWord
	}
	return t
}()

// asciiWordByte is asciiWord over every byte value (false past ASCII), for loops
// that read bytes without checking them against utf8.RuneSelf first.
var asciiWordByte = func() (t [256]bool) {
	copy(t[:], asciiWord[:])
	return t
}()

// classOf is the kind of a rune.
func classOf(r rune) uint8 {
	switch {
	case r < utf8.RuneSelf:
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return kindWord
		}
		return kindOther
	case r == utf8.RuneError:
		return kindInvalid
	case r < runeClassSize:
		switch c := runeClasses()[r]; {
		case c&classUnspaced != 0:
			return kindUnspaced
		case c&classWord == 0:
			return kindOther
		case c&classStoryOdd != 0:
			return kindWordOdd
		}
		return kindWord
	case isUnspacedScript(r):
		return kindUnspaced
	case isWordRune(r):
		if !storyWordRune(r) {
			return kindWordOdd
		}
		return kindWord
	}
	return kindOther
}

// shingler turns one block of text into features: word 2-shingles in spaced
// scripts, character bigrams in unspaced ones, a lone word or character as a
// unigram (see features.go). Its buffers live in the feature set and are reused.
type shingler struct {
	fs          *featureSet
	weight      int
	maskNumbers bool
	buf         []byte // scratch for the bytes of one feature
	prevWord    []byte // previous word of the current chain (valid when chainLen > 0)
	word        []byte // word being read
	chainLen    int    // words in the current chain
	prevCJK     rune   // previous rune of the current unspaced run, -1 if none
	prevEnd     int    // where prevCJK ends in the text unspacedAt reads, -1 if it was not read there
	runLen      int
	story       *storyWalk // the story fingerprint's machine, fed the words (nil: none)
	// text is the text the walk reads, and wordAt and prevAt where in it the word
	// and the previous word stand when each is one run of ASCII copied from it (-1
	// otherwise): a pair of such words one space apart is hashed where it stands.
	text           string
	wordAt, prevAt int
}

// shingler starts a block of features of one weight.
func (fs *featureSet) shingler(weight int, maskNumbers bool) *shingler {
	if weight != 1 {
		fs.mixed = true
	}
	sh := &fs.sh
	sh.fs, sh.weight, sh.maskNumbers, sh.story = fs, weight, maskNumbers, nil
	sh.word, sh.chainLen, sh.prevCJK, sh.prevEnd, sh.runLen = sh.word[:0], 0, -1, -1, 0
	sh.text, sh.wordAt, sh.prevAt = "", -1, -1
	return sh
}

// emit adds the feature of b and returns its hash.
func (sh *shingler) emit(b []byte) uint64 {
	sum := xxhash.Sum64(b)
	if len(sh.fs.store) < maxFeatures {
		sh.fs.store = append(sh.fs.store, feature{sum: sum, weight: sh.weight})
	}
	return sum
}

// step reads one rune of kind k.
func (sh *shingler) step(r rune, k uint8) {
	switch k {
	case kindInvalid:
		// A stray invalid byte is not text: skip it without breaking the word or
		// the run it fell into, so the same page with its bad bytes elsewhere
		// (they move with the boilerplate) keeps its features.
		if sh.story != nil {
			sh.story.odd = true // the story breaks its word there
		}
		sh.wordAt = -1 // the word's bytes are no longer one run of the text
	case kindUnspaced:
		if sh.runLen == 0 {
			// An unspaced run interrupts the word chain on both sides.
			sh.endChain()
		}
		if sh.prevCJK >= 0 {
			sh.buf = utf8.AppendRune(utf8.AppendRune(sh.buf[:0], sh.prevCJK), r)
			sh.emit(sh.buf)
		}
		sh.prevCJK, sh.prevEnd = r, -1
		sh.runLen++
		if sh.story != nil {
			sh.buf = utf8.AppendRune(sh.buf[:0], r)
			sh.story.unspaced(sh.buf)
		}
	case kindWord:
		if sh.runLen > 0 {
			sh.endRun()
		}
		sh.word, sh.wordAt = utf8.AppendRune(sh.word, r), -1
	case kindWordOdd:
		if sh.runLen > 0 {
			sh.endRun()
		}
		sh.word, sh.wordAt = utf8.AppendRune(sh.word, r), -1
		if sh.story != nil {
			sh.story.odd = true
		}
	default:
		sh.endWord()
		if sh.runLen > 0 {
			sh.endRun()
		}
	}
}

// unspacedAt is step(r, kindUnspaced) for the rune r that text holds at [i, j):
// the character pair of a run read from one text is hashed where it stands, and
// the story reads the character from the text, not from a copy (most of an
// unspaced page's walk is here).
func (sh *shingler) unspacedAt(text string, i, j int, r rune) {
	if sh.runLen == 0 {
		sh.endChain()
	}
	if sh.prevCJK >= 0 {
		if sh.prevEnd == i {
			if n := utf8.RuneLen(sh.prevCJK); n == 3 && j-i == 3 {
				sh.emitSum(xxshort.Pair33(text[i-3:i], text[i:j]))
			} else {
				sh.emitString(text[i-n : j])
			}
		} else {
			sh.buf = utf8.AppendRune(utf8.AppendRune(sh.buf[:0], sh.prevCJK), r)
			sh.emit(sh.buf)
		}
	}
	sh.prevCJK, sh.prevEnd = r, j
	sh.runLen++
	if sh.story != nil {
		sh.story.unspacedString(text[i:j])
	}
}

// emitString is emit of a feature's bytes held in a string.
func (sh *shingler) emitString(s string) {
	if len(sh.fs.store) < maxFeatures {
		sh.fs.store = append(sh.fs.store, feature{sum: xxhash.Sum64String(s), weight: sh.weight})
	}
}

// emitSum is emit of a feature whose hash is sum.
func (sh *shingler) emitSum(sum uint64) {
	if len(sh.fs.store) < maxFeatures {
		sh.fs.store = append(sh.fs.store, feature{sum: sum, weight: sh.weight})
	}
}

// end closes the block.
func (sh *shingler) end() {
	sh.endChain()
	if sh.runLen > 0 {
		sh.endRun()
	}
}

func (sh *shingler) endWord() {
	if len(sh.word) == 0 {
		return
	}
	// (a word opening with an ASCII byte other than a digit, most words, is no
	// number: the call is spared)
	c := sh.word[0]
	masked := sh.maskNumbers && (c >= utf8.RuneSelf || '0' <= c && c <= '9') && allDigits(sh.word)
	if masked {
		if sh.story != nil {
			sh.story.number(sh.word)
		}
		sh.word, sh.wordAt = append(sh.word[:0], '#'), -1
	}
	var h uint64
	if sh.chainLen > 0 {
		if at := sh.wordAt; sh.prevAt >= 0 && at >= 0 && sh.prevAt+len(sh.prevWord)+1 == at && sh.text[at-1] == ' ' {
			// "previous word", as the text has it: the pair's bytes, not copied
			h = xxhash.Sum64String(sh.text[sh.prevAt : at+len(sh.word)])
			if len(sh.fs.store) < maxFeatures {
				sh.fs.store = append(sh.fs.store, feature{sum: h, weight: sh.weight})
			}
		} else {
			sh.buf = append(append(append(sh.buf[:0], sh.prevWord...), ' '), sh.word...)
			h = sh.emit(sh.buf)
		}
	}
	if sh.story != nil && !masked {
		sh.story.word(sh.word, h, sh.chainLen > 0)
	}
	sh.prevWord, sh.word = sh.word, sh.prevWord[:0] // the word is the previous one now: no copy
	sh.prevAt, sh.wordAt = sh.wordAt, -1
	sh.chainLen++
}

func (sh *shingler) endChain() {
	sh.endWord()
	if sh.chainLen == 1 {
		sh.emit(sh.prevWord)
	}
	sh.chainLen = 0
}

func (sh *shingler) endRun() {
	if sh.runLen == 1 {
		sh.buf = utf8.AppendRune(sh.buf[:0], sh.prevCJK)
		sh.emit(sh.buf)
	}
	sh.prevCJK, sh.prevEnd, sh.runLen = -1, -1, 0
}

// digester is maskedDigest as a machine: the tokens of a text (words of spaced
// scripts, single characters of unspaced ones) with numbers, the time units after
// them and month and day names masked, gathered into one buffer and hashed once.
type digester struct {
	text        string
	out         []byte // the masked tokens, each ended by a 0 byte
	start       int    // start of the word being read in text, -1 if none
	afterNumber bool
	n           int // tokens emitted
}

// reset starts the digest of text, keeping the buffer.
func (d *digester) reset(text string) {
	d.text, d.out, d.start, d.afterNumber, d.n = text, d.out[:0], -1, false, 0
}

// step reads the rune of kind k at byte i of the text.
func (d *digester) step(i int, r rune, k uint8) {
	switch k {
	case kindUnspaced:
		d.endWord(i)
		d.token(d.text[i : i+utf8.RuneLen(r)])
	case kindWord, kindWordOdd:
		if d.start < 0 {
			d.start = i
		}
	default:
		d.endWord(i)
	}
}

func (d *digester) endWord(i int) {
	if d.start >= 0 {
		d.token(d.text[d.start:i])
		d.start = -1
	}
}

// sum ends the text and returns its digest, 0 for a text without tokens.
func (d *digester) sum() uint64 {
	d.endWord(len(d.text))
	if d.n == 0 {
		return 0
	}
	return xxhash.Sum64(d.out)
}

func (d *digester) emit(tok string) {
	if len(tok) == 3 {
		// A character of most unspaced scripts (and "the"): stored byte by byte,
		// as a memmove call costs more than the copy.
		d.out = append(d.out, tok[0], tok[1], tok[2], 0)
	} else {
		d.out = append(append(d.out, tok...), 0)
	}
	d.n++
}

func (d *digester) token(tok string) {
	switch {
	case isNumberToken(tok):
		if !d.afterNumber {
			d.emit("#")
		}
		d.afterNumber = true
	case d.afterNumber && timeUnits[tok]:
		// "5 minutes ago", "3分钟前": the unit goes with its number
	case monthCandidate(tok) && monthNames[tok]:
		d.emit("#")
		d.afterNumber = true
	default:
		d.afterNumber = false
		d.emit(tok)
	}
}

// signText returns the SimHash of a normalised headline and body (each paragraph,
// one a line, a block of weight 1, numbers masked: normalizedSimhash) and their
// masked digests (maskedDigest), walking each text once.
func signText(title, body string) (s textSums, ok bool) {
	fs := getFeatureSet()
	defer putFeatureSet(fs)
	return fs.signWalk(title, body, "", false, false)
}

// signWalk is signText in fs; with story, the walk also makes the story fingerprint
// of the body (storyFingerprint), raw being the body before it was normalised and
// sameProse appendNormalized's word on it.
func (fs *featureSet) signWalk(title, body, raw string, story, sameProse bool) (s textSums, ok bool) {
	// The story's machine is readied before the shingler that feeds it runs (its
	// title has no story), so that the walk goes into it at the start, with the
	// shingler's words and at each line's end, and nowhere else.
	var st *storyWalk
	if story && strings.Count(body, "\n") == strings.Count(raw, "\n") {
		// (NFKC and folding keep line breaks: the lines are the same lines)
		st = &fs.st
		st.start(raw, sameProse)
	}
	walked := st != nil
	d := &fs.dg
	d.reset(title)
	if title != "" {
		sh := fs.shingler(1, true)
		for i, r := range title {
			k := classOf(r)
			sh.step(r, k)
			d.step(i, r, k)
		}
		sh.end()
	}
	s.title = d.sum()
	d.reset(body)
	sh := fs.shingler(1, true)
	sh.story, sh.text = st, body
	line := 0                       // where the line being read starts
	var table *[runeClassSize]uint8 // the rune classes, from the first rune past ASCII
	// The line's prose as the story weighs it (prose), counted here: its words are
	// the shingler's words unless a rune of one is no letter nor digit (proseOdd),
	// and its characters of unspaced scripts are these.
	unspaced, proseOdd := 0, false
	for i := 0; i < len(body); {
		c := body[i]
		if c >= utf8.RuneSelf {
			// textutil.DecodeRuneInString and classOf of a rune of the Basic
			// Multilingual Plane, written out: every character past ASCII comes here.
			var r rune
			n := 0
			if i+2 < len(body) {
				if c1, c2 := body[i+1], body[i+2]; c&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c != 0xE0 || c1 >= 0xA0) && (c != 0xED || c1 < 0xA0) {
					r, n = rune(c&0x0F)<<12|rune(c1&0x3F)<<6|rune(c2&0x3F), 3
				}
			}
			if n == 0 && c-0xC2 <= 0xDF-0xC2 && i+1 < len(body) && body[i+1]&0xC0 == 0x80 {
				r, n = rune(c&0x1F)<<6|rune(body[i+1]&0x3F), 2
			}
			if n == 0 {
				r, n = textutil.DecodeRuneInString(body[i:])
			}
			var k uint8
			if r < runeClassSize && r != utf8.RuneError {
				if table == nil {
					table = runeClasses()
				}
				switch cl := table[r]; {
				case cl&classUnspaced != 0:
					k = kindUnspaced
				case cl&classWord == 0:
					k = kindOther
				case cl&classStoryOdd != 0:
					k, proseOdd = kindWordOdd, true
				default:
					k = kindWord
					proseOdd = proseOdd || cl&classProse == 0 // a mark: prose ends a word there
				}
			} else {
				k, proseOdd = classOf(r), true
			}
			if k == kindUnspaced {
				unspaced++
				// sh.step and d.step of a character of an unspaced script, read
				// where it stands (a rune of this kind is valid: its n bytes are
				// utf8.RuneLen(r))
				sh.unspacedAt(body, i, i+n, r)
				d.endWord(i)
				if d.afterNumber {
					d.token(body[i : i+n])
				} else {
					d.emit(body[i : i+n]) // token's: a character past ASCII is no number nor month
				}
			} else {
				sh.step(r, k)
				d.step(i, r, k)
			}
			i += n
			continue
		}
		// ASCII, most of most texts, without the calls: sh.step and d.step of the
		// byte's kind, written out.
		switch {
		case asciiWord[c]:
			// The run of ASCII word bytes at i, stepped at once: after its first
			// byte, a byte's steps only append it to the word.
			j := i + 1
			for j < len(body) && asciiWordByte[body[j]] {
				j++
			}
			if sh.runLen > 0 {
				sh.endRun()
			}
			if len(sh.word) == 0 {
				sh.wordAt = i
			} else {
				sh.wordAt = -1 // (after a letter past ASCII)
			}
			sh.word = append(sh.word, body[i:j]...)
			if d.start < 0 {
				d.start = i
			}
			i = j
			continue
		case c == '\n': // a paragraph ends: its words do not pair with the next one's
			sh.end()
			if st != nil && !st.lineEnd(body[line:i], unspaced, proseOdd, false) {
				st = nil // the story has all its features
			}
			line, unspaced, proseOdd = i+1, 0, false
			sh = fs.shingler(1, true)
			sh.story, sh.text = st, body
			d.endWord(i)
		default:
			if len(sh.word) > 0 {
				sh.endWord()
			}
			if sh.runLen > 0 {
				sh.endRun()
			}
			d.endWord(i)
		}
		i++
	}
	sh.end()
	if st != nil {
		st.lineEnd(body[line:], unspaced, proseOdd, true)
	}
	s.text = d.sum()
	if len(fs.store) == 0 {
		return textSums{}, false
	}
	s.simhash = simhash.Fingerprint(fs.vector())
	switch {
	case walked:
		s.story, s.storyOK = fs.st.fingerprint()
		s.storyDone = true
	case story:
		s.story, s.storyOK = storyFingerprint(raw, "", MaxStoryFeatures)
		s.storyDone = true
	}
	return s, true
}

// monthShapes holds the length, first and last letter of every month and day name:
// monthCandidate lets through only words of such a shape to the map, as most words
// of a text pass maybeMonth.
var monthShapes = func() (t [10][26][26]bool) {
	for name := range monthNames {
		t[len(name)][name[0]-'a'][name[len(name)-1]-'a'] = true
	}
	return t
}()

// monthCandidate is a filter before the monthNames lookup that lets every month and
// day name through.
func monthCandidate(tok string) bool {
	if len(tok) < 3 || len(tok) >= len(monthShapes) {
		return false
	}
	a, z := tok[0]-'a', tok[len(tok)-1]-'a'
	return a < 26 && z < 26 && monthShapes[len(tok)][a][z]
}

// featureSets recycles feature buffers between fingerprints: a crawler fingerprints
// every page it fetches, and the garbage would otherwise dominate.
var featureSets = sync.Pool{New: func() any { return &featureSet{} }}

// getFeatureSet returns an empty feature set; putFeatureSet gives it back.
func getFeatureSet() *featureSet { return featureSets.Get().(*featureSet) }

func putFeatureSet(fs *featureSet) {
	if cap(fs.store) > 1<<16 {
		return // a giant page's buffers are not worth keeping
	}
	if fs.st.sf != nil {
		fs.st.sf.release()
		fs.st.sf = nil
	}
	if cap(fs.st.feats) > 1<<14 {
		fs.st.feats = nil
	}
	if cap(fs.norm) > 1<<20 {
		fs.norm = nil
	}
	clear(fs.feats)
	fs.store, fs.feats, fs.mixed = fs.store[:0], fs.feats[:0], false
	fs.dg.text, fs.st.raw = "", "" // the texts walked are not kept
	featureSets.Put(fs)
}

// vector is simhash.Vectorize(fs.GetFeatures()), the library's vote of the weighted
// features bit by bit, computed without an interface call per feature and over set
// bits only: v[i] = Σ w·(+1 if bit i is set, else -1) = 2·Σ_{bit i set} w - Σ w. The
// vote is a third of the fingerprint path's CPU; the fingerprint, simhash.Fingerprint
// of this vector, is the library's (TestVectorMatchesLibrary).
func (fs *featureSet) vector() simhash.Vector {
	var ones [64]int
	total := 0
	if fs.mixed {
		for _, f := range fs.store {
			total += f.weight
			for sum := f.sum; sum != 0; sum &= sum - 1 {
				ones[bits.TrailingZeros64(sum)] += f.weight
			}
		}
	} else {
		total = len(fs.store)
		unitOnes(fs.store, &ones)
	}
	var v simhash.Vector
	for i := range v {
		v[i] = 2*ones[i] - total
	}
	return v
}

// allDigits reports whether a word is a number.
func allDigits(word []byte) bool {
	for i := 0; i < len(word); {
		if c := word[i]; c < utf8.RuneSelf { // an ASCII number is a digit
			if c < '0' || c > '9' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(word[i:])
		if r < runeClassSize && runeClasses()[r]&classNumber == 0 || r >= runeClassSize && !unicode.IsNumber(r) {
			return false
		}
		i += size
	}
	return true
}
