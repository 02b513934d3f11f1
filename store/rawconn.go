package store

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
)

// The writer drives its connection through the driver's own interfaces
// (database/sql/driver) rather than database/sql: every statement of a batch would
// otherwise go through database/sql's argument conversion (a reflective check and a
// copy of each argument, about 3.7 KB allocated per stored page) and its per-call
// locking, for a connection nobody else uses. The connection is reached with
// sql.Conn.Raw, whose callback holds it for as long as the writer runs, so
// database/sql never touches it meanwhile; the statements prepared on it are used
// only inside such callbacks.

// rawConn is what the writer needs of its driver connection.
type rawConn interface {
	driver.ExecerContext
	driver.ConnPrepareContext
}

// asRawConn checks that the driver's connection offers what the writer needs.
func asRawConn(dc any) (rawConn, error) {
	rc, ok := dc.(rawConn)
	if !ok {
		return nil, fmt.Errorf("store: the sqlite3 driver's connection (%T) cannot run statements directly", dc)
	}
	return rc, nil
}

// named binds args by position, reusing the writer's slice. The driver takes
// int64, float64, bool, string, []byte and nil; an int is widened to int64 here so
// that callers can pass lanes and counts as they are, and anything else goes through
// database/sql's default conversion (named types such as State). With sparse, zero
// values (nil, "", 0, false, +0.0) are left out: see execSparse.
func (w *writer) named(args []any, sparse bool) []driver.NamedValue {
	nv := w.args[:0]
	for i, a := range args {
		switch v := a.(type) {
		case int:
			a = int64(v)
		case nil, int64, float64, bool, string, []byte:
		default:
			if c, err := driver.DefaultParameterConverter.ConvertValue(a); err == nil {
				a = c
			}
		}
		if sparse && isZero(a) {
			continue
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
	w.args = nv
	return nv
}

// isZero reports whether v is a zero value that execSparse leaves unbound.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case int64:
		return x == 0
	case string:
		return x == ""
	case bool:
		return !x
	case float64:
		return x == 0 && !math.Signbit(x)
	case []byte:
		return x == nil
	}
	return false
}

// exec runs a statement prepared on the writer's connection.
func (w *writer) exec(s driver.Stmt, args ...any) (driver.Result, error) {
	return w.execArgs(s, args, false)
}

// execSparse is exec for a statement whose parameters were written by sparseParams:
// a zero value is not bound at all. The driver clears every parameter to NULL
// before binding a statement's values, and the statement reads a NULL as the
// parameter's zero value, so the row written is the same. Binding a value costs a
// cgo call, and a text a copy the statement allocates and frees; a first crawl's
// page row, revisit state and exchange have a dozen or two empty or zero columns.
func (w *writer) execSparse(s driver.Stmt, args ...any) (driver.Result, error) {
	return w.execArgs(s, args, !bindZeros)
}

// bindZeros makes execSparse bind every value, as exec does, and write bind them
// through exec's path, one at a time: tests compare the rows written either way.
var bindZeros = false

func (w *writer) execArgs(s driver.Stmt, args []any, sparse bool) (driver.Result, error) {
	x, ok := s.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("store: the sqlite3 driver's statement cannot be executed with a context")
	}
	res, err := x.ExecContext(w.ctx, w.named(args, sparse))
	clear(w.args) // drop references to the page's strings and body
	return res, err
}

// write runs a prepared insert or update whose result the writer does not need
// through the driver's query path, which resets the statement, binds every value
// and steps it in one cgo call, copying texts and blobs into a buffer the statement
// keeps. exec's path takes a cgo call for each value bound and has SQLite copy each
// text and blob into an allocation of its own; a stored page binds some 70 values.
// Every value is bound, zeros too (binding one costs no crossing here), so the row
// written is the one exec would write.
func (w *writer) write(s driver.Stmt, args ...any) error {
	if bindZeros {
		_, err := w.execArgs(s, args, false)
		return err
	}
	q, ok := s.(driver.StmtQueryContext)
	if !ok {
		return errors.New("store: the sqlite3 driver's statement cannot be queried with a context")
	}
	rows, err := q.QueryContext(w.ctx, w.named(args, false))
	clear(w.args) // drop references to the page's strings and body
	if err != nil {
		return err
	}
	return rows.Close()
}

// execSQL runs query once (not prepared: rare writes).
func (w *writer) execSQL(query string, args ...any) (driver.Result, error) {
	res, err := w.dc.ExecContext(w.ctx, query, w.named(args, false))
	clear(w.args)
	return res, err
}

// queryInt64 runs a prepared query that selects one integer and returns it, with
// found false when no row came back.
func (w *writer) queryInt64(s driver.Stmt, args ...any) (v int64, found bool, err error) {
	var dest [1]int64
	found, err = w.queryInts(s, dest[:], args...)
	return dest[0], found, err
}

// queryInts runs a prepared statement that returns one row of integers (a SELECT, or
// a write with RETURNING) and reads its first len(dest) columns into dest, with found
// false when no row came back. NULL reads as 0.
func (w *writer) queryInts(s driver.Stmt, dest []int64, args ...any) (found bool, err error) {
	q, ok := s.(driver.StmtQueryContext)
	if !ok {
		return false, errors.New("store: the sqlite3 driver's statement cannot be queried with a context")
	}
	rows, err := q.QueryContext(w.ctx, w.named(args, false))
	clear(w.args)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	if len(vals) < len(dest) {
		return false, fmt.Errorf("store: query returned %d columns, want %d", len(vals), len(dest))
	}
	if err := rows.Next(vals); err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	for i := range dest {
		switch x := vals[i].(type) {
		case int64:
			dest[i] = x
		case nil:
			dest[i] = 0
		default:
			return false, fmt.Errorf("store: query returned %T in column %d, want an integer", x, i+1)
		}
	}
	return true, nil
}
