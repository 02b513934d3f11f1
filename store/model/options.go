package model

import (
	"io"
	"os"
	"time"
)

// Options tunes a Store. The zero value gives the documented defaults.
type Options struct {
	// BatchSize is how many queued write operations the writer groups into one
	// transaction at most. Default 512.
	BatchSize int
	// BatchDelay is how long the writer keeps a transaction open waiting for more
	// operations once the first arrived; Flush and Close commit at once. Default 20ms.
	BatchDelay time.Duration
	// QueueSize is how many write operations may wait for the writer; beyond that the
	// write methods block (back-pressure rather than unbounded memory). Default
	// 4*BatchSize.
	QueueSize int
	// ReadConns caps the read-only connection pool. Default 4.
	ReadConns int
	// MaxEvents is how many of the newest events are kept; older ones are pruned.
	// Default 100,000.
	MaxEvents int
	// BusyTimeout is how long a connection waits on a lock held inside SQLite (e.g. a
	// checkpoint) before failing. Default 5s.
	BusyTimeout time.Duration
	// CacheMiB is the writer connection's page cache in MiB. Default 8.
	//
	// Bigger is not faster here: when a B-tree page splits, SQLite renumbers pages
	// through a temporary page number far past the end of the file, and the next
	// COMMIT then walks the whole page cache to drop pages past the end
	// (pcache1TruncateUnsafe): a cost per batch that grows with the cache. At 32 MiB
	// that walk was 3% of a crawl's CPU; the store bench's CPU per record was no
	// better at 32 than at 4 or 8 (209 and 201 µs against 183–200).
	CacheMiB int
	// Progress is where Open reports a schema upgrade that copies a whole table:
	// what it does when it starts, how far it got every few seconds, and when it
	// is done. On a store of a million pages such a step takes minutes. Default
	// os.Stderr; io.Discard silences it. Tables under 20,000 rows are not reported.
	Progress io.Writer
}

// WithDefaults fills every unset field; this is the one place defaults live.
func (o Options) WithDefaults() Options {
	if o.BatchSize <= 0 {
		o.BatchSize = 512
	}
	if o.BatchDelay <= 0 {
		o.BatchDelay = 20 * time.Millisecond
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 4 * o.BatchSize
	}
	if o.ReadConns <= 0 {
		o.ReadConns = 4
	}
	if o.MaxEvents <= 0 {
		o.MaxEvents = 100_000
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.CacheMiB <= 0 {
		o.CacheMiB = 8
	}
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	return o
}
