package frontier

import (
	"math/bits"
	"unsafe"
)

// recentHashes is the dedupe's LRU of recently recorded URL hashes: a fixed number of
// entries in one array, linked in recency order by index, and an open-addressing table
// of their indices. A page's links are checked against it one after another, each a
// likely miss in a general-purpose LRU (a map bucket, then a list element of its own
// on the heap); here an entry is 16 bytes beside the others, the table 4 bytes a slot,
// nothing is allocated after construction, and the collector has no pointer to follow
// in either.
type recentHashes struct {
	entries []recentEntry
	slots   []int32 // entry index + 1; 0: empty
	mask    uint64  // len(slots) - 1
	head    int32   // most recent entry; -1 when empty
	tail    int32   // least recent
}

type recentEntry struct {
	hash       uint64
	prev, next int32 // toward head, toward tail; -1 at either end
}

// newRecentHashes holds up to size hashes (size >= 1).
func newRecentHashes(size int) *recentHashes {
	// At most half the slots in use: linear probes stay short.
	n := 1 << bits.Len(uint(2*size-1))
	return &recentHashes{entries: make([]recentEntry, 0, size), slots: make([]int32, n), mask: uint64(n - 1), head: -1, tail: -1}
}

// Len is the number of hashes held.
func (r *recentHashes) Len() int { return len(r.entries) }

// slot is where h's probe sequence starts. The hashes are already well mixed, but
// their top bits pick the dedupe's shard, so the low bits pick the slot.
func (r *recentHashes) slot(h uint64) uint64 { return h & r.mask }

// find returns h's entry index, or -1.
func (r *recentHashes) find(h uint64) int32 {
	for i := r.slot(h); ; i = (i + 1) & r.mask {
		e := r.slots[i]
		if e == 0 {
			return -1
		}
		if r.entries[e-1].hash == h {
			return e - 1
		}
	}
}

// Contains says whether h is held, without touching the order.
func (r *recentHashes) Contains(h uint64) bool { return r.find(h) >= 0 }

// Add records h as the most recent hash and says whether it was held already. When
// full, a new hash takes the least recent one's place.
func (r *recentHashes) Add(h uint64) (present bool) {
	if e := r.find(h); e >= 0 {
		r.moveToFront(e)
		return true
	}
	var e int32
	if len(r.entries) < cap(r.entries) {
		e = int32(len(r.entries))
		r.entries = append(r.entries, recentEntry{})
	} else {
		e = r.tail
		r.unlink(e)
		r.remove(r.entries[e].hash)
	}
	r.entries[e].hash = h
	r.pushFront(e)
	i := r.slot(h)
	for r.slots[i] != 0 {
		i = (i + 1) & r.mask
	}
	r.slots[i] = e + 1
	return false
}

// remove takes h's slot out of the table, shifting back the entries after it in its
// run that would no longer be found past the gap (no tombstones to pile up).
func (r *recentHashes) remove(h uint64) {
	i := r.slot(h)
	for r.entries[r.slots[i]-1].hash != h {
		i = (i + 1) & r.mask
	}
	for j := (i + 1) & r.mask; r.slots[j] != 0; j = (j + 1) & r.mask {
		// The entry at j may fill the gap at i if its home slot is not in (i, j].
		if home := r.slot(r.entries[r.slots[j]-1].hash); (j-home)&r.mask >= (j-i)&r.mask {
			r.slots[i] = r.slots[j]
			i = j
		}
	}
	r.slots[i] = 0
}

func (r *recentHashes) moveToFront(e int32) {
	if r.head == e {
		return
	}
	r.unlink(e)
	r.pushFront(e)
}

func (r *recentHashes) unlink(e int32) {
	p, n := r.entries[e].prev, r.entries[e].next
	if p >= 0 {
		r.entries[p].next = n
	} else {
		r.head = n
	}
	if n >= 0 {
		r.entries[n].prev = p
	} else {
		r.tail = p
	}
}

func (r *recentHashes) pushFront(e int32) {
	r.entries[e].prev, r.entries[e].next = -1, r.head
	if r.head >= 0 {
		r.entries[r.head].prev = e
	} else {
		r.tail = e
	}
	r.head = e
}

// bytes is what r holds on the heap, all of it made at construction.
func (r *recentHashes) bytes() uint64 {
	return uint64(cap(r.entries))*uint64(unsafe.Sizeof(recentEntry{})) + uint64(len(r.slots))*4
}
