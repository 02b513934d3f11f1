package verdicts

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/render/learned"
)

// meta is a store's meta table in memory (the engine's tests read the verdicts
// back from a real store after a crawl).
type meta map[string][]byte

func (m meta) GetMeta(key string) ([]byte, error) {
	if v, ok := m[key]; ok {
		return v, nil
	}
	return nil, errors.New("not found")
}

// TestBookStartsFromTheLastRunAndStaysBounded: a restarted master gives its
// workers what the last run's workers learned (read from the store), and its book
// stays within what a join reply can carry however many sections the workers
// report: a full book still takes a new verdict for a section it has, and a
// section key too long to be one is ignored.
func TestBookStartsFromTheLastRunAndStaysBounded(t *testing.T) {
	last, _ := json.Marshal(learned.Verdicts{"shop.test/app": true})
	st := meta{learned.Key: last}

	var b Book
	if got := b.Snapshot(st); !got["shop.test/app"] || len(got) != 1 {
		t.Fatalf("a restarted master's book = %v, want the last run's shop.test/app: true", got)
	}
	for i := 0; i < maxBookVerdicts-1; i++ { // the last run's section fills the last place
		b.Note(st, &fetch.Rendering{Section: fmt.Sprintf("host%d.test/", i), Dynamic: i%2 == 0})
	}
	b.Note(st, &fetch.Rendering{Section: "one-too-many.test/", Dynamic: true})
	b.Note(st, &fetch.Rendering{Section: "shop.test/app", Dynamic: false})
	b.Note(st, &fetch.Rendering{Section: "long.test/" + strings.Repeat("x", 300), Dynamic: true})
	got := b.Snapshot(st)
	if len(got) != maxBookVerdicts {
		t.Fatalf("the book holds %d sections, want at most %d", len(got), maxBookVerdicts)
	}
	if _, ok := got["one-too-many.test/"]; ok {
		t.Error("a full book took a new section")
	}
	if v, ok := got["shop.test/app"]; !ok || v {
		t.Errorf("shop.test/app = %v (kept %v), want the workers' new verdict false", v, ok)
	}
}

// TestBookWithoutAStoreStartsEmpty: a book with no store (nothing kept)
// snapshots as nil, which a join reply leaves out, and keeps what the workers
// teach it.
func TestBookWithoutAStoreStartsEmpty(t *testing.T) {
	var b Book
	if got := b.Snapshot(nil); got != nil {
		t.Fatalf("empty book = %v, want nil", got)
	}
	b.Note(nil, nil)
	b.Note(nil, &fetch.Rendering{})
	if got := b.Snapshot(nil); got != nil {
		t.Fatalf("after renders that taught nothing, book = %v, want nil", got)
	}
	b.Note(nil, &fetch.Rendering{Section: "shop.test/app", Dynamic: true})
	if got := b.Snapshot(nil); !got["shop.test/app"] || len(got) != 1 {
		t.Fatalf("the book after a worker's render = %v, want shop.test/app: true", got)
	}
}
