package store

import "time"

// A lane's InProgress mark and the page it then saves usually fall in the same
// batch, and a transaction's steps are seen by no reader before it commits: the mark
// is held back (starts) and the page's "processed" update counts the attempt itself,
// one UPDATE of the URL's row and of its state index instead of two. A mark still
// held at COMMIT is written before it, and any other write to the same URL writes it
// first, so what a reader or a crash finds is what writing every mark would leave.

// startMark is a SetState(url, InProgress, ...) not written yet.
type startMark struct {
	lane    int
	errKind string
	at      int64 // unix ns of the SetState, the row's updated_at
}

// holdStart keeps an InProgress mark for url back; a mark already held for it is
// written first (each one counts an attempt).
func (w *writer) holdStart(url string, m startMark) error {
	if err := w.writeStart(url); err != nil {
		return err
	}
	if w.starts == nil {
		w.starts = make(map[string]startMark)
	}
	w.starts[url] = m
	return nil
}

// takeStart removes and returns url's held mark, if any.
func (w *writer) takeStart(url string) (startMark, bool) {
	m, ok := w.starts[url]
	if ok {
		delete(w.starts, url)
	}
	return m, ok
}

// writeStart writes url's held mark, if any, before another write to the URL.
func (w *writer) writeStart(url string) error {
	m, ok := w.takeStart(url)
	if !ok {
		return nil
	}
	_, err := w.exec(w.st.setState, int(InProgress), m.lane, m.errKind, m.at, url)
	return err
}

// writeStarts writes every held mark (before COMMIT).
func (w *writer) writeStarts() error {
	for url := range w.starts {
		if err := w.writeStart(url); err != nil {
			return err
		}
	}
	return nil
}

// nowNanos is the time a write records in updated_at.
func nowNanos() int64 { return time.Now().UnixNano() }
