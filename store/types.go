package store

import (
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/store/identity"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Page is one fetched page. Body goes in uncompressed; the store compresses it and
// Store.Page gives it back uncompressed.
type Page struct {
	URL          string
	FetchedAt    time.Time
	Status       int
	ContentType  string
	Body         []byte
	Bytes        int64 // size as fetched; len(Body) when left 0
	Duration     time.Duration
	Lane         int
	Egress       string
	ETag         string
	LastModified string
	SimHash      uint64 // M2: SimHash of the main text
	FinalURL     string // after redirects; empty when equal to URL
	// Meta, when set, is the page's metadata (dates, headline, authors, language,
	// canonical URL), written with the page; reads leave it nil (Store.PageMeta).
	Meta *PageMeta
	// Revisit, when set, is the page's revisit state (M2), written in the same
	// transaction as the page.
	Revisit *Revisit
	// Capture, when set, is the exchange that fetched the page (its Body is the
	// page's Body), written in the same transaction and compressed once for both.
	Capture *Capture
	// Committed, when set, runs once the page is committed, before its LinkResults
	// and on the writer's goroutine like them (it must not block); never when its
	// write failed. The engine counts stored pages with it, so a page lost to a full
	// disk is never counted. Reads leave it nil.
	Committed func()
}

// LinkResult reports, for each URL given to AddURLs or SavePage, whether it was new
// (inserted) and the seq it got; seq is 0 when the URL was already known. It is
// called on the writer goroutine after the transaction committed, so it must not
// block and must not call the Store's write methods or Flush (the queue may be full).
// If the operation fails it is not called; Err reports the failure.
type LinkResult func(url string, inserted bool, seq int64)

// Event is one operator-visible event from the event log.
type Event struct {
	ID    int64     `json:"id"`
	At    time.Time `json:"at"`
	Level int       `json:"level"`
	Lane  int       `json:"lane"`
	Host  string    `json:"host"`
	Msg   string    `json:"msg"`
}

// Counts is a cheap summary of the store: URLs per state, pages and their sizes.
type Counts struct {
	Unprocessed     int64 `json:"unprocessed"`
	InProgress      int64 `json:"in_progress"`
	Processed       int64 `json:"processed"`
	Failed          int64 `json:"failed"`
	Deferred        int64 `json:"deferred"`
	URLs            int64 `json:"urls"`             // all URLs, any state
	Pages           int64 `json:"pages"`            // stored pages
	BytesStored     int64 `json:"bytes_stored"`     // page bodies as fetched
	BytesCompressed int64 `json:"bytes_compressed"` // page bodies as kept on disk
}

// Errors callers can test for with errors.Is.
var (
	// ErrInUse means another crawlconsole process has the database open.
	ErrInUse = errors.New("database is in use by another crawlconsole process")
	// ErrNotFound is model.ErrNotFound: the URL, page or meta key is not in the store.
	ErrNotFound = model.ErrNotFound
	// ErrClosed is recorded by writes submitted after Close.
	ErrClosed = errors.New("store is closed")
	// ErrNewerSchema means the database was written by a newer crawlconsole.
	ErrNewerSchema = identity.ErrNewerSchema
	// ErrNotOurs is returned for a SQLite file that is not a crawlconsole database.
	ErrNotOurs = identity.ErrNotOurs
	// ErrWithdrawnSchema means the database is at a schema version only a
	// development build wrote, whose layout no release reads.
	ErrWithdrawnSchema = errors.New("database schema version was withdrawn")
	// ErrNotDatabase means the file exists but is not an SQLite database.
	ErrNotDatabase = errors.New("not an SQLite database")
	// ErrReadOnly is recorded by the write methods of a store opened with OpenReadOnly.
	ErrReadOnly = errors.New("store is open read-only")
	// ErrOldSchema means OpenReadOnly found a database an older crawlconsole wrote: it
	// needs migrations, which only Open applies.
	ErrOldSchema = errors.New("database schema is older than this crawlconsole")
)

// InUseError is the error Open returns when the lock is held; it matches ErrInUse.
type InUseError struct {
	Path string
	PID  int // the holder's pid as written in the lock file; 0 when unknown
}

func (e *InUseError) Error() string {
	pid := "pid unknown"
	if e.PID > 0 {
		pid = fmt.Sprintf("pid %d", e.PID)
	}
	return fmt.Sprintf("database %s is in use by another crawlconsole process (%s); stop it or use another --db", e.Path, pid)
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// nanos is how times are stored: Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos is the inverse of nanos.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
