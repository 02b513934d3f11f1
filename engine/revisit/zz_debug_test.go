package revisit

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

func TestDebugOne(t *testing.T) {
	f, _ := os.Open(os.Getenv("PAGE"))
	zr, _ := gzip.NewReader(f)
	b, _ := io.ReadAll(zr)
	d := parseDoc(b)
	t.Logf("elems %d runs %d", len(d.elems), len(d.runs))
	paras := d.paragraphs()
	d.sumFigures(paras)
	d.markNamedChrome()
	rem := d.removable()
	top := d.scoreCandidates(paras, rem)
	t.Logf("top %d %+v", top, d.elems[top])
	for a := top; a >= 0; a = d.elems[a].parent {
		t.Logf("  anc %d %s %q rem=%v letters=%d para=%d score=%.1f", a, d.elems[a].tag, d.elems[a].names, rem[a], d.elems[a].letters, d.elems[a].paraLetters, d.elems[a].score)
	}
	tx := extract(parseDoc(b))
	t.Logf("title %q fallback %v body:\n%s", tx.Title, tx.Fallback, tx.Body)
}
