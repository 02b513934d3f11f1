package page

import (
	"time"
	"unsafe"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"github.com/crawlconsole/crawlconsole/engine/page/meta"
	"golang.org/x/net/html/atom"
)

// The page's metadata is read by engine/page/meta from what the one parse
// collected; these are its types under the names the page's readers use.
type (
	// Metadata is what a news reader asks of a page besides its text (meta.Metadata).
	Metadata = meta.Metadata
	// Date is a date the page gives (meta.Date).
	Date = meta.Date
	// Field is one metadata value and where it was read (meta.Field).
	Field = meta.Field
	// Source says where a metadata field was read (meta.Source).
	Source = meta.Source
)

// ParseDate reads back a Date written by Date.String; from is its source.
func ParseDate(s string, from Source) (Date, bool) { return meta.ParseDate(s, from) }

// Meta is the page's metadata (Metadata) from its one parse. pageURL (may be "") is
// the page's address, for dates in it and to resolve the canonical URL; now bounds
// plausible dates (a date more than a day after it is an error or a schedule; zero
// means the clock's now).
func (p *Parsed) Meta(pageURL string, now time.Time) Metadata {
	if p == nil {
		return Metadata{}
	}
	p.mainText()
	if p.meta == nil {
		return Metadata{}
	}
	if now.IsZero() {
		now = time.Now()
	}
	return p.meta.Build(pageURL, now)
}

// The tree as the metadata reads it (meta.Tree).

// Elems is the number of elements of the tree.
func (d *doc) Elems() int { return len(d.elems) }

// Names is an element's class and id, "" when it has no text.
func (d *doc) Names(i int32) string {
	e := &d.elems[i]
	if e.runStart >= e.runEnd {
		return ""
	}
	return e.names
}

// H1 is the first visible <h1> with letters, -1 when there is none.
func (d *doc) H1() int32 {
	for i := range d.elems {
		e := &d.elems[i]
		if e.tag == atom.H1 && e.letters > 0 && e.flags&flagHidden == 0 && e.runStart < e.runEnd {
			return int32(i)
		}
	}
	return -1
}

// VisibleText is the page's visible text, read in place (not copied: the metadata
// scans it once per page): it is valid until the tree is released, and nothing
// that reads it keeps it.
func (d *doc) VisibleText() string { return unsafe.String(unsafe.SliceData(d.text), len(d.text)) }
func (d *doc) ElemText(i int32, max int) string {
	if i < 0 || int(i) >= len(d.elems) {
		return ""
	}
	e := &d.elems[i]
	var b []byte
	for _, r := range d.runs[e.runStart:e.runEnd] {
		b = append(b, d.runText(r)...)
		b = append(b, ' ')
		if len(b) > 4*max {
			break
		}
	}
	return textutil.ClipBytes(textutil.CollapseSpace(string(b)), max)
}

// ElemPos is where an element stands in the page's visible text: its first text, or
// the text after it when it has none.
func (d *doc) ElemPos(i int32) int {
	if i < 0 || int(i) >= len(d.elems) {
		return len(d.text)
	}
	if r := d.elems[i].runStart; int(r) < len(d.runs) {
		return int(d.runs[r].start)
	}
	return len(d.text)
}
