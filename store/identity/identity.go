// Package identity tells whether an existing SQLite file is a crawlconsole database
// this build can open, by reading its header and tables before the store changes
// anything in it: the store's Open refuses another application's file and a newer
// schema here, so neither is switched to WAL nor migrated.
package identity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// ApplicationID marks a SQLite file as a crawlconsole database ("crcw" in the
// header's application_id), so a file of another application is recognised before
// anything in it changes. The store writes it into every database it creates.
const ApplicationID = 0x63726377

var (
	// ErrNotOurs is returned for a SQLite file that is not a crawlconsole database.
	ErrNotOurs = errors.New("not a crawlconsole database")
	// ErrNewerSchema means the database was written by a newer crawlconsole.
	ErrNewerSchema = errors.New("database schema is newer than this crawlconsole")
)

// ourTables are the tables a crawlconsole database from before application_id holds.
var ourTables = []string{"pages", "urls"}

// Check looks at an existing database file read-only, before Open switches it to
// WAL or migrates it: another application's file (a foreign application_id, or no
// id and tables that are not ours) and a file of a newer schema than known are
// refused, and the file stays byte for byte as it was. A missing or empty file is a
// new database. dsn is the read-only data source name the store built for path (its
// escaping is the store's); the caller registers the "sqlite3" driver.
func Check(path, dsn string, known int) error {
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return nil
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	ctx := context.Background()
	var app, version int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	switch {
	case app == ApplicationID:
	case app != 0:
		return fmt.Errorf("store: open %s: %w (its application_id is %#x): give --db a new path", path, ErrNotOurs, app)
	default:
		tables, err := tableNames(ctx, db)
		if err != nil {
			return fmt.Errorf("store: open %s: %w", path, err)
		}
		if len(tables) > 0 && !ours(tables) {
			return fmt.Errorf("store: open %s: %w (it holds tables %s): give --db a new path", path, ErrNotOurs,
				strings.Join(tables, ", "))
		}
	}
	if int(version) > known {
		return fmt.Errorf("store: open %s: schema version %d, this crawlconsole knows up to %d: %w; upgrade crawlconsole",
			path, version, known, ErrNewerSchema)
	}
	return nil
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, rows.Err()
}

// ours says whether tables are a crawlconsole database's from before application_id.
func ours(tables []string) bool {
	for _, t := range ourTables {
		if _, found := sort.Find(len(tables), func(i int) int { return strings.Compare(t, tables[i]) }); !found {
			return false
		}
	}
	return true
}
