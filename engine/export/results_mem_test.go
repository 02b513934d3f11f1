package export_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

// heapAtFirstWrite records the live heap when the export first writes: a page line
// larger than the export's buffer is written while the export is among its pages.
type heapAtFirstWrite struct {
	heap  uint64
	lines strings.Builder
}

func (w *heapAtFirstWrite) Write(p []byte) (int, error) {
	if w.heap == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.heap = ms.HeapAlloc
	}
	return w.lines.Write(p)
}

// TestJSONLResultsHeldPerBatch: the export of the last hour of a long crawl holds
// the round results of the pages it writes, not the results table: 100,000 results
// of earlier pages are not in memory while it writes, and the page it exports
// still carries its own.
func TestJSONLResultsHeldPerBatch(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const earlier = 100_000
	results := make([]store.Result, 0, earlier+1)
	for i := range earlier {
		results = append(results, store.Result{URL: fmt.Sprintf("http://a.test/2026/10/%d/an-earlier-story-of-the-harbor", i),
			Site: "harbor", Keyword: fmt.Sprintf("keyword-of-the-harbor-desk-%06d", i), Kind: "news", Host: "a.test", FetchedAt: at})
	}
	// A page whose line is larger than the export's 256 KiB buffer: its line is
	// written while the export holds what it read for its batch.
	body := "<html><body><p>flood " + strings.Repeat("the harbor wall held and ", 16<<10) + "</p></body></html>"
	late := "http://a.test/2026/11/01/flood"
	storedPage(st, late, []byte(body), at.Add(time.Hour))
	results = append(results, store.Result{URL: late, Site: "harbor", Keyword: "flood", Kind: "news", Host: "a.test", FetchedAt: at.Add(time.Hour)})
	st.SaveRound(at.Add(2*time.Hour), results, nil)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	results = nil
	ro, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var w heapAtFirstWrite
	rep, err := export.JSONL(ro, &w, export.JSONLOptions{Since: at.Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 1 {
		t.Fatalf("%d pages exported, want the one fetched after --since", rep.Pages)
	}
	var l export.PageLine
	if err := json.Unmarshal([]byte(w.lines.String()), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Results) != 1 || l.Results[0] != "harbor:flood" {
		t.Errorf("results %v, want [harbor:flood]", l.Results)
	}
	// The page's line itself is about 400 KiB held twice (text and its JSON); the
	// earlier results, read whole, are over 20 MB.
	if grew := int64(w.heap) - int64(before); grew > 8<<20 {
		t.Errorf("heap grew %d MB by the first write, want under 8 MB: the export holds more than its batch's results", grew>>20)
	}
	t.Logf("heap grew %d KB by the first write", (int64(w.heap)-int64(before))>>10)
}
