// Package upgrade reports the progress of a store upgrade step that copies or
// indexes a whole table: on a store of a million pages such a step runs for
// minutes, so the operator is told what it does and how far it got instead of
// being left before a silent terminal.
package upgrade

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Rebuild describes a migration that copies a whole table row by row: on a store of
// a million pages it runs for minutes, so Open says what it does and how far it got
// instead of leaving the operator before a silent terminal.
type Rebuild struct {
	What   string // what the step does, for the operator
	Unit   string // what a copied row is ("pages")
	Total  string // query: the rows to copy (at most: ids may have gaps)
	CopyTo string // the table the step fills, row by row
	Link   string // a table whose rows the step then updates, one per copied row ("" none)
	// With no CopyTo the step builds an index over total rows, which the update
	// hook does not see: only its start, its time and its end are reported.
	Linked string // what an update of link does ("URLs pointed at their page")
}

// Report thresholds, variables so that tests can see the lines on a small store.
var (
	// ReportRows is the smallest table whose rebuild is reported: below
	// it the step takes about a second or less.
	ReportRows int64 = 20_000
	// ReportEvery is how often a rebuild's progress is printed.
	ReportEvery = 5 * time.Second
)

// updateHooker is the driver connection's update hook (go-sqlite3's SQLiteConn).
type updateHooker interface {
	RegisterUpdateHook(func(op int, db, table string, rowid int64))
}

// Report prints one rebuild's progress to w: a line when it starts, one
// every ReportEvery, one when it is done.
type Report struct {
	w       io.Writer
	prefix  string // "store: upgrading PATH to schema N"
	rb      Rebuild
	total   int64
	start   time.Time
	copied  atomic.Int64
	updated atomic.Int64
	stop    chan struct{}
	done    sync.WaitGroup
}

// Start begins reporting rb, a step of the upgrade that prefix names ("store:
// upgrading PATH to schema N"), on conn when it rebuilds a table of at least
// ReportRows rows; nil otherwise (or when the driver has no update hook, or w is
// nil). Finish ends it.
func Start(ctx context.Context, conn *sql.Conn, w io.Writer, prefix string, rb Rebuild) *Report {
	if w == nil {
		return nil
	}
	var total int64
	if err := conn.QueryRowContext(ctx, rb.Total).Scan(&total); err != nil || total < ReportRows {
		return nil
	}
	r := &Report{w: w, prefix: prefix, rb: rb, total: total, start: time.Now(), stop: make(chan struct{})}
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
	fmt.Fprintf(w, "%s: %s, %s %s; this takes a while on a big store\n", r.prefix, rb.What, GroupDigits(total), rb.Unit)
	r.done.Add(1)
	go r.tick()
	return r
}

// count is the update hook: one row written by the step.
func (r *Report) count(_ int, _, table string, _ int64) {
	switch table {
	case r.rb.CopyTo:
		r.copied.Add(1)
	case r.rb.Link:
		r.updated.Add(1)
	}
}

// tick prints the progress every ReportEvery until finish.
func (r *Report) tick() {
	defer r.done.Done()
	t := time.NewTicker(ReportEvery)
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
func (r *Report) progress() string {
	copied, updated := r.copied.Load(), r.updated.Load()
	switch {
	case r.rb.CopyTo == "":
		return fmt.Sprintf("indexing %s %s", GroupDigits(r.total), r.rb.Unit)
	case updated == 0 && copied < r.total:
		return fmt.Sprintf("%s of %s %s copied (%d%%)", GroupDigits(copied), GroupDigits(r.total), r.rb.Unit, copied*100/r.total)
	case r.rb.Link != "" && updated < copied:
		return fmt.Sprintf("%s %s copied, %s of %s %s", GroupDigits(copied), r.rb.Unit, GroupDigits(updated), GroupDigits(copied), r.rb.Linked)
	default:
		return fmt.Sprintf("%s %s copied; freeing the old table and indexing the new one", GroupDigits(copied), r.rb.Unit)
	}
}

// Finish stops the report, removes the hook and says how the step ended.
func (r *Report) Finish(conn *sql.Conn, err error) {
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
	if r.rb.CopyTo == "" {
		fmt.Fprintf(r.w, "%s: done in %s\n", r.prefix, took)
		return
	}
	fmt.Fprintf(r.w, "%s: done in %s, %s %s copied\n", r.prefix, took, GroupDigits(r.copied.Load()), r.rb.Unit)
}

// GroupDigits writes n with thousands separators, as the console does.
func GroupDigits(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + GroupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
