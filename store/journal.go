package store

import (
	"slices"
	"strconv"
	"time"
)

// The crawl's journal: the lanes' history, the operator events and the small
// key/value space. These rows are about the crawl itself, not about a URL or a page,
// so they are written apart from the frontier's and the pages' writes (writes.go),
// through the same writer and in the same order.

// LaneOpened records that lane id opened on egress (M1 lane history). A lane of the
// same id still open is retired first: lane numbers are reused.
func (s *Store) LaneOpened(id int, egress string, at time.Time) {
	s.submit(&writeOp{what: "open lane", key: strconv.Itoa(id), apply: func(w *writer) (func(), error) {
		if _, err := w.exec(w.st.retireLane, nanos(at), 0, id); err != nil {
			return nil, err
		}
		_, err := w.exec(w.st.openLane, id, nanos(at), egress)
		return nil, err
	}})
}

// LaneRetired records that lane id ran dry and retired after fetching pages pages.
func (s *Store) LaneRetired(id int, at time.Time, pages int64) {
	s.submit(&writeOp{what: "retire lane", key: strconv.Itoa(id), apply: func(w *writer) (func(), error) {
		_, err := w.exec(w.st.retireLane, nanos(at), pages, id)
		return nil, err
	}})
}

// AddEvent appends an operator event to the log (pruned to Options.MaxEvents).
func (s *Store) AddEvent(at time.Time, level int, lane int, host, msg string) {
	s.submit(&writeOp{what: "add event", key: host, apply: func(w *writer) (func(), error) {
		w.eventsAdded++
		_, err := w.exec(w.st.insertEvent, nanos(at), level, lane, host, msg)
		return nil, err
	}})
}

// SetMeta queues storing v under key in the small key/value space other subsystems
// use; GetMeta sees it once a Flush returned.
func (s *Store) SetMeta(key string, v []byte) {
	v = slices.Clone(v)
	s.submit(&writeOp{what: "set meta", key: key, apply: func(w *writer) (func(), error) {
		_, err := w.exec(w.st.setMeta, key, v)
		return nil, err
	}})
}
