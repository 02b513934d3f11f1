package meta

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Dates in text: ISO 8601 and RFC 1123 stamps, numeric day-month-year and
// month-day-year lines, month names in the languages news is written in most
// ("5 March 2024", "March 5th, 2024", "5. März 2024", "5 de marzo de 2024",
// "5 березня 2024"), and the CJK forms ("2024年3月5日", "令和6年3月5日", "2024년 3월
// 5일"), each with the time of day and zone when the line gives them. The text is cut
// into tokens (numbers, words, marks) once and the patterns are matched on tokens, so
// a page's text costs one pass whatever it holds; scanDates stops at a bound.

// dateHit is a date read from text.
type dateHit struct {
	t          time.Time // in the zone the text named, else UTC with the wall clock as written
	clock      bool      // the text gave a time of day
	zone       bool      // and its zone
	start, end int       // bytes of the text it was read from
}

// Token kinds.
const (
	tokNum  uint8 = iota + 1 // a run of digits (ASCII or full-width)
	tokWord                  // a run of letters
	tokMark                  // any other character, one a token (CJK date marks too)
)

// dtok is one token of a text scanned for dates.
type dtok struct {
	kind       uint8
	space      bool // white space before it
	ndig       int8 // digits of a number (capped at 9)
	r          rune // the character of a mark
	num        int  // a number's value (its first 9 digits)
	start, end int  // bytes in the text
}

// cjkMarks are the characters of CJK dates and times, each a token of its own.
var cjkMarks = map[rune]bool{'年': true, '月': true, '日': true, '년': true, '월': true, '일': true,
	'時': true, '时': true, '分': true, '秒': true, '시': true, '분': true, '号': true}

// tokenize cuts s into date tokens, appending to toks.
func tokenize(s string, toks []dtok) []dtok {
	toks, _ = appendTokens(s, 0, toks, true)
	return toks
}

// tokenizeRuns is tokenize of the page's text from base (s is text[base:]) as its
// elements cut it: a run's start ends a word or a number even with no space before
// it ("<time>…13Z</time>Text" is a zone and a word, not a word "ZText"), and a run
// a block or a <br> starts has white space before it (a paragraph's year is not the
// first digits of the next one's "12 people").
func tokenizeRuns(s string, base int, runs []Span, toks []dtok) []dtok {
	k := firstRunAfter(runs, base)
	space, from := true, 0
	for ; k < len(runs) && int(runs[k].Start)-base < len(s); k++ {
		cut := int(runs[k].Start) - base
		toks, space = appendTokens(s[:cut], from, toks, space)
		from, space = cut, space || runs[k].Brk
	}
	toks, _ = appendTokens(s, from, toks, space)
	return toks
}

// firstRunAfter is the index of the first run that starts after byte at of the text.
func firstRunAfter(runs []Span, at int) int {
	k, _ := slices.BinarySearchFunc(runs, at+1, func(r Span, at int) int { return int(r.Start) - at })
	return k
}

// runStarts reports whether a run of the text starts at byte at.
func runStarts(runs []Span, at int) bool {
	k := firstRunAfter(runs, at-1)
	return k < len(runs) && int(runs[k].Start) == at
}

// appendTokens appends the tokens of s from byte i, space telling whether white
// space comes before it; it returns whether s ends in white space.
func appendTokens(s string, i int, toks []dtok, space bool) ([]dtok, bool) {
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f':
			space = true
			i++
			continue
		case c >= '0' && c <= '9':
			t := dtok{kind: tokNum, space: space, start: i}
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				if t.ndig < 9 {
					t.num = t.num*10 + int(s[i]-'0')
				}
				if t.ndig < 100 {
					t.ndig++
				}
				i++
			}
			t.end = i
			toks = append(toks, t)
		case c < utf8.RuneSelf:
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				t := dtok{kind: tokWord, space: space, start: i}
				i = wordEnd(s, i)
				t.end = i
				toks = append(toks, t)
			} else {
				toks = append(toks, dtok{kind: tokMark, space: space, r: rune(c), start: i, end: i + 1})
				i++
			}
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r >= '０' && r <= '９':
				t := dtok{kind: tokNum, space: space, start: i}
				for i < len(s) {
					r, size := utf8.DecodeRuneInString(s[i:])
					if r < '０' || r > '９' {
						break
					}
					if t.ndig < 9 {
						t.num = t.num*10 + int(r-'０')
						t.ndig++
					}
					i += size
				}
				t.end = i
				toks = append(toks, t)
			case unicode.IsSpace(r):
				space = true
				i += size
				continue
			case cjkMarks[r] || !unicode.IsLetter(r):
				toks = append(toks, dtok{kind: tokMark, space: space, r: r, start: i, end: i + size})
				i += size
			default:
				t := dtok{kind: tokWord, space: space, start: i}
				i = wordEnd(s, i)
				t.end = i
				toks = append(toks, t)
			}
		}
		space = false
	}
	return toks, space
}

// wordEnd is where the run of letters starting at i ends (a CJK date mark ends it).
func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) || cjkMarks[r] {
			return i
		}
		i += size
	}
	return i
}

// dateScanner reads dates from text; its token buffer is reused between texts.
type dateScanner struct {
	toks []dtok
	s    string
	mdy  bool // an ambiguous 03/05/2024 is March 5 (US usage), else 3 May
}

// scanners recycles the scanners' token buffers: every page a crawl reads is
// scanned for dates.
var scanners = sync.Pool{New: func() any { return new(dateScanner) }}

// newScanner returns an empty scanner; release gives it back.
func newScanner() *dateScanner {
	sc := scanners.Get().(*dateScanner)
	sc.mdy = false
	return sc
}

// release gives the scanner back (nothing it read may be used after), unless a
// giant text made its buffer too big to keep.
func (sc *dateScanner) release() {
	sc.s = ""
	if cap(sc.toks) > 1<<14 {
		return
	}
	sc.toks = sc.toks[:0]
	scanners.Put(sc)
}

// readDates reads the tree's dates with one scanner: the first date of each element
// whose names speak of a date (not a comment's), and the dates of the visible text.
func (m *Raw) readDates(d *Tree) {
	sc := newScanner()
	defer sc.release()
	for i := int32(0); i < int32(len(d.Elems)) && len(m.dateLines) < maxDateElems; i++ {
		names := d.names(i)
		if names == "" || !hasAnyPart(names, dateNameParts) || hasAnyPart(names, commentParts) {
			continue
		}
		txt := d.elemText(i, maxElemText)
		if h, ok := sc.first(txt); ok {
			m.dateLines = append(m.dateLines, dateLine{hit: h, pos: d.elemPos(i)})
		} else if !m.yearless.ok && strings.Contains(txt, "月") {
			m.yearless = readYearless(txt)
		}
	}
	sc.scanYears(d.Text, d.Runs, maxTextDates, func(h dateHit) bool {
		m.textDates = append(m.textDates, dateLine{hit: h, pos: h.start})
		return true
	})
}

// yearlessDate is a month and day a date line gives without its year ("[06月24日
// 11時30分]", as NHK prints the day's news), the year left to the page's other
// stamps or the crawl day (Raw.yearOf).
type yearlessDate struct {
	month, day, hour, min int
	clock, ok             bool
}

// readYearless reads the first month and day written the CJK way with no year
// before them (月 and 日, a 年 before is a full date), and the time of day after.
func readYearless(s string) yearlessDate {
	toks := tokenize(s, make([]dtok, 0, 16))
	num := func(i, lo, hi int) (int, bool) {
		if i < len(toks) && toks[i].kind == tokNum && toks[i].ndig <= 2 && toks[i].num >= lo && toks[i].num <= hi {
			return toks[i].num, true
		}
		return 0, false
	}
	mark := func(i int, rs ...rune) bool {
		if i >= 0 && i < len(toks) && toks[i].kind == tokMark {
			for _, r := range rs {
				if toks[i].r == r {
					return true
				}
			}
		}
		return false
	}
	for i := range toks {
		mo, ok1 := num(i, 1, 12)
		d, ok2 := num(i+2, 1, 31)
		if !ok1 || !ok2 || !mark(i+1, '月') || !mark(i+3, '日') || mark(i-1, '年') || d > daysIn(2000, mo) {
			continue
		}
		y := yearlessDate{month: mo, day: d, ok: true}
		if h, ok := num(i+4, 0, 23); ok && mark(i+5, '時', '时') {
			if mi, ok := num(i+6, 0, 59); ok && mark(i+7, '分') {
				y.hour, y.min, y.clock = h, mi, true
			}
		}
		return y
	}
	return yearlessDate{}
}

// maxScanText bounds the bytes of one text read for dates.
const maxScanText = 256 << 10

// scan calls fn with each date in s, in text order, until fn returns false or max
// dates were found.
func (sc *dateScanner) scan(s string, max int, fn func(dateHit) bool) {
	if len(s) > maxScanText {
		s = s[:maxScanText]
	}
	sc.s = s
	sc.toks = tokenize(s, sc.toks[:0])
	found := 0
	for i := 0; i < len(sc.toks) && found < max; {
		h, next, ok := sc.matchAt(i)
		if !ok {
			i++
			continue
		}
		found++
		if !fn(h) {
			return
		}
		i = next
	}
}

// scanYears calls fn with the dates of a long text, in text order, until fn returns
// false or max were found. Every date it reads has a four-digit year, so only the
// text around each number from 1900 to 2099 is tokenized: a page's text costs a byte
// scan, not a tokenizer pass. (A Japanese era year, 令和6年, is read in short texts
// only, by scan.) runs are the text's runs, as tokenizeRuns cuts at them (nil: one).
func (sc *dateScanner) scanYears(s string, runs []Span, limit int, fn func(dateHit) bool) {
	const before, after = 40, 64
	if len(s) > maxScanText {
		s = s[:maxScanText]
	}
	found, done := 0, 0 // done: the text before it was read
	for i := 0; i < len(s) && found < limit; i++ {
		if i = nextYearDigit(s, max(i, done)); i+4 > len(s) {
			break
		}
		if i > 0 && isDigitByte(s[i-1]) && !runStarts(runs, i) || !isDigitByte(s[i+1]) || !isDigitByte(s[i+2]) ||
			!isDigitByte(s[i+3]) || i+4 < len(s) && isDigitByte(s[i+4]) && !runStarts(runs, i+4) {
			continue
		}
		if y := s[i : i+2]; y != "19" && y != "20" {
			i += 3
			continue
		}
		lo := max(done, i-before)
		for lo > 0 && lo < len(s) && s[lo]&0xC0 == 0x80 {
			lo++
		}
		hi := min(len(s), i+4+after)
		for hi < len(s) && s[hi]&0xC0 == 0x80 {
			hi++
		}
		sc.s = s[lo:hi]
		sc.toks = tokenizeRuns(sc.s, lo, runs, sc.toks[:0])
		year := i - lo
		next := i + 4
		for k := 0; k < len(sc.toks) && sc.toks[k].start <= year; k++ {
			h, _, ok := sc.matchAt(k)
			if !ok || h.end <= year {
				continue
			}
			h.start += lo
			h.end += lo
			found++
			next = h.end
			if !fn(h) {
				return
			}
			break
		}
		done = next
		i = next - 1
	}
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// nextYearDigit is the index of the first '1' or '2' of s at or after i, len(s) when
// there is none: the byte scan of scanYears, eight bytes at a time.
func nextYearDigit(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8] // (one bounds check for the eight bytes)
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// A byte of x^'1' or of x^'2' is zero where x has that digit; the lowest
		// byte flagged in either is a true one (a borrow only flags bytes above it).
		a, b := x^(ones*'1'), x^(ones*'2')
		if z := ((a-ones)&^a | (b-ones)&^b) & highs; z != 0 {
			return i + bits.TrailingZeros64(z)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == '1' || c == '2' {
			return i
		}
	}
	return len(s)
}

// first is the first date in s, if any.
func (sc *dateScanner) first(s string) (dateHit, bool) {
	var hit dateHit
	found := false
	sc.scan(s, 1, func(h dateHit) bool { hit, found = h, true; return false })
	return hit, found
}

// word is the text of token i lower-cased into buf (letters only, short words), or "".
func (sc *dateScanner) word(i int, buf []byte) string {
	if i < 0 || i >= len(sc.toks) || sc.toks[i].kind != tokWord {
		return ""
	}
	t := sc.toks[i]
	if t.end-t.start > 24 {
		return ""
	}
	n := 0
	for _, r := range sc.s[t.start:t.end] {
		if unicode.Is(unicode.Mn, r) {
			continue // a vowel sign or shadda: أيّار is أيار
		}
		n += utf8.EncodeRune(buf[n:], unicode.ToLower(r))
	}
	// The word is read in buf, not copied: callers compare it or look it up and
	// let it go (the compiler keeps buf on the heap for any that would keep it).
	return unsafe.String(unsafe.SliceData(buf), n)
}

func (sc *dateScanner) isNum(i int, minDig, maxDig int8) bool {
	return i >= 0 && i < len(sc.toks) && sc.toks[i].kind == tokNum && sc.toks[i].ndig >= minDig && sc.toks[i].ndig <= maxDig
}

func (sc *dateScanner) isMark(i int, r rune) bool {
	return i >= 0 && i < len(sc.toks) && sc.toks[i].kind == tokMark && sc.toks[i].r == r
}

// monthAt is the month a word token names, 0 for none.
func (sc *dateScanner) monthAt(i int) int {
	var buf [100]byte
	w := sc.word(i, buf[:])
	if w == "" {
		return 0
	}
	return monthWords[w]
}

// monthSpan is the month named from token i and the token after the name: one word,
// a Levantine month of two (تشرين الثاني), either followed by the same month in
// another calendar's name after a slash, as Arabic news writes it ("24 نيسان /
// أبريل 2020"). 0 for none.
func (sc *dateScanner) monthSpan(i int) (int, int) {
	m, next := sc.monthAt(i), i+1
	if m == 0 {
		var buf [100]byte
		if pair := arabicMonthPairs[sc.word(i, buf[:])]; pair != nil {
			m, next = pair[sc.word(i+1, buf[:])], i+2
		}
		if m == 0 {
			return 0, i
		}
	}
	if sc.isMark(next, '/') {
		if m2, after := sc.monthSpan(next + 1); m2 == m {
			return m, after
		}
	}
	return m, next
}

// matchAt reads a date starting at token i: the date, the token after it, ok.
func (sc *dateScanner) matchAt(i int) (dateHit, int, bool) {
	t := sc.toks[i]
	var y, m, d, j int
	switch {
	case t.kind == tokNum && t.ndig == 4:
		// 2024-03-05, 2024/3/5, 2024.03.05; 2024年3月5日, 2024년 3월 5일.
		switch {
		case sc.isNum(i+2, 1, 2) && sc.isNum(i+4, 1, 2) && sc.toks[i+1].kind == tokMark &&
			(sc.isMark(i+1, '-') || sc.isMark(i+1, '/') || sc.isMark(i+1, '.')) && sc.isMark(i+3, sc.toks[i+1].r):
			y, m, d, j = t.num, sc.toks[i+2].num, sc.toks[i+4].num, i+5
			if sc.isNum(j, 1, 9) && !sc.toks[j].space {
				return dateHit{}, 0, false // a longer number: a version, a phone number
			}
		case sc.isMark(i+1, '年') && sc.isNum(i+2, 1, 2) && sc.isMark(i+3, '月') && sc.isNum(i+4, 1, 2) && (sc.isMark(i+5, '日') || sc.isMark(i+5, '号')):
			y, m, d, j = t.num, sc.toks[i+2].num, sc.toks[i+4].num, i+6
		case sc.isMark(i+1, '년') && sc.isNum(i+2, 1, 2) && sc.isMark(i+3, '월') && sc.isNum(i+4, 1, 2) && sc.isMark(i+5, '일'):
			y, m, d, j = t.num, sc.toks[i+2].num, sc.toks[i+4].num, i+6
		default:
			return dateHit{}, 0, false
		}
	case t.kind == tokNum && t.ndig <= 2:
		switch {
		case sc.isNum(i+2, 1, 2) && sc.isNum(i+4, 4, 4) && sc.toks[i+1].kind == tokMark &&
			(sc.isMark(i+1, '.') || sc.isMark(i+1, '/') || sc.isMark(i+1, '-') || sc.isMark(i+1, '|') && sc.toks[i+1].space) &&
			sc.isMark(i+3, sc.toks[i+1].r):
			// 05.03.2024 (always day first), 03/05/2024, 5-3-2024, 26 | 01 | 2022.
			a, b := t.num, sc.toks[i+2].num
			y, j = sc.toks[i+4].num, i+5
			switch {
			case sc.toks[i+1].r == '.' || sc.toks[i+1].r == '|':
				d, m = a, b
			case a > 12:
				d, m = a, b
			case b > 12 || sc.mdy:
				m, d = a, b
			default:
				d, m = a, b
			}
			if sc.isNum(j, 1, 9) && !sc.toks[j].space {
				return dateHit{}, 0, false
			}
		default:
			// 5 March 2024, 5. März 2024, 5 de marzo de 2024, 05-Mar-2024.
			k := i + 1
			if sc.isMark(k, '.') || sc.isMark(k, '-') {
				k++
			}
			if sc.wordIs(k, "de") {
				k++
			}
			if m, k = sc.monthSpan(k); m == 0 {
				return dateHit{}, 0, false
			}
			if sc.isMark(k, '.') || sc.isMark(k, '-') || sc.isMark(k, ',') {
				k++
			}
			if sc.wordIs(k, "de") || sc.wordIs(k, "del") {
				k++
			}
			if !sc.isNum(k, 4, 4) {
				return dateHit{}, 0, false
			}
			d, y, j = t.num, sc.toks[k].num, k+1
		}
	case t.kind == tokWord:
		// March 5, 2024; Mar. 5th 2024; 平成31年4月30日 / 令和6年3月5日.
		if base := sc.eraAt(i); base > 0 {
			if sc.isNum(i+1, 1, 2) && sc.isMark(i+2, '年') && sc.isNum(i+3, 1, 2) && sc.isMark(i+4, '月') && sc.isNum(i+5, 1, 2) && sc.isMark(i+6, '日') {
				y, m, d, j = base+sc.toks[i+1].num, sc.toks[i+3].num, sc.toks[i+5].num, i+7
				break
			}
			return dateHit{}, 0, false
		}
		if m = sc.monthAt(i); m == 0 {
			return dateHit{}, 0, false
		}
		k := i + 1
		if sc.isMark(k, '.') {
			k++
		}
		if !sc.isNum(k, 1, 2) {
			return dateHit{}, 0, false
		}
		d = sc.toks[k].num
		k++
		var buf [100]byte
		if w := sc.wordAfter(k, buf[:]); w == "st" || w == "nd" || w == "rd" || w == "th" {
			k++
		}
		if sc.isMark(k, ',') || sc.isMark(k, '.') {
			k++
		}
		if !sc.isNum(k, 4, 4) {
			return dateHit{}, 0, false
		}
		y, j = sc.toks[k].num, k+1
	default:
		return dateHit{}, 0, false
	}
	if y < 1000 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return dateHit{}, 0, false
	}
	h := dateHit{t: time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), start: t.start, end: sc.toks[j-1].end}
	if hh, mm, ss, ns, loc, hasZone, next, ok := sc.clockAt(j); ok {
		h.t = time.Date(y, time.Month(m), d, hh, mm, ss, ns, loc)
		h.clock, h.zone, j = true, hasZone, next
		h.end = sc.toks[j-1].end
	}
	return h, j, true
}

// wordIs reports whether token i is the word w (lower case).
func (sc *dateScanner) wordIs(i int, w string) bool {
	var buf [100]byte
	return sc.word(i, buf[:]) == w
}

// wordAfter is token i as a word, only when it follows the previous token with no
// space ("5th"), read in buf as word does.
func (sc *dateScanner) wordAfter(i int, buf []byte) string {
	if i >= len(sc.toks) || sc.toks[i].space {
		return ""
	}
	return sc.word(i, buf)
}

// eraAt is the year before the first of the Japanese era a word names, 0 for none.
func (sc *dateScanner) eraAt(i int) int {
	if sc.toks[i].kind != tokWord {
		return 0
	}
	switch sc.s[sc.toks[i].start:sc.toks[i].end] {
	case "令和":
		return 2018
	case "平成":
		return 1988
	}
	return 0
}
