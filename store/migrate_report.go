package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// rebuild describes a migration that copies a whole table row by row: on a store of
// a million pages it runs for minutes, so Open says what it does and how far it got
// instead of leaving the operator before a silent terminal.
type rebuild struct {
	what   string // what the step does, for the operator
	unit   string // what a copied row is ("pages")
	total  string // query: the rows to copy (at most: ids may have gaps)
	copyTo string // the table the step fills, row by row
	link   string // a table whose rows the step then updates, one per copied row ("" none)
	// With no copyTo the step builds an index over total rows, which the update
	// hook does not see: only its start, its time and its end are reported.
	linked string // what an update of link does ("URLs pointed at their page")
}

// rebuilds are the migrations that copy a table, by version. The update hook
// counts their rows as SQLite writes them (a cgo callback a row: a second or so a
// million rows, against minutes for the step).
var rebuilds = map[int]rebuild{
	15: {
		what:   "moving the pages into a table where each URL's row finds its page by id",
		unit:   "pages",
		total:  `SELECT COALESCE(MAX(id), 0) FROM pages`,
		copyTo: "pages_by_row",
		link:   "urls",
		linked: "URLs pointed at their page",
	},
	17: {
		what:  "indexing the exchanges stored so far by their URL's text, apart from the new ones",
		unit:  "exchanges",
		total: `SELECT COALESCE(MAX(id), 0) FROM captures`,
	},
	18: {
		what:   "moving the pages' revisit states into a table keyed by their URL's row",
		unit:   "revisit states",
		total:  `SELECT COUNT(*) FROM revisit`,
		copyTo: "revisit_by_seq",
	},
}

// Report thresholds, variables so that tests can see the lines on a small store.
var (
	// migrationReportRows is the smallest table whose rebuild is reported: below
	// it the step takes about a second or less.
	migrationReportRows int64 = 20_000
	// migrationReportEvery is how often a rebuild's progress is printed.
	migrationReportEvery = 5 * time.Second
)

// updateHooker is the driver connection's update hook (go-sqlite3's SQLiteConn).
type updateHooker interface {
	RegisterUpdateHook(func(op int, db, table string, rowid int64))
}

// migrationReport prints one rebuild's progress to w: a line when it starts, one
// every migrationReportEvery, one when it is done.
type migrationReport struct {
	w       io.Writer
	prefix  string // "store: upgrading PATH to schema N"
	rb      rebuild
	total   int64
	start   time.Time
	copied  atomic.Int64
	updated atomic.Int64
	stop    chan struct{}
	done    sync.WaitGroup
}

// startReport begins reporting migration m on conn when it rebuilds a table of at
// least migrationReportRows rows; nil otherwise (or when the driver has no update
// hook, or w is nil). finish ends it.
func startReport(ctx context.Context, conn *sql.Conn, w io.Writer, dbPath string, m migration) *migrationReport {
	rb, ok := rebuilds[m.version]
	if !ok || w == nil {
		return nil
	}
	var total int64
	if err := conn.QueryRowContext(ctx, rb.total).Scan(&total); err != nil || total < migrationReportRows {
		return nil
	}
	r := &migrationReport{w: w, prefix: fmt.Sprintf("store: upgrading %s to schema %d", dbPath, m.version),
		rb: rb, total: total, start: time.Now(), stop: make(chan struct{})}
	hooked := false
	_ = conn.Raw(func(dc any) error {
		if h, ok := dc.(updateHooker); ok {
			h.RegisterUpdateHook(r.count)
			hooked = true
		}
		return nil
	})
	if !hooked {
		return nil
	}
	fmt.Fprintf(w, "%s: %s, %s %s; this takes a while on a big store\n", r.prefix, rb.what, groupDigits(total), rb.unit)
	r.done.Add(1)
	go r.tick()
	return r
}

// count is the update hook: one row written by the step.
func (r *migrationReport) count(_ int, _, table string, _ int64) {
	switch table {
	case r.rb.copyTo:
		r.copied.Add(1)
	case r.rb.link:
		r.updated.Add(1)
	}
}

// tick prints the progress every migrationReportEvery until finish.
func (r *migrationReport) tick() {
	defer r.done.Done()
	t := time.NewTicker(migrationReportEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			fmt.Fprintf(r.w, "%s: %s, %s so far\n", r.prefix, r.progress(), time.Since(r.start).Round(time.Second))
		}
	}
}

// progress says how far the step got: copying, updating the linked rows, or past
// both (dropping the old table and indexing the new one, which the hook does not see).
func (r *migrationReport) progress() string {
	copied, updated := r.copied.Load(), r.updated.Load()
	switch {
	case r.rb.copyTo == "":
		return fmt.Sprintf("indexing %s %s", groupDigits(r.total), r.rb.unit)
	case updated == 0 && copied < r.total:
		return fmt.Sprintf("%s of %s %s copied (%d%%)", groupDigits(copied), groupDigits(r.total), r.rb.unit, copied*100/r.total)
	case r.rb.link != "" && updated < copied:
		return fmt.Sprintf("%s %s copied, %s of %s %s", groupDigits(copied), r.rb.unit, groupDigits(updated), groupDigits(copied), r.rb.linked)
	default:
		return fmt.Sprintf("%s %s copied; freeing the old table and indexing the new one", groupDigits(copied), r.rb.unit)
	}
}

// finish stops the report, removes the hook and says how the step ended.
func (r *migrationReport) finish(conn *sql.Conn, err error) {
	if r == nil {
		return
	}
	close(r.stop)
	r.done.Wait()
	_ = conn.Raw(func(dc any) error {
		if h, ok := dc.(updateHooker); ok {
			h.RegisterUpdateHook(nil)
		}
		return nil
	})
	took := time.Since(r.start).Round(100 * time.Millisecond)
	if err != nil {
		fmt.Fprintf(r.w, "%s: failed after %s, rolled back (the store is as it was): %v\n", r.prefix, took, err)
		return
	}
	if r.rb.copyTo == "" {
		fmt.Fprintf(r.w, "%s: done in %s\n", r.prefix, took)
		return
	}
	fmt.Fprintf(r.w, "%s: done in %s, %s %s copied\n", r.prefix, took, groupDigits(r.copied.Load()), r.rb.unit)
}

// groupDigits writes n with thousands separators, as the console does.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
