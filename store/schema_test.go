package store

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSchema = flag.Bool("update-schema", false,
	"write migrations/schema.sql, the schema a new database is made with, from the migrations' end")

// schemaHeader opens migrations/schema.sql; SQLite keeps no comment outside a statement.
const schemaHeader = `-- The schema a new crawlconsole database is made with, in one step: what the
-- numbered migrations beside it make, in the order SQLite lists it, written by
-- go test ./store -run TestANewDatabaseHasTheMigratedSchema -update-schema
-- after a new migration. Never edited by hand: the test fails if it and the
-- migrations' end differ. The migrations say why each table and column is so.

`

// A new database is made from migrations/schema.sql in one step; it must be exactly
// what every migration in turn makes of an empty file, or a database's layout would
// depend on the version it was created at.
func TestANewDatabaseHasTheMigratedSchema(t *testing.T) {
	migrated := oldDB(t, filepath.Join(t.TempDir(), "migrated.db"), SchemaVersion())
	if *updateSchema {
		if err := os.WriteFile("migrations/schema.sql", []byte(schemaHeader+schemaScript(t, migrated)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("wrote migrations/schema.sql: check it and run the test again")
	}
	s, path := openTemp(t, Options{})
	s.Close()
	created := rawDB(t, path)
	want, got := schemaFacts(t, migrated), schemaFacts(t, created)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a new database differs from the migrations' end (run go test ./store -run %s -update-schema "+
			"after adding a migration, never edit migrations/schema.sql):\n%s", t.Name(), lineDiff(want, got))
	}
}

// schemaFacts lists what makes a database's schema: its version, every row of
// sqlite_master in order (tables, indexes, SQLite's own, triggers, views, each with its
// statement), and every row its tables hold (a migration may write one, as meta's).
func schemaFacts(t *testing.T, db *sql.DB) []string {
	t.Helper()
	facts := []string{fmt.Sprintf("user_version %d", queryInt(t, db, "PRAGMA user_version"))}
	objects := schemaObjects(t, db)
	for _, o := range objects {
		facts = append(facts, fmt.Sprintf("%s %s on %s: %s", o.typ, o.name, o.table, o.stmt))
	}
	for _, o := range objects {
		for _, values := range tableValues(t, db, o) {
			facts = append(facts, fmt.Sprintf("row of %s: %s", o.name, values))
		}
	}
	return facts
}

// schemaScript is the script that makes db's schema and rows again: its statements
// in sqlite_master's order (the objects SQLite makes by itself aside), then its rows.
func schemaScript(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	objects := schemaObjects(t, db)
	for _, o := range objects {
		if o.stmt != "" && !strings.HasPrefix(o.name, "sqlite_") {
			b.WriteString(o.stmt + ";\n\n")
		}
	}
	for _, o := range objects {
		for _, values := range tableValues(t, db, o) {
			fmt.Fprintf(&b, "INSERT INTO %s VALUES(%s);\n", o.name, values)
		}
	}
	return b.String()
}

// schemaObject is one row of sqlite_master.
type schemaObject struct{ typ, name, table, stmt string }

// schemaObjects lists db's sqlite_master in order, a statement SQLite keeps none
// of (an automatic index) as "".
func schemaObjects(t *testing.T, db *sql.DB) []schemaObject {
	t.Helper()
	rows, err := db.Query("SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.stmt); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tableValues lists the rows of o if it is a table, each as its values quoted for
// SQL, in order.
func tableValues(t *testing.T, db *sql.DB, o schemaObject) []string {
	t.Helper()
	if o.typ != "table" {
		return nil
	}
	table := o.name
	var cols []string
	rows, err := db.Query("SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, fmt.Sprintf("quote(%q)", c))
	}
	rows.Close()
	rows, err = db.Query(fmt.Sprintf("SELECT %s FROM %q ORDER BY 1", strings.Join(cols, " || ', ' || "), table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// lineDiff shows the lines of want missing from got and those of got not in want.
func lineDiff(want, got []string) string {
	in := func(s string, list []string) bool {
		for _, l := range list {
			if l == s {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	for _, l := range want {
		if !in(l, got) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range got {
		if !in(l, want) {
			b.WriteString("+ " + l + "\n")
		}
	}
	if b.Len() == 0 {
		b.WriteString("the same lines in another order")
	}
	return b.String()
}
