package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
	"golang.org/x/sys/unix"
)

// OpenReadOnly opens an existing crawl database for reading only, without taking the
// lock: it works while another process is crawling into the file (WAL lets readers in
// beside the writer, each reading the last committed state) and never changes its
// contents (on a database no crawl has open, SQLite may leave the empty -wal and -shm
// companion files a WAL reader needs). No migrations run and nothing is recovered, so
// a URL a running crawl is fetching shows as in progress. The write methods record
// ErrReadOnly; Flush returns it.
func OpenReadOnly(path string) (*Store, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{path: path, opts: Options{}.WithDefaults(), readOnly: true, w: &writer{}}
	var err error
	s.rdb, err = sql.Open("sqlite3", dsn(path, fmt.Sprintf("mode=ro&_busy_timeout=%d", s.opts.BusyTimeout.Milliseconds())))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s.rdb.SetMaxOpenConns(s.opts.ReadConns)
	var have int
	if err := s.rdb.QueryRowContext(context.Background(), "PRAGMA user_version").Scan(&have); err != nil {
		s.rdb.Close()
		// A WAL reader needs the -shm file, which a read-only directory (a mounted
		// snapshot, a copy on read-only media) cannot hold: SQLite says "unable to open
		// database file: no such file or directory" of a file that is there. With no
		// log left beside it, everything committed is in the file itself: read it as
		// immutable. Only there: an immutable open reads without locks, so where a
		// crawl can be writing (a writable directory) or on any other error (busy, I/O)
		// it would read pages half-written; those errors are returned.
		var se sqlite3.Error
		if !errors.As(err, &se) || se.Code != sqlite3.ErrCantOpen || unix.Access(filepath.Dir(path), unix.W_OK) == nil {
			return nil, fmt.Errorf("store: open %s read-only: %w", path, err)
		}
		if fi, werr := os.Stat(path + "-wal"); werr == nil && fi.Size() > 0 {
			return nil, fmt.Errorf("store: open %s read-only: %w (its -wal holds commits not yet in the file and its -shm cannot be made: open it where it can be written, or copy the database, -wal included, to a writable directory)", path, err)
		}
		s.rdb, err = sql.Open("sqlite3", dsn(path, "mode=ro&immutable=1"))
		if err != nil {
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
		s.rdb.SetMaxOpenConns(s.opts.ReadConns)
		if err2 := s.rdb.QueryRowContext(context.Background(), "PRAGMA user_version").Scan(&have); err2 != nil {
			s.rdb.Close()
			return nil, fmt.Errorf("store: open %s read-only: %w", path, err)
		}
	}
	switch want := SchemaVersion(); {
	case withdrawnVersions[have]:
		s.rdb.Close()
		return nil, withdrawnErr(path, have)
	case have < want:
		s.rdb.Close()
		return nil, fmt.Errorf("store: open %s read-only: %w (version %d, this program's is %d); open it with Open to migrate", path, ErrOldSchema, have, want)
	case have > want:
		s.rdb.Close()
		return nil, fmt.Errorf("store: open %s: %w (version %d, this program's is %d): use a newer crawlconsole", path, ErrNewerSchema, have, want)
	}
	return s, nil
}
