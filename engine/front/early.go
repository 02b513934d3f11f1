package front

import (
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/store"
)

// An operator's new search or entry goes on the lane board when the command is
// given, not when the store's write batch that inserts it commits (up to
// store.Options.BatchDelay later, more under load): the new keyword's search is its
// lane's next fetch at once. The insert is submitted first, so every later write
// about the URL (in progress, its page, a deferral) reaches the single store writer
// after it.
//
// A URL is queued once. The store's unique index lets one insert of a URL through;
// its confirmation (Front.confirm) is what places a URL found any other way (a link,
// a round). So steering marks its new sources before it reads the store about them,
// and a confirmation that meets a mark either places the URL itself (steering has
// not yet: the mark says so, and steering leaves it) or places nothing (steering
// placed it already).

// earlyMark is where steering stands with one of its new sources (Front.early).
type earlyMark uint8

const (
	// earlyReserved: steering is reading the store about it and has not placed it.
	earlyReserved earlyMark = iota + 1
	// earlyTaken: an insert of it was confirmed meanwhile and placed it; steering
	// leaves it.
	earlyTaken
	// earlyPlaced: steering put it on the board; the confirmation of its insert
	// places nothing.
	earlyPlaced
)

// ReserveEarly marks sources before steering reads the store about them. One that
// an earlier command placed early, its insert not yet confirmed, is settled first:
// the store is flushed, so that it reads as known and is requeued, or left where it
// waits. (Today a source comes back only after a removal, and KeepSources flushes
// then already; this keeps "queued once, never lost" from resting on that.)
func (f *Front) ReserveEarly(urls []string) {
	f.Mu.Lock()
	pending := false
	for _, u := range urls {
		pending = pending || f.early[u] == earlyPlaced
	}
	f.Mu.Unlock()
	if pending {
		_ = f.Store.Flush() // a failed store stops the crawl; nothing to add here
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if f.early == nil {
		f.early = map[string]earlyMark{}
	}
	for _, u := range urls {
		if f.early[u] == 0 {
			f.early[u] = earlyReserved
		}
	}
}

// SettleEarly takes the marks off the sources the store knew (they are requeued, or
// queued already) and returns the new ones that nothing queued meanwhile: those
// steering inserts and places early.
func (f *Front) SettleEarly(urls []string, fresh []store.URL) []store.URL {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	isFresh := make(map[string]bool, len(fresh))
	for _, r := range fresh {
		isFresh[r.URL] = true
	}
	for _, u := range urls {
		if !isFresh[u] && f.early[u] != earlyPlaced {
			delete(f.early, u)
		}
	}
	kept := fresh[:0]
	for _, r := range fresh {
		if f.early[r.URL] == earlyTaken { // inserted and queued by a round or a link meanwhile
			delete(f.early, r.URL)
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// PlaceEarly puts steering's new sources on the board once their insert is
// submitted. One whose insert was confirmed already (a fast writer) was placed by
// that confirmation. A crawl whose queue spills to the store leaves them to the
// confirmation too (confirm decides what waits in memory), and so does a master
// (its workers' queues are its board).
func (f *Front) PlaceEarly(fresh []store.URL) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	spilled := f.q.spillFrom != 0 || f.queuedLen() >= f.Opts.QueueMemory || !f.crawl.PlacesEarly()
	for _, r := range fresh {
		switch f.early[r.URL] {
		case earlyReserved:
			if spilled {
				delete(f.early, r.URL)
				continue
			}
			f.early[r.URL] = earlyPlaced
			f.Counters.URLsQueued.Add(1)
			f.Place(TaskOf(r))
		case earlyTaken:
			delete(f.early, r.URL)
		}
	}
}

// confirmEarly is confirm's check of steering's marks: false when steering placed
// t already (nothing more to do). Lock held.
func (f *Front) confirmEarly(t frontier.Task) bool {
	switch f.early[t.URL] {
	case earlyReserved:
		f.early[t.URL] = earlyTaken
	case earlyPlaced:
		delete(f.early, t.URL)
		if f.q.spillFrom != 0 && t.Seq >= f.q.spillFrom {
			// The queue spilled while the insert was on its way: the store holds the
			// URL past the spill mark, and paging in queues it (again, if a page-in
			// read it already). One copy leaves the board: still waiting there, it
			// comes back with the spilled ones; taken by a lane already, it is no
			// longer queued in the store.
			n := 1
			f.crawl.TakeOff(func(q frontier.Task) bool {
				if q.URL != t.URL || n == 0 {
					return false
				}
				n--
				return true
			})
		}
		return false
	}
	return true
}

// DropEarly takes steering's marks off sources it will not queue (the store could
// not be read).
func (f *Front) DropEarly(urls []string) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	for _, u := range urls {
		if f.early[u] != earlyPlaced {
			delete(f.early, u)
		}
	}
}
