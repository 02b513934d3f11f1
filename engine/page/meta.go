package page

import (
	"time"
	"unsafe"

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

// metaTree is the tree as the metadata reads it (meta.Tree), built in the doc's
// buffers: the visible text read in place (not copied: the metadata scans it once
// per page), valid until the tree is released, and nothing that reads it keeps it.
func (d *doc) metaTree() *meta.Tree {
	t := &d.mt
	t.Text = unsafe.String(unsafe.SliceData(d.text), len(d.text))
	t.Runs = t.Runs[:0]
	for _, r := range d.runs {
		t.Runs = append(t.Runs, meta.Span{Start: r.start, End: r.end, Brk: r.brk})
	}
	t.Elems = t.Elems[:0]
	for i := range d.elems {
		e := &d.elems[i]
		t.Elems = append(t.Elems, meta.Elem{Names: e.names, RunStart: e.runStart, RunEnd: e.runEnd})
	}
	t.H1s = d.h1s(t.H1s[:0])
	t.H1 = -1
	if len(t.H1s) > 0 {
		t.H1 = t.H1s[0]
	}
	return t
}

// h1s appends the first visible <h1>s with letters (at most meta.MaxH1s).
func (d *doc) h1s(out []int32) []int32 {
	for i := range d.elems {
		e := &d.elems[i]
		if e.tag == atom.H1 && e.letters > 0 && e.flags&flagHidden == 0 && e.runStart < e.runEnd {
			if out = append(out, int32(i)); len(out) == meta.MaxH1s {
				break
			}
		}
	}
	return out
}
