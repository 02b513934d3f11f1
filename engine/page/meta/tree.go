package meta

import (
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// Tree is the page's element tree as FromTree reads it, once the parse is done,
// handed over whole: elements by index in document order, the runs of text they
// hold, and the page's visible text. FromTree reads from it what it needs and
// calls nothing back. Its strings and slices may share the parse's memory: they
// are read during FromTree and not kept.
type Tree struct {
	Text  string // the page's visible text
	Runs  []Span // its runs of text, in document order
	Elems []Elem // the elements, by index in document order
	H1    int32  // the first visible <h1> with text, -1 when there is none
	// H1s are the first visible <h1>s with text (at most MaxH1s), H1 first.
	H1s []int32
}

// MaxH1s bounds the <h1>s weighed for the headline: a site's logo or section
// name in an <h1> comes before the article's own, rarely more than one.
const MaxH1s = 4

// Span is a run of the visible text: Text[Start:End].
type Span struct {
	Start, End int32
	Brk        bool // a <br> or a block's start comes before the run
}

// Elem is one element of the tree.
type Elem struct {
	Names            string // lower-case class and id ("" when none)
	RunStart, RunEnd int32  // the runs of its subtree: Runs[RunStart:RunEnd]
}

// names is an element's class and id, "" when it has none or no text.
func (t *Tree) names(i int32) string {
	if e := &t.Elems[i]; e.RunStart < e.RunEnd {
		return e.Names
	}
	return ""
}

// elemText is an element's text, spaces collapsed, at most max bytes.
func (t *Tree) elemText(i int32, max int) string {
	if i < 0 || int(i) >= len(t.Elems) {
		return ""
	}
	return t.spanText(t.Elems[i], max)
}

// spanText is the text of runs e.RunStart to e.RunEnd (textutil.AppendRun), spaces
// collapsed, at most max bytes.
func (t *Tree) spanText(e Elem, max int) string {
	var b []byte
	for _, r := range t.Runs[e.RunStart:e.RunEnd] {
		if b = textutil.AppendRun(b, t.Text[r.Start:r.End], r.Brk); len(b) > 4*max {
			break
		}
	}
	return textutil.ClipBytes(textutil.CollapseBytes(b), max)
}

// elemPos is where an element stands in the visible text: its first text, or the
// text after it when it has none.
func (t *Tree) elemPos(i int32) int {
	if i < 0 || int(i) >= len(t.Elems) {
		return len(t.Text)
	}
	if r := t.Elems[i].RunStart; int(r) < len(t.Runs) {
		return int(t.Runs[r].Start)
	}
	return len(t.Text)
}

// Bounds on what is read from the tree for the metadata.
const (
	maxDateElems  = 64       // date-named elements read
	maxBylines    = 8        // author-named elements read
	maxElemText   = 256      // bytes of one element's text
	maxTextDates  = 256      // dates read from the visible text
	maxScriptText = 16 << 10 // bytes of main text counted for its scripts
)

// dateNameParts are class/id parts of elements that hold a page's date line.
var dateNameParts = []string{"date", "datum", "time", "publish", "posted", "submitted", "byline", "meta",
	"subline", "fecha", "parution", "created", "info", "post-detail", "post_detail", "dateline", "timestamp"}

// DateNamed reports whether an element's class and id (lower case) speak of a
// date: its title attribute may be the page's date.
func DateNamed(names string) bool { return hasAnyPart(names, dateNameParts) }

// bylineNameParts are class/id parts of elements that hold a page's author line.
var bylineNameParts = []string{"author", "byline", "autor", "writer", "creator", "auteur", "reporter"}

// FromTree reads what the metadata needs from the tree before it goes back to the
// pool: the text of the elements the parse kept, date and author lines, the dates
// of the visible text, and the scripts the main text (headline title, body) is
// written in. docTitle is the document's <title>.
func (m *Raw) FromTree(d *Tree, docTitle, title, body string) {
	m.title = docTitle
	m.ld = nil // the pass's scratch
	for i := range m.elems {
		m.elems[i].text = d.elemText(m.elems[i].elem, maxElemText)
		m.elems[i].pos = d.elemPos(m.elems[i].elem)
	}
	m.headAt = -1
	m.h1Lines = [2]string{}
	if h := m.pickH1(d); h >= 0 {
		m.h1 = d.elemText(h, 512)
		m.headAt = d.elemPos(h)
		m.h1Lines = d.firstLine(h)
	}
	for i := int32(0); i < int32(len(d.Elems)) && len(m.bylines) < maxBylines; i++ {
		names := d.names(i)
		if names != "" && hasAnyPart(names, bylineNameParts) && !hasAnyPart(names, commentParts) {
			if txt := d.elemText(i, maxElemText); txt != "" {
				m.bylines = append(m.bylines, txt)
			}
		}
	}
	m.readDates(d)
	m.scripts = countScripts(title, textutil.ClipBytes(body, maxScriptText))
}

// commentParts name reader comments, whose dates and authors are not the article's.
var commentParts = []string{"comment", "reply", "respond", "disqus", "related", "sidebar", "widget", "footer"}

// hasAnyPart reports whether names contains any of parts.
func hasAnyPart(names string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(names, p) {
			return true
		}
	}
	return false
}

// pickH1 is the <h1> the headline is read from: the first, unless a later one
// matches more of the page's <title> or og:title. A site's name in an <h1> before
// the article's (AFPBB News's "国際ニュース：AFPBB News", Prachatai's logo) is
// in the <title> too, so it passes for the headline when it is the only one asked.
func (m *Raw) pickH1(d *Tree) int32 {
	h := d.H1
	if len(d.H1s) < 2 {
		return h
	}
	og, _ := m.metaValue(headlineKeys[:len(headlineKeys)-1], nil)
	refs := [2]string{m.title, og}
	best := -1.0
	for _, c := range d.H1s {
		text := d.elemText(c, 512)
		for _, ref := range refs {
			if ref == "" || !sameHeadline(text, ref) {
				continue
			}
			if cov := titleCover(text, ref); cov > best {
				best, h = cov, c
			}
		}
	}
	return h
}

// titleCover is the share of ref's title words that text has.
func titleCover(text, ref string) float64 {
	var bufA, bufB [64]string
	wt, wr := appendTitleWords(bufA[:0], text), appendTitleWords(bufB[:0], ref)
	if len(wr) == 0 {
		return 0
	}
	hit := 0
	for _, w := range wr {
		if slices.Contains(wt, w) {
			hit++
		}
	}
	return float64(hit) / float64(len(wr))
}

// firstLine is an element's text before its first line break and after it, both
// empty when it has none.
func (t *Tree) firstLine(i int32) [2]string {
	e := &t.Elems[i]
	for k := e.RunStart + 1; k < e.RunEnd; k++ {
		if t.Runs[k].Brk {
			first, rest := *e, *e
			first.RunEnd, rest.RunStart = k, k
			return [2]string{t.spanText(first, 512), t.spanText(rest, 512)}
		}
	}
	return [2]string{}
}
