package page

import (
	"slices"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/chrome"
	"github.com/crawlconsole/crawlconsole/engine/page/internal/notice"
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

// Text is a page's main text: what revisit compares, the export writes and the
// block-page judge weighs.
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
		if p.letters < notice.MaxLetters {
			b := d.paragraphBytes(p)
			if p.letters < notice.MaxStampLetters && notice.Stamp(b) {
				return false // "Submitted on Mon, 2019-01-21 13:49": the page's stamp, not its text
			}
			var paywall bool
			if paywall, d.lower = notice.Paywall(b, d.lower); paywall {
				return false // "この記事は会員限定です": the site's notice, not the article
			}
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
	n := len(d.elems)
	d.sums = slices.Grow(d.sums[:0], 2*n)[:2*n]
	clear(d.sums)
	prose := d.sums[:n:n] // letters of prose paragraphs outside chrome
	letters := d.sums[n:] // all letters outside chrome
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
		if d.elems[i].names != "" && chrome.Name(d.elems[i].names) {
			d.elems[i].flags |= flagNamedChrom
		}
	}
}

// removable marks the elements that are chrome by tag, name or hidden state and hold
// too little of the page's text to be its article. The marks are the tree's own
// buffer, good until the next call.
func (d *doc) removable() []bool {
	d.marks = slices.Grow(d.marks[:0], len(d.elems))[:len(d.elems)]
	out := d.marks
	clear(out)
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
		if total > 0 && float64(e.paraLetters) >= chromeShare*total && !d.articleBeside(int32(i)) {
			continue
		}
		out[i] = true
	}
	return out
}

// minBesideLetters is the prose an <article> or <main> outside a chrome element must
// hold for that element to be taken as beside the article rather than holding it.
const minBesideLetters = 200

// articleBeside reports that an <article> or <main> of the page holds prose outside
// el and is not itself chrome (a comment's <article>, one inside a named sidebar): a
// long <aside> or live feed beside a short story is still chrome, however much of
// the page's text it has.
func (d *doc) articleBeside(el int32) bool {
	for i := int32(1); int(i) < len(d.elems); i++ {
		m := &d.elems[i]
		// The prose test first: it bounds outside below, and costs nothing, where
		// the ancestor walks cost the tree's depth (a page of many small <article>s
		// before deep chrome made them quadratic).
		if m.tag != atom.Article && m.tag != atom.Main || m.paraLetters < minBesideLetters || d.isAncestor(el, i) {
			continue
		}
		outside := m.paraLetters
		if d.isAncestor(i, el) {
			if d.elems[el].flags&flagChromeTag == 0 {
				continue // chrome only by a class or id name, inside the article: a page builder's wrapper ("elementor-widget-wrap") may hold the story
			}
			outside -= d.elems[el].paraLetters
		}
		if outside < minBesideLetters || d.inChrome(i, el) {
			continue
		}
		return true
	}
	return false
}

// inChrome reports that el or an ancestor of it is chrome by tag or name, below
// the first ancestor it shares with other (chrome around both tells them not apart).
func (d *doc) inChrome(el, other int32) bool {
	for a := el; a > 0; a = d.elems[a].parent {
		if d.isAncestor(a, other) {
			return false
		}
		if d.elems[a].flags&(flagChromeTag|flagNamedChrom) != 0 {
			return true
		}
	}
	return false
}

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
