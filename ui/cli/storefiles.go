package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/store"
)

// unwritableAdvice is what to do about a store the crawl cannot write (a read-only
// disk or directory): "" for other errors.
func unwritableAdvice(err error) string {
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.EPERM) {
		return ""
	}
	return "; a crawl writes its store and a lock file beside it: give --db a path in a writable directory " +
		"(copy the store there to go on with it; crawlconsole stats, show and export read it where it is)"
}

// storeCounts reads the URL and page counts of the store at path, read-only; ok is
// false when there is none or it cannot be read.
func storeCounts(path string) (n store.Counts, ok bool) {
	if _, err := os.Stat(path); err != nil {
		return n, false
	}
	st, err := store.OpenReadOnly(path)
	if err != nil {
		return n, false
	}
	defer st.Close()
	n, err = st.Counts()
	return n, err == nil
}

// resumeCounts reads what an existing store at path holds before a crawl opens it
// for writing; ok is false for a new store, or one that cannot be read now (the
// start says why).
func resumeCounts(path string) (n store.Counts, ok bool) {
	if path == "" {
		return n, false
	}
	n, ok = storeCounts(path)
	return n, ok && n.URLs > 0
}

// resumeNote says what the store a crawl goes on with held (n, read before it was
// opened; "" without one). The operator who stopped a crawl sees that what it
// stored is kept and how much is left. requeued URLs had failed as ssrf_blocked and
// the store queued them again at its opening, to try under this run's
// --allow-private: they are left to fetch, not failed (counted as failed, a first
// crawl refused by the guard and started again with the flag would read "0 URLs
// left to fetch" and then fetch).
func resumeNote(path string, n store.Counts, ok bool, requeued int) string {
	if !ok {
		return ""
	}
	n.Unprocessed += int64(requeued)
	n.Failed = max(n.Failed-int64(requeued), 0)
	note := fmt.Sprintf("resuming the crawl in %s: %s stored (kept), %s left to fetch, %s done, %d failed or skipped",
		path, plural.Count(n.Pages, "page"), plural.Count(n.Unprocessed+n.InProgress, "URL"), plural.Count(n.Processed, "URL"), n.Failed)
	if requeued > 0 {
		note += fmt.Sprintf(" (%d refused by the SSRF guard before: tried again)", requeued)
	}
	if n.Deferred > 0 {
		// Left out of "left to fetch" (they are not due now), but not done either: a
		// crawl whose only URLs wait here read "0 URLs left to fetch" and looked finished.
		note += fmt.Sprintf(", %d deferred (fetched when due)", n.Deferred)
	}
	return note
}

// newFiles are the files a start may create beside a store that were not there
// before it: a start that fails removes them, so it leaves nothing behind (an empty
// a.db and a.db.lock after `crawl ftp://...`).
type newFiles []string

// absentFiles lists the store's files (the database, its WAL and lock, the
// credential and a master's NATS directory) not there now.
func absentFiles(db string) newFiles {
	if db == "" {
		return nil
	}
	var out newFiles
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", ".lock", ".token", ".nats"} {
		if _, err := os.Lstat(db + suffix); errors.Is(err, fs.ErrNotExist) {
			out = append(out, db+suffix)
		}
	}
	return out
}

// remove deletes those of the files that a failed start created.
func (f newFiles) remove() {
	for _, p := range f {
		os.RemoveAll(p)
	}
}
