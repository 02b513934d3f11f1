package revisit

import (
	"strings"

	"github.com/cespare/xxhash/v2"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/atom"
)

// The article extractor: which part of a page is its main text (M2: "extract the
// main text"), scored on the article extraction benchmark (181 real pages with
// reference bodies, `go run ./bench changes`).
//
// It is Readability's content scoring (Arc90, as in Mozilla's Readability.js) over
// the light tree of dom.go, with one rule changed. Readability drops "unlikely
// candidates" by class/id substrings before it scores; on real pages that throws
// away the article itself: "f_ads_…" holds "ad", "evolve-shared-…" "share",
// "i-nav_drawer" "nav", Blogger's "widget Blog" "widget", a <body class="…sidebar…">,
// a <div class="row site_header"> around the <article>. Here class/id names and
// chrome tags (nav, aside, header, footer, form) only mark candidates for removal,
// and removal is decided after scoring: an element is never removed if it is <body>,
// <main> or <article>, if it holds the chosen article (is an ancestor of it), or if it
// holds at least half of the page's paragraph text.

// Text is a page's main text as revisit sees it.
type Text struct {
	// Title is the headline: the first <h1> outside page chrome, else og:title, else
	// <title>.
	Title string
	// Body is the article text, one paragraph a line; no headline.
	Body string
	// Fallback is set when the page has no recognisable article (an index page, a
	// form, a page of links): Body is then all its visible text outside chrome, in
	// page order, which is stable between fetches but boilerplate-prone. The Revisit
	// pane shows the flag.
	Fallback bool
}

// paragraph is the text of consecutive runs of one block element.
type paragraph struct {
	block                int32
	runStart, runEnd     int32
	letters, linkLetters int
	commas               int
}

// minParagraphLetters is Readability's 25-character floor for a scored paragraph.
const minParagraphLetters = 25

// chromeShare is the share of the page's paragraph text above which a chrome-named
// element is taken to hold the article and is kept whatever its name.
const chromeShare = 0.5

// extract picks the article out of a parsed page.
func extract(d *doc) Text {
	paras := d.paragraphs()
	d.sumFigures(paras)
	d.markNamedChrome()
	removed := d.inside(d.removable())
	top := d.scoreCandidates(paras, removed)
	t := Text{Title: d.headline(removed)}
	if top < 0 {
		t.Fallback = true
		t.Body = d.joinParagraphs(paras, func(p paragraph) bool {
			return !removed[p.block] && p.linkLetters*2 <= p.letters
		})
		if t.Body == "" {
			t.Body = d.joinParagraphs(paras, func(paragraph) bool { return true })
		}
		return t
	}
	// The article's ancestors are never chrome, whatever they are called.
	rem := d.removable()
	for a := top; a >= 0; a = d.elems[a].parent {
		rem[a] = false
	}
	removed = d.inside(rem)
	top = d.widen(top, paras, removed)
	included := d.articleElems(top)
	seen := map[uint64]bool{}
	t.Body = d.joinParagraphs(paras, func(p paragraph) bool {
		if !d.within(p.block, included) || removed[p.block] || d.inCaption(p.block) {
			return false
		}
		if d.elems[p.block].tag == atom.H1 {
			return false // the headline is Text.Title
		}
		// Link lists inside the article ("Read more", related stories).
		if p.linkLetters*2 > p.letters {
			return false
		}
		if p.letters < minLabelLetters && !d.isHeading(p.block) && !endsSentence(d.paragraphText(p)) {
			return false // "Caption", "Close", "Photo: AP": labels, not prose
		}
		// A gallery repeats its captions; a sticky share bar its labels.
		if p.letters < minRepeatLetters {
			return true // a short line repeated in a recipe or a plan is the text's own
		}
		h := xxhash.New()
		for _, r := range d.runs[p.runStart:p.runEnd] {
			h.Write(d.runText(r))
		}
		k := h.Sum64()
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	})
	return t
}

// inside extends a per-element mark to whole subtrees: elements come in document
// order, so a parent is always decided before its children.
func (d *doc) inside(marked []bool) []bool {
	for i := 1; i < len(d.elems); i++ {
		if marked[d.elems[i].parent] {
			marked[i] = true
		}
	}
	return marked
}

// widen climbs from the top candidate to ancestors while what they add is mostly
// prose and a real share of the article: an article split into sections between
// figures or pull quotes is one article (Readability's sibling step only looks one
// level up). Chrome subtrees do not count.
func (d *doc) widen(top int32, paras []paragraph, removed []bool) int32 {
	prose := make([]int32, len(d.elems))   // letters of prose paragraphs outside chrome
	letters := make([]int32, len(d.elems)) // all letters outside chrome
	for _, p := range paras {
		if removed[p.block] || d.inCaption(p.block) {
			continue
		}
		letters[p.block] += int32(p.letters)
		if p.letters >= minParagraphLetters && p.linkLetters*4 <= p.letters {
			prose[p.block] += int32(p.letters - p.linkLetters)
		}
	}
	for i := len(d.elems) - 1; i > 0; i-- {
		par := d.elems[i].parent
		prose[par] += prose[i]
		letters[par] += letters[i]
	}
	for a := top; a > 0; a = d.elems[a].parent {
		if d.elems[a].tag == atom.Article {
			return top // an <article> bounds its own text (HTML5); its siblings are other posts
		}
	}
	for a := d.elems[top].parent; a > 0; a = d.elems[a].parent {
		if d.elems[a].flags&flagHoldsMain != 0 && d.elems[a].tag != atom.Main {
			break // climbing into a container of <article>s
		}
		extraProse := prose[a] - prose[top]
		extraAll := letters[a] - letters[top]
		if extraAll == 0 {
			top = a // a wrapper that adds nothing
			continue
		}
		if float64(extraProse) < widenProseShare*float64(extraAll) || float64(extraProse) < widenMinGain*float64(prose[top]) {
			break
		}
		top = a
	}
	return top
}

// widenProseShare and widenMinGain bound widen: what an ancestor adds must be at least
// 70% prose, and at least a fifth more of it.
const (
	widenProseShare = 0.9
	widenMinGain    = 0.8
)

// minRepeatLetters is the size from which a repeated paragraph is a gallery's or a
// share bar's copy rather than the article's own refrain.
const minRepeatLetters = 60

// minLabelLetters is the size below which a paragraph that does not end a sentence
// is a label (a button, a photo credit), not prose.
const minLabelLetters = 12

// inCaption reports whether el is inside a <figure> or <figcaption>: photo captions
// and credits are not the article's text.
func (d *doc) inCaption(el int32) bool {
	for a := el; a > 0; a = d.elems[a].parent {
		if t := d.elems[a].tag; t == atom.Figure || t == atom.Figcaption {
			return true
		}
	}
	return false
}

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
	return collapseSpace(sb.String())
}

// paragraphs groups the runs into paragraphs.
func (d *doc) paragraphs() []paragraph {
	var out []paragraph
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
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
				letters++
			case c == ',' || c == ';':
				commas++
			}
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case isUnspacedScript(r) || isWordRune(r):
			letters++
		case r == '，' || r == '、' || r == '،' || r == '；':
			commas++
		}
	}
	return letters, commas
}

// sumFigures sums letters, link letters and paragraph letters over subtrees.
func (d *doc) sumFigures(paras []paragraph) {
	for _, p := range paras {
		e := &d.elems[p.block]
		e.letters += int32(p.letters)
		e.linkLetters += int32(p.linkLetters)
		if p.letters >= minParagraphLetters && p.linkLetters*2 <= p.letters {
			e.paraLetters += int32(p.letters - p.linkLetters)
		}
	}
	for i := len(d.elems) - 1; i > 0; i-- {
		e := &d.elems[i]
		par := &d.elems[e.parent]
		par.letters += e.letters
		par.linkLetters += e.linkLetters
		par.paraLetters += e.paraLetters
		if e.flags&flagHoldsMain != 0 {
			par.flags |= flagHoldsMain
		}
	}
}

// markNamedChrome flags elements whose class or id names page chrome.
func (d *doc) markNamedChrome() {
	for i := range d.elems {
		if d.elems[i].names != "" && chromeName(d.elems[i].names) {
			d.elems[i].flags |= flagNamedChrom
		}
	}
}

// removable marks the elements that are chrome by tag, name or hidden state and hold
// too little of the page's text to be its article.
func (d *doc) removable() []bool {
	out := make([]bool, len(d.elems))
	total := float64(d.elems[0].paraLetters)
	for i := 1; i < len(d.elems); i++ {
		e := &d.elems[i]
		if e.flags&(flagChromeTag|flagNamedChrom|flagHidden) == 0 {
			continue
		}
		if e.tag == atom.Article || e.tag == atom.Main {
			continue
		}
		if e.flags&flagHoldsMain != 0 && e.flags&flagHidden == 0 {
			continue // holds an <article> or <main>
		}
		if total > 0 && float64(e.paraLetters) >= chromeShare*total {
			continue
		}
		out[i] = true
	}
	return out
}

// initialScore is Readability's score of an element by its tag.
func initialScore(tag atom.Atom) float64 {
	switch tag {
	case atom.Div, atom.Article, atom.Main, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// topCandidates and minAltCandidates are Readability's DEFAULT_N_TOP_CANDIDATES and
// MINIMUM_TOPCANDIDATES.
const (
	topCandidates    = 5
	minAltCandidates = 3
)

// isAncestor reports whether a is el or one of its ancestors.
func (d *doc) isAncestor(a, el int32) bool {
	for ; el >= a; el = d.elems[el].parent {
		if el == a {
			return true
		}
	}
	return false
}

// scoreCandidates runs Readability's scoring and returns the top candidate, or -1
// when no paragraph qualifies.
func (d *doc) scoreCandidates(paras []paragraph, removed []bool) int32 {
	for _, p := range paras {
		if p.letters < minParagraphLetters || removed[p.block] {
			continue
		}
		score := 1 + float64(p.commas) + min(float64(p.letters/100), 3)
		// The paragraph's element scores as a paragraph would; its ancestors get
		// the share Readability gives parents (1), grandparents (1/2) and above
		// (1/(3·level)).
		// Readability turns a <div> that holds text into a <p>: the block always
		// scores its parent first.
		a := d.elems[p.block].parent
		for level := 0; level < 5 && a > 0; level++ {
			e := &d.elems[a]
			if !e.scored {
				e.scored = true
				e.score = initialScore(e.tag) + classWeight(e.names)
			}
			switch level {
			case 0:
				e.score += score
			case 1:
				e.score += score / 2
			default:
				e.score += score / float64(level*3)
			}
			a = e.parent
		}
	}
	var cands [topCandidates]int32 // best first
	n := 0
	for i := range d.elems {
		e := &d.elems[i]
		if !e.scored {
			continue
		}
		if e.letters > 0 {
			e.score *= 1 - float64(e.linkLetters)/float64(e.letters)
		}
		for k := 0; k < topCandidates; k++ {
			if k == n || e.score > d.elems[cands[k]].score {
				copy(cands[k+1:], cands[k:topCandidates-1])
				cands[k] = int32(i)
				n = min(n+1, topCandidates)
				break
			}
		}
	}
	if n == 0 {
		return -1
	}
	top, best := cands[0], d.elems[cands[0]].score
	// Readability: when several near-best candidates share an ancestor, the article
	// was split over them (a page of cards), and the ancestor is the article.
	var alts []int32
	for _, c := range cands[1:n] {
		if d.elems[c].score >= 0.75*best {
			alts = append(alts, c)
		}
	}
	if len(alts) >= minAltCandidates {
		for a := d.elems[top].parent; a > 0; a = d.elems[a].parent {
			shared := 0
			for _, c := range alts {
				if d.isAncestor(a, c) {
					shared++
				}
			}
			if shared >= minAltCandidates {
				top = a
				break
			}
		}
		if !d.elems[top].scored {
			d.elems[top].scored = true
			d.elems[top].score = initialScore(d.elems[top].tag) + classWeight(d.elems[top].names)
		}
		best = d.elems[top].score
	}
	// Readability: a parent that scores better than the candidate holds more of the
	// article (the text was split over sibling containers).
	last, threshold := best, best/3
	for a := d.elems[top].parent; a > 0; a = d.elems[a].parent {
		e := &d.elems[a]
		if !e.scored {
			continue
		}
		if e.score < threshold {
			break
		}
		if e.score > last {
			top = a
			break
		}
		last = e.score
	}
	return top
}

// articleElems returns the article's top element and the siblings Readability joins
// to it: siblings that score at least a fifth of it, and link-poor paragraphs.
func (d *doc) articleElems(top int32) []int32 {
	out := []int32{top}
	parent := d.elems[top].parent
	if parent <= 0 {
		return out
	}
	topE := d.elems[top]
	threshold := max(10, topE.score*0.2)
	for i := int32(parent + 1); int(i) < len(d.elems); i++ {
		e := &d.elems[i]
		if e.runStart >= d.elems[parent].runEnd && e.runEnd > e.runStart {
			break
		}
		if e.parent != parent || i == top {
			continue
		}
		bonus := 0.0
		if e.names != "" && e.names == topE.names {
			bonus = topE.score * 0.2
		}
		ld := 0.0
		if e.letters > 0 {
			ld = float64(e.linkLetters) / float64(e.letters)
		}
		switch {
		case e.scored && e.score+bonus >= threshold:
			out = append(out, i)
		case e.tag == atom.P && e.letters > 80 && ld < 0.25:
			out = append(out, i)
		case e.tag == atom.P && e.letters > 0 && e.letters <= 80 && ld == 0:
			out = append(out, i)
		}
	}
	return out
}

// within reports whether element el lies in one of the subtrees roots. Ancestors
// come before their descendants in document order, so the walk up stops below the
// first root.
func (d *doc) within(el int32, roots []int32) bool {
	lowest := roots[0]
	for _, r := range roots[1:] {
		lowest = min(lowest, r)
	}
	for a := el; a >= lowest; a = d.elems[a].parent {
		for _, r := range roots {
			if a == r {
				return true
			}
		}
	}
	return false
}

// headline returns the page's headline (see Text.Title).
func (d *doc) headline(removed []bool) string {
	for i := range d.elems {
		e := &d.elems[i]
		if e.tag != atom.H1 || e.letters == 0 || removed[i] {
			continue
		}
		var sb strings.Builder
		for _, r := range d.runs[e.runStart:e.runEnd] {
			sb.Write(d.runText(r))
			sb.WriteByte(' ')
		}
		return collapseSpace(sb.String())
	}
	if d.ogTitle != "" {
		return collapseSpace(d.ogTitle)
	}
	return collapseSpace(d.title)
}

// joinParagraphs returns the text of the paragraphs keep accepts, one a line.
func (d *doc) joinParagraphs(paras []paragraph, keep func(paragraph) bool) string {
	var sb strings.Builder
	var line strings.Builder
	for _, p := range paras {
		if p.letters == 0 || !keep(p) {
			continue
		}
		line.Reset()
		for _, r := range d.runs[p.runStart:p.runEnd] {
			line.Write(d.runText(r))
		}
		text := collapseSpace(line.String())
		if text == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(text)
	}
	return sb.String()
}

// collapseSpace trims s and folds each run of white space into one space.
func collapseSpace(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return collapseSpaceSlow(s, &sb, i, space)
		}
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// collapseSpaceSlow is collapseSpace from byte i on, for text with non-ASCII runes.
func collapseSpaceSlow(s string, sb *strings.Builder, i int, space bool) string {
	for _, r := range s[i:] {
		if unicode.IsSpace(r) || r == 0xA0 {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
