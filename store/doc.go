// Package store is crawlconsole's crash-safe SQLite store: every URL the frontier
// discovers, every fetched page (compressed), each page's revisit state (M2), the lane
// history (M1) and the operator events live here, so that a crawl killed at any
// moment resumes where it stopped.
//
// Writes are asynchronous and go through one writer goroutine that owns the only write
// connection and groups queued operations into batched transactions; a page, its URL's
// state change, its revisit state and the links it discovered always commit together.
// Reads use a separate read-only connection pool and never wait for the writer (WAL).
//
// Crash safety rests on three things: SQLite's WAL journal (a commit is atomic and
// survives kill -9), the unique index on urls.url with the page id its row keeps
// (nothing is stored twice, whatever is replayed after a restart), and Open putting URLs that were in
// progress back into the queue. An advisory lock next to the database keeps a second
// crawlconsole process out.
package store
