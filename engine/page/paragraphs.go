package page

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"golang.org/x/net/html/atom"
)

// Paragraphs of the light tree (consecutive text runs of one block element), the
// unit the extractor scores and keeps, and the text it makes of them.

// isHeading reports a sub-heading (h2..h6) of the article, or an item of a list or
// table in it: short, and content all the same.
func (d *doc) isHeading(el int32) bool {
	switch d.elems[el].tag {
	case atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li, atom.Td, atom.Th, atom.Dd, atom.Dt, atom.Pre:
		return true
	}
	return false
}

// endsSentence reports text that ends like a sentence, in any script.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, " \"'”’)»」』")
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?:;…。！？；", r)
}

// paragraphText is a paragraph's text with white space collapsed.
func (d *doc) paragraphText(p paragraph) string {
	var sb strings.Builder
	for _, r := range d.runs[p.runStart:p.runEnd] {
		sb.Write(d.runText(r))
	}
	return textutil.CollapseSpace(sb.String())
}

// paragraphs groups the runs into paragraphs.
func (d *doc) paragraphs() []paragraph {
	out := d.paras[:0] // the tree's own buffer: paragraphs live as long as it
	defer func() { d.paras = out }()
	for i, r := range d.runs {
		n, commas := textCounts(d.runText(r))
		if len(out) == 0 || r.brk || out[len(out)-1].block != r.block {
			out = append(out, paragraph{block: r.block, runStart: int32(i)})
		}
		p := &out[len(out)-1]
		p.runEnd = int32(i + 1)
		p.letters += n
		if r.link {
			p.linkLetters += n
		}
		p.commas += commas
	}
	return out
}

// textCounts counts letters and digits (letterCount) and clause separators in the
// scripts that have them (Readability counts ','; Chinese and Japanese write '，'
// and '、', Arabic '،'), in one pass with an ASCII fast path.
func textCounts(b []byte) (letters, commas int) {
	var table *[runeClassSize]uint8 // the rune table, from the first rune that is not ASCII
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			// The run of ASCII at i: eight bytes at a time while they are all
			// ASCII (asciiWordCounts), then byte by byte, both counts in one sum
			// (asciiCounts).
			j := i
			for ; j+8 <= len(b); j += 8 {
				x := binary.LittleEndian.Uint64(b[j:])
				if x&highBits != 0 {
					break
				}
				l, c := asciiWordCounts(x)
				letters += l
				commas += c
			}
			var sum uint64
			for _, c := range b[j:] {
				if c >= utf8.RuneSelf {
					break
				}
				sum += asciiCounts[c]
				j++
			}
			letters += int(uint32(sum))
			commas += int(sum >> 32)
			i = j
			continue
		}
		// textutil.DecodeRune, its two- and three-byte forms written out: every
		// character of a page's text past ASCII comes here.
		var r rune
		size := 0
		if i+2 < len(b) {
			c1, c2 := b[i+1], b[i+2]
			if c-0xC2 <= 0xDF-0xC2 && c1&0xC0 == 0x80 {
				r, size = rune(c&0x1F)<<6|rune(c1&0x3F), 2
			} else if c&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c != 0xE0 || c1 >= 0xA0) && (c != 0xED || c1 < 0xA0) {
				r, size = rune(c&0x0F)<<12|rune(c1&0x3F)<<6|rune(c2&0x3F), 3
			}
		}
		if size == 0 {
			r, size = utf8.DecodeRune(b[i:])
		}
		i += size
		if table == nil {
			table = runeClasses()
		}
		switch {
		case r < runeClassSize && table[r]&(classUnspaced|classWord) != 0:
			letters++ // isUnspacedScript || isWordRune, looked up once
		case r >= runeClassSize && (isUnspacedScript(r) || isWordRune(r)):
			letters++
		case r == '，' || r == '、' || r == '،' || r == '；':
			commas++
		}
	}
	return letters, commas
}

// Eight bytes in one word, for asciiWordCounts.
const (
	lowBits  = 0x0101010101010101 // each byte's lowest bit
	highBits = 0x8080808080808080 // each byte's highest bit
)

// asciiWordCounts is textCounts of eight ASCII bytes read as one little-endian
// word: its letters and digits, and its ',' and ';'. Each byte is below 0x80, so
// adding a byte's worth to each sets its high bit without carrying into the next:
// x + (0x80-lo) has it from lo up, and y + 0x7F from 1 up (y is 0 where x is the
// byte y was made with).
func asciiWordCounts(x uint64) (letters, commas int) {
	lower := x | 0x20*lowBits // an upper-case letter as its lower case (and other bytes elsewhere, no letter)
	alpha := (lower + (0x80-'a')*lowBits) &^ (lower + (0x80-'z'-1)*lowBits)
	digit := (x + (0x80-'0')*lowBits) &^ (x + (0x80-'9'-1)*lowBits)
	sep := ^((x ^ ','*lowBits + 0x7F*lowBits) & (x ^ ';'*lowBits + 0x7F*lowBits))
	return bits.OnesCount64((alpha | digit) & highBits), bits.OnesCount64(sep & highBits)
}

// asciiCounts is what textCounts counts of each ASCII character: 1 for a letter or
// digit, 1<<32 for a clause separator, so that a run's counts add up in one sum.
var asciiCounts = func() (t [utf8.RuneSelf]uint64) {
	for c := range byte(utf8.RuneSelf) {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			t[c] = 1
		case c == ',' || c == ';':
			t[c] = 1 << 32
		}
	}
	return t
}()

// headline returns the page's headline (see Text.Title).
func (d *doc) headline(removed []bool) string {
	for i := range d.elems {
		e := &d.elems[i]
		if e.tag != atom.H1 || e.letters == 0 || removed[i] {
			continue
		}
		line := d.line[:0]
		for _, r := range d.runs[e.runStart:e.runEnd] {
			line = textutil.AppendRun(line, d.runText(r), r.brk)
		}
		d.line = line
		return textutil.CollapseBytes(line)
	}
	if d.ogTitle != "" {
		return textutil.CollapseSpace(d.ogTitle)
	}
	return string(textutil.AppendCollapsed(nil, d.title))
}

// joinParagraphs returns the text of the paragraphs keep accepts, one a line. Each
// paragraph is folded straight from the page's text into one buffer sized for the
// whole page (appendCollapsed): no string per paragraph, no growing, as the main text
// of every page fetched is built here.
func (d *doc) joinParagraphs(paras []paragraph, keep func(paragraph) bool) string {
	out := d.out[:0]
	if n := len(d.text) + len(paras); cap(out) < n {
		out = make([]byte, 0, n)
	}
	for _, p := range paras {
		if p.letters == 0 || !keep(p) {
			continue
		}
		mark := len(out)
		if mark > 0 {
			out = append(out, '\n')
		}
		start := len(out)
		if out = textutil.AppendCollapsed(out, d.paragraphBytes(p)); len(out) == start {
			out = out[:mark] // all white space: no line
		}
	}
	d.out = out
	return string(out)
}

// paragraphBytes is the text of a paragraph's runs. parseDoc lays runs end to end in
// the page's text, so this is a slice of it; were they not, they are gathered.
func (d *doc) paragraphBytes(p paragraph) []byte {
	runs := d.runs[p.runStart:p.runEnd]
	for i := 1; i < len(runs); i++ {
		if runs[i].start != runs[i-1].end {
			line := d.line[:0]
			for _, r := range runs {
				line = append(line, d.runText(r)...)
			}
			d.line = line
			return line
		}
	}
	return d.text[runs[0].start:runs[len(runs)-1].end]
}
