package revisit

import (
	"container/heap"
	"sync"
	"time"
)

// MemStore is an in-memory Store: an indexed binary min-heap on (next, url) with a map
// from URL to heap slot. Set costs O(log n) per URL; Due(m) walks the heap
// best-first with a side heap of candidates, O(m log m) however many pages there are,
// so a tick stays cheap with millions of pages. Safe for concurrent use.
type MemStore struct {
	mu sync.Mutex
	h  entryHeap
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{h: entryHeap{slot: make(map[string]int)}}
}

// Set inserts url or moves it to next.
func (m *MemStore) Set(url string, next time.Time) {
	m.mu.Lock()
	m.setLocked(url, next)
	m.mu.Unlock()
}

func (m *MemStore) setLocked(url string, next time.Time) {
	nanos := next.UnixNano()
	if m.h.slot == nil {
		m.h.slot = make(map[string]int)
	}
	if i, ok := m.h.slot[url]; ok {
		m.h.items[i].next = nanos
		heap.Fix(&m.h, i)
		return
	}
	heap.Push(&m.h, memEntry{url: url, next: nanos})
}

// Remove drops url (a page that left the crawl).
func (m *MemStore) Remove(url string) {
	m.mu.Lock()
	if i, ok := m.h.slot[url]; ok {
		heap.Remove(&m.h, i)
	}
	m.mu.Unlock()
}

// Next returns url's due time and whether it is present.
func (m *MemStore) Next(url string) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, ok := m.h.slot[url]
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, m.h.items[i].next).UTC(), true
}

// Len returns the number of pages held.
func (m *MemStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.h.items)
}

// Due returns the first limit entries by ascending next.
func (m *MemStore) Due(limit int) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	items := m.h.items
	if limit <= 0 || len(items) == 0 {
		return nil, nil
	}
	out := make([]Entry, 0, min(limit, len(items)))
	// Best-first walk: the side heap holds slots of the main heap whose parents were
	// already emitted; its minimum is the next smallest entry overall.
	side := slotHeap{items: items, slots: []int{0}}
	for len(out) < limit && len(side.slots) > 0 {
		i := heap.Pop(&side).(int)
		e := items[i]
		out = append(out, Entry{URL: e.url, Next: time.Unix(0, e.next).UTC()})
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(items) {
				heap.Push(&side, c)
			}
		}
	}
	return out, nil
}

// memEntry is one page in the heap; next is Unix nanoseconds.
type memEntry struct {
	url  string
	next int64
}

// less orders entries by next, then URL, so ties come out in a stable order.
func (a memEntry) less(b memEntry) bool {
	if a.next != b.next {
		return a.next < b.next
	}
	return a.url < b.url
}

// entryHeap is the main heap; it keeps slot (URL → index) up to date on every move.
type entryHeap struct {
	items []memEntry
	slot  map[string]int
}

func (h *entryHeap) Len() int           { return len(h.items) }
func (h *entryHeap) Less(i, j int) bool { return h.items[i].less(h.items[j]) }
func (h *entryHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.slot[h.items[i].url] = i
	h.slot[h.items[j].url] = j
}
func (h *entryHeap) Push(x any) {
	e := x.(memEntry)
	h.slot[e.url] = len(h.items)
	h.items = append(h.items, e)
}
func (h *entryHeap) Pop() any {
	last := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	delete(h.slot, last.url)
	return last
}

// slotHeap orders slots of the main heap by their entries, for Due's walk.
type slotHeap struct {
	items []memEntry
	slots []int
}

func (s *slotHeap) Len() int           { return len(s.slots) }
func (s *slotHeap) Less(i, j int) bool { return s.items[s.slots[i]].less(s.items[s.slots[j]]) }
func (s *slotHeap) Swap(i, j int)      { s.slots[i], s.slots[j] = s.slots[j], s.slots[i] }
func (s *slotHeap) Push(x any)         { s.slots = append(s.slots, x.(int)) }
func (s *slotHeap) Pop() any {
	x := s.slots[len(s.slots)-1]
	s.slots = s.slots[:len(s.slots)-1]
	return x
}
