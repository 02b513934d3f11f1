package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
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
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations parses the embedded files, checking that versions run 1, 2, 3, ... with
// no gap or duplicate (a gap would mean a file was lost in a merge).
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
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this build writes: the newest migration.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate brings the database on conn up to the newest schema. Each step runs in its
// own transaction together with the PRAGMA user_version bump (the header write is
// transactional), so a crash mid-migration leaves the previous version intact and the
// step is simply retried on the next Open. It returns how many steps ran.
func migrate(ctx context.Context, conn *sql.Conn, dbPath string, ms []migration) (int, error) {
	var have int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return 0, fmt.Errorf("store: open %s: read schema version: %w", dbPath, err)
	}
	if have > len(ms) {
		return 0, fmt.Errorf("store: open %s: schema version %d, this crawlconsole knows up to %d: %w; upgrade crawlconsole",
			dbPath, have, len(ms), ErrNewerSchema)
	}
	ran := 0
	for _, m := range ms[have:] {
		if err := applyMigration(ctx, conn, m); err != nil {
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
