// Package verdicts is a master's book of the render verdicts its workers learned
// (M4 with engine/render): kept in the store, given to every worker at join.
package verdicts

import (
	"encoding/json"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/render/learned"
)

// Meta is the part of the store the book reads the last run's verdicts from; the
// master passes its store, and the book's package links no SQLite. A nil Meta is
// none: the book starts empty.
type Meta interface {
	GetMeta(key string) ([]byte, error)
}

// Book is a master's copy of the render verdicts its workers learned (each
// rendering page's result says its section's verdict): kept in the store at the
// front's stop as a one-box crawl keeps its decider's, and given to every worker
// at join, so that a restarted crawl, or a host dealt to another worker, is not
// learned again. The zero book is ready for use, and safe for concurrent use.
type Book struct {
	once sync.Once
	mu   sync.Mutex
	m    learned.Verdicts
}

// maxBookVerdicts bounds the book (render's own bound on its sections) and what a
// join reply carries of it: a section key is some 40 bytes of JSON, and a reply
// is at most wire.MaxMessage (1 MiB).
const maxBookVerdicts = 10000

// load reads the last run's verdicts from st (none: nil), once.
func (b *Book) load(st Meta) {
	b.once.Do(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.m = learned.Verdicts{}
		if st == nil {
			return
		}
		if raw, err := st.GetMeta(learned.Key); err == nil {
			var vs learned.Verdicts
			if json.Unmarshal(raw, &vs) == nil {
				for k, v := range vs {
					if len(b.m) >= maxBookVerdicts {
						break
					}
					b.m[k] = v
				}
			}
		}
	})
}

// Note keeps the verdict a worker's render taught its section.
func (b *Book) Note(st Meta, rd *fetch.Rendering) {
	if rd == nil || rd.Section == "" || len(rd.Section) > 300 {
		return
	}
	b.load(st)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[rd.Section]; ok || len(b.m) < maxBookVerdicts {
		b.m[rd.Section] = rd.Dynamic
	}
}

// Snapshot is a copy of the book with the last run's verdicts read from st
// (nil when empty).
func (b *Book) Snapshot(st Meta) map[string]bool {
	b.load(st)
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.m) == 0 {
		return nil
	}
	out := make(map[string]bool, len(b.m))
	for k, v := range b.m {
		out[k] = v
	}
	return out
}
