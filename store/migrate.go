package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFiles holds the schema history. Each later mechanism (DNS cache, egress
// accounts, revisit state, ...) adds the next numbered file, NNNN_name.sql; files are
// never edited once released, so a database's version says exactly which ran.
//
//go:embed migrations/[0-9]*.sql
var migrationFiles embed.FS

// newestSchema is the schema the migrations end at, in one script: a new database
// is made from it in one step, where running every migration in turn takes some
// 7 ms more CPU an open (a crawl's tests open hundreds of new stores). Written from
// the migrated schema by TestANewDatabaseHasTheMigratedSchema -update-schema, which
// also holds the two equal.
//
//go:embed migrations/schema.sql
var newestSchema string

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// withdrawnVersions are schema versions no release writes: a development build used
// 13 and 14 for pages and revisit rows keyed by their URL's row id, a layout then
// taken back. The numbering skips them so that such a store is never taken for one
// at this layout's version; Open refuses it instead (withdrawnErr).
var withdrawnVersions = map[int]bool{13: true, 14: true}

// migrations parses the embedded files, checking that versions run 1, 2, 3, ... with
// no gap or duplicate but the withdrawn versions (a gap would mean a file was lost in
// a merge).
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || path.Ext(name) != ".sql" {
			return nil, fmt.Errorf("store: migration file %q is not named NNNN_name.sql", name)
		}
		body, err := fs.ReadFile(migrationFiles, "migrations/"+name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	want := 1
	for _, m := range ms {
		for withdrawnVersions[want] {
			want++
		}
		if m.version != want {
			return nil, fmt.Errorf("store: migration %s: expected version %d", m.name, want)
		}
		want++
	}
	return ms, nil
}

// SchemaVersion is the schema version this build writes: the newest migration.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// withdrawnErr refuses a store at a withdrawn schema version, saying what to do.
func withdrawnErr(dbPath string, version int) error {
	return fmt.Errorf("store: open %s: schema version %d was written by a development build whose layout was withdrawn, "+
		"and this crawlconsole cannot convert it: %w; crawl into a new --db path (the build that made this file can still read it)",
		dbPath, version, ErrWithdrawnSchema)
}

// prepareSchema brings the database on conn to the newest schema: a new one (no
// version, nothing in it) from newestSchema in one step, an existing one through
// its pending migrations (see migrate).
func prepareSchema(ctx context.Context, conn *sql.Conn, dbPath string, ms []migration, report io.Writer) error {
	var version, objects int
	err := conn.QueryRowContext(ctx, "SELECT (SELECT user_version FROM pragma_user_version), "+
		"(SELECT COUNT(*) FROM sqlite_master)").Scan(&version, &objects)
	if err != nil {
		return fmt.Errorf("store: open %s: read schema version: %w", dbPath, err)
	}
	if version != 0 || objects != 0 || len(ms) == 0 {
		_, err = migrate(ctx, conn, dbPath, ms, report)
		return err
	}
	if err := applyMigration(ctx, conn, migration{version: ms[len(ms)-1].version, sql: newestSchema}); err != nil {
		return fmt.Errorf("store: open %s: create the schema: %w", dbPath, err)
	}
	return nil
}

// migrate brings the database on conn up to the newest schema. Each step runs in its
// own transaction together with the PRAGMA user_version bump (the header write is
// transactional), so a crash mid-migration leaves the previous version intact and the
// step is simply retried on the next Open. A step that copies a big table reports
// its progress to report (nil: silent). It returns how many steps ran.
func migrate(ctx context.Context, conn *sql.Conn, dbPath string, ms []migration, report io.Writer) (int, error) {
	var have int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return 0, fmt.Errorf("store: open %s: read schema version: %w", dbPath, err)
	}
	newest := 0
	if len(ms) > 0 {
		newest = ms[len(ms)-1].version
	}
	if have > newest {
		return 0, fmt.Errorf("store: open %s: schema version %d, this crawlconsole knows up to %d: %w; upgrade crawlconsole",
			dbPath, have, newest, ErrNewerSchema)
	}
	if withdrawnVersions[have] {
		return 0, withdrawnErr(dbPath, have)
	}
	ran := 0
	for _, m := range ms {
		if m.version <= have {
			continue
		}
		r := startReport(ctx, conn, report, dbPath, m)
		err := applyMigration(ctx, conn, m)
		r.Finish(conn, err)
		if err != nil {
			return ran, fmt.Errorf("store: open %s: migration %s: %w", dbPath, m.name, err)
		}
		ran++
	}
	return ran, nil
}

// applyMigration runs one step and records its version, atomically.
func applyMigration(ctx context.Context, conn *sql.Conn, m migration) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	if _, err := conn.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	// PRAGMA takes no bound parameters; the version is an int we parsed.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}
