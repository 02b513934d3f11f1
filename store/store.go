package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/store/identity"
	"github.com/crawlconsole/crawlconsole/store/internal/walvfs"
	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver (cgo)
)

// Store is an open crawl database. All methods are safe for concurrent use.
type Store struct {
	path      string
	opts      Options
	lock      *dbLock
	wdb       *sql.DB // one connection, owned by the writer goroutine
	rdb       *sql.DB // read-only pool
	w         *writer
	recovered int
	// inProgress are the rows Open found InProgress, as they were (at most
	// maxInProgressRows): a restarted master asks its workers about them.
	inProgress []URL
	// requeuedBlocked is how many URLs failed as ssrf_blocked went back to the queue
	// at Open.
	requeuedBlocked int

	mu       sync.RWMutex // orders write submissions against Close
	closed   bool
	readOnly bool // OpenReadOnly: no lock, no writer goroutine, only the read pool
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// Open opens the crawl database at path, creating it if missing: it takes the
// advisory lock (ErrInUse if another process holds it), applies pending migrations,
// switches to WAL, and puts every URL left InProgress by a previous run back to
// Unprocessed (see Recovered). A file that is not an SQLite database is refused and
// left untouched.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.WithDefaults()
	if err := checkPath(path); err != nil {
		return nil, err
	}
	lock, err := acquireLock(path)
	if err != nil {
		return nil, err
	}
	if err := identity.Check(path, dsn(path, "mode=ro&_busy_timeout=5000"), SchemaVersion()); err != nil { // before anything in the file changes
		lock.release()
		return nil, err
	}
	s := &Store{path: path, opts: opts, lock: lock}
	if err := s.open(); err != nil {
		s.closeConns()
		lock.release()
		return nil, err
	}
	return s, nil
}

// checkPath gives a clear error for a path SQLite would reject with "unable to open
// database file", and refuses to touch a file that is not a database.
func checkPath(path string) error {
	if path == "" {
		return errors.New("store: open: empty database path")
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: open %s: directory %s does not exist", path, dir)
		}
		return fmt.Errorf("store: open %s: %w", path, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("store: open %s: %s is not a directory", path, dir)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new database
	}
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("store: open %s: is a directory", path)
	}
	if fi.Size() == 0 {
		return nil // SQLite treats an empty file as a new database
	}
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteHeader) {
		return fmt.Errorf("store: open %s: %w (the file was left untouched)", path, ErrNotDatabase)
	}
	return nil
}

// dsn builds a go-sqlite3 URI for path. The path is percent-escaped where a URI would
// misread it (%, ?, #).
func dsn(path string, params string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?" + params
}

// open sets up the connections, schema, recovery and writer.
func (s *Store) open() error {
	ctx := context.Background()
	busy := s.opts.BusyTimeout.Milliseconds()
	// WAL: readers never block the writer nor the writer them, and a commit is one
	// append to the log. synchronous=NORMAL: in WAL mode a commit is not fsynced,
	// only checkpoints are; a commit is still atomic and survives a killed process
	// (it is in the OS's page cache), and only a power loss or kernel crash can roll
	// back the last few commits — never corrupt the file. FULL would fsync every
	// batch and cost milliseconds each for no gain against kill -9.
	// _mutex=no: the one write connection is only ever used by one goroutine at a
	// time (database/sql hands it out once; the writer holds it through Conn.Raw), so
	// SQLite's per-connection mutex, taken and released by every bind, step and
	// reset (some 200 times a stored page), guards nothing.
	// The write connection's VFS hands a commit's WAL frames to the kernel in one
	// write (store/internal/walvfs).
	params := fmt.Sprintf("_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=%d&_foreign_keys=1&_cache_size=-%d&_mutex=no",
		busy, s.opts.CacheMiB*1024)
	if vfs := walvfs.Name(); vfs != "" {
		params += "&vfs=" + vfs
	}
	var err error
	s.wdb, err = sql.Open("sqlite3", dsn(s.path, params))
	if err != nil {
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetConnMaxIdleTime(0)
	conn, err := s.wdb.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		conn.Close()
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	if mode != "wal" {
		conn.Close()
		return fmt.Errorf("store: open %s: journal mode is %q, want wal", s.path, mode)
	}
	// temp_store=MEMORY: statements that may abort half-way inside our batch
	// transaction (every insert can hit a constraint) keep a statement journal of the
	// pages they touch; on disk that was ~40 KB of temp-file writes per stored page, in
	// memory it is a memcpy. wal_autocheckpoint=4096 pages (16 MiB, default 4 MiB): a
	// checkpoint copies each page once however often batches rewrote it, and its fsync
	// stalls the writer, so fewer larger ones cut both (measured ~35% faster writes).
	// journal_size_limit: the WAL file shrinks back after a burst is checkpointed.
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 4096; "+
		"PRAGMA journal_size_limit = 67108864"); err != nil {
		conn.Close()
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	ms, err := migrations()
	if err == nil {
		err = prepareSchema(ctx, conn, s.path, ms, s.opts.Progress)
	}
	if err == nil { // ours from now on (a file from before application_id gets it here)
		_, err = conn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", identity.ApplicationID))
	}
	if err != nil {
		conn.Close()
		return err
	}
	// Crash recovery: a URL InProgress was handed to a lane by a process that is gone
	// (we hold the lock), so its fetch never committed — put it back in the queue.
	// Lanes still open died with that process too.
	s.inProgress, err = readInProgress(ctx, conn)
	var res sql.Result
	if err == nil {
		res, err = conn.ExecContext(ctx, `UPDATE urls SET state = 0 WHERE state = 1`)
	}
	if err == nil {
		n, _ := res.RowsAffected()
		s.recovered = int(n)
		_, err = conn.ExecContext(ctx, `UPDATE lanes SET retired_at = ? WHERE retired_at = 0`, time.Now().UnixNano())
	}
	if err == nil {
		// A URL the SSRF guard refused failed by policy, not for anything of its
		// own: it is queued again at every start, so that a restart with the
		// --allow-private the warning advised fetches it (refused again, it fails
		// again at no request's cost).
		if res, err = conn.ExecContext(ctx, `UPDATE urls SET state = 0, err_kind = ''
			WHERE state = 3 AND err_kind = 'ssrf_blocked'`); err == nil {
			n, _ := res.RowsAffected()
			s.requeuedBlocked = int(n)
		}
	}
	if err == nil {
		// A URL deferred because its site's robots.txt did not answer, or led to
		// a host the operator holds (KindRobotsHeld), waited for the answer of a
		// robots cache this process starts without: it is due at once, so that
		// its robots.txt is asked again soon rather than after the last run's
		// backoff (up to an hour). Deferrals kept for their own reason (a disabled
		// host, a budget, a Retry-After) keep their time.
		_, err = conn.ExecContext(ctx, `UPDATE urls SET deferred_until = 0
			WHERE state = 4 AND err_kind IN ('robots_unreachable', '`+KindRobotsHeld+`') AND deferred_until > 0`)
	}
	if err != nil {
		conn.Close()
		return fmt.Errorf("store: open %s: recover: %w", s.path, err)
	}
	s.rdb, err = sql.Open("sqlite3", dsn(s.path, fmt.Sprintf("mode=ro&_busy_timeout=%d", busy)))
	if err == nil {
		s.rdb.SetMaxOpenConns(s.opts.ReadConns)
		err = s.rdb.PingContext(ctx)
	}
	if err != nil {
		conn.Close()
		return fmt.Errorf("store: open %s: read pool: %w", s.path, err)
	}
	var st *statements
	err = conn.Raw(func(dc any) error {
		rc, err := asRawConn(dc)
		if err == nil {
			st, err = prepareStatements(ctx, rc)
		}
		return err
	})
	if err != nil {
		conn.Close()
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	s.w = &writer{
		ctx:       ctx,
		conn:      conn,
		st:        st,
		ops:       make(chan *writeOp, s.opts.QueueSize),
		done:      make(chan struct{}),
		failed:    make(chan struct{}),
		size:      s.opts.BatchSize,
		delay:     s.opts.BatchDelay,
		maxEvents: s.opts.MaxEvents,
	}
	go s.w.run()
	return nil
}

// Path is the database file's path as given to Open.
func (s *Store) Path() string { return s.path }

// maxInProgressRows bounds the rows InProgress keeps: a master holds its window of
// URLs per worker in progress, a crawl on one box its lanes'.
const maxInProgressRows = 1 << 16

// readInProgress reads the InProgress rows (maxInProgressRows at most, by seq).
func readInProgress(ctx context.Context, conn *sql.Conn) ([]URL, error) {
	rows, err := conn.QueryContext(ctx, `SELECT `+urlColumns+` FROM urls WHERE state = 1 ORDER BY seq LIMIT ?`, maxInProgressRows)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []URL
	for rows.Next() {
		u, err := scanURL(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// InProgress are the URLs Open found InProgress (put back to Unprocessed), as they
// were, by seq: a master restarted on its database takes back from its workers
// those they still hold (at most 65,536; the rest are only queued again).
func (s *Store) InProgress() []URL { return s.inProgress }

// Recovered is how many URLs Open found InProgress (left by a killed or crashed run)
// and put back to Unprocessed.
func (s *Store) Recovered() int { return s.recovered }

// RequeuedBlocked is how many URLs that failed as ssrf_blocked (the SSRF guard
// refused their address) Open queued again, to be tried under this run's policy.
func (s *Store) RequeuedBlocked() int { return s.requeuedBlocked }

// Close commits everything queued, closes the database and releases the lock. It
// returns the first write error of the store's life, if any, joined with any close
// error. Writes submitted after Close are dropped and recorded as ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.readOnly {
		s.mu.Unlock()
		return s.closeConns()
	}
	close(s.w.ops)
	s.mu.Unlock()
	<-s.w.done
	errs := []error{s.w.firstErr(), s.w.closeErr, s.w.conn.Close()}
	errs = append(errs, s.closeConns(), s.lock.release())
	return errors.Join(errs...)
}

// closeConns closes both pools; the read pool first, so the writer's close is the
// last connection and SQLite checkpoints and removes the WAL.
func (s *Store) closeConns() error {
	var errs []error
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	return errors.Join(errs...)
}
