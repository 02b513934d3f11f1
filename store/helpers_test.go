package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// openTemp opens a fresh store in a test directory, closed at cleanup.
func openTemp(t *testing.T, opts Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// reopen opens the store at path again (one a test closed, or a database it wrote
// in an older schema for the store to upgrade), closed at cleanup.
func reopen(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open %s: %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// poisonedPath returns the path of a new, closed store whose database refuses to
// insert the URL http://poison.test/ (a trigger aborts the insert): a write that
// inserts it fails, standing in for any failure inside a write.
func poisonedPath(t *testing.T) string {
	t.Helper()
	s, path := openTemp(t, Options{})
	s.Close()
	db := rawDB(t, path)
	if _, err := db.Exec(`CREATE TRIGGER poison BEFORE INSERT ON urls WHEN NEW.url = 'http://poison.test/'
		BEGIN SELECT RAISE(ABORT, 'poisoned'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

// openPoisoned opens a store at poisonedPath with opts, closed with the test, and
// returns it and its path.
func openPoisoned(t *testing.T, opts Options) (*Store, string) {
	t.Helper()
	path := poisonedPath(t)
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// mustFlush fails the test if the writer reported an error.
func mustFlush(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// rawDB opens the database file directly, bypassing the store (and its lock).
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn(path, "_busy_timeout=5000"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// oldDB makes a database at path in the schema of version (its migrations up to it,
// none after) and returns it opened directly, as rawDB does, to write rows of that
// schema before the store opens it.
func oldDB(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	db := rawDB(t, path)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ms, _ := migrations()
	n := slices.IndexFunc(ms, func(m migration) bool { return m.version == version }) + 1
	if n == 0 {
		t.Fatalf("no migration to version %d", version)
	}
	if _, err := migrate(context.Background(), conn, path, ms[:n], nil); err != nil {
		t.Fatal(err)
	}
	return db
}

// queryer is a *sql.DB or *sql.Conn.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, db queryer, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// testURL is a frontier task for host h, number i.
func testURL(h string, i int) URL {
	return URL{URL: fmt.Sprintf("http://%s/p/%d", h, i), Host: h, ParentHash: uint64(i) * 0x9E3779B97F4A7C15, Depth: 1}
}

// testPage is a page for u with an HTML body of about n bytes.
func testPage(u string, n int) Page {
	body := []byte("<!doctype html><html><head><title>t</title></head><body>")
	for i := 0; len(body) < n; i++ {
		body = fmt.Appendf(body, "<p>paragraph %d of %s with some words</p><a href=\"/p/%d\">link</a>\n", i, u, i)
	}
	return Page{URL: u, FetchedAt: time.Unix(1_700_000_000, 123456789), Status: 200,
		ContentType: "text/html", Body: body, Duration: 42 * time.Millisecond, Lane: 3,
		Egress: "bind:127.0.0.2", ETag: `"abc"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT",
		SimHash: 0xFEDCBA9876543210, FinalURL: u + "?final"}
}

// linkLog collects LinkResult calls; only the writer goroutine appends, the test reads
// after Flush (which orders the two).
type linkLog struct {
	calls []linkCall
}

type linkCall struct {
	url      string
	inserted bool
	seq      int64
}

func (l *linkLog) record(url string, inserted bool, seq int64) {
	l.calls = append(l.calls, linkCall{url, inserted, seq})
}

// beforePageRow turns a store back into what the schemas before 0015 had: pages
// found by a unique index on their URL's text, no page column on urls. Tests that
// fake a store older than 15 run it first, so that 0015 runs again on open.
var beforePageRow = strings.NewReplacer("pages_by_row", "pages_old",
	"url            TEXT    NOT NULL REFERENCES", "url            TEXT    NOT NULL UNIQUE REFERENCES").
	Replace(createTable("0015_pages_found_by_url_row.sql", "pages_by_row", ");")) + `
INSERT INTO pages_old SELECT * FROM pages;
DROP TABLE pages;
ALTER TABLE pages_old RENAME TO pages;
CREATE INDEX pages_fetch ON pages(fetched_at, bytes, stored_bytes);
ALTER TABLE urls DROP COLUMN page;`

// beforeCaptureSeq turns a store back into what the schemas before 0017 had:
// captures found by their URL's text alone, no seq column. Tests that fake a store
// older than 17 run it first, so that 0017 runs again on open.
const beforeCaptureSeq = `DROP INDEX captures_seq;
DROP INDEX captures_url;
ALTER TABLE captures DROP COLUMN seq;
CREATE INDEX captures_url ON captures(url, payload_digest);`

// beforeRevisitSeq turns a store back into what the schemas before 0018 had: revisit
// rows keyed by their URL's text (WITHOUT ROWID), the due order's index on next alone.
// Tests that fake a store older than 18 run it first, so that 0018 runs again on open.
const beforeRevisitSeq = `CREATE TABLE revisit_old (
    url      TEXT    NOT NULL PRIMARY KEY,
    class    TEXT    NOT NULL DEFAULT '',
    first    INTEGER NOT NULL DEFAULT 0,
    t        INTEGER NOT NULL DEFAULT 0,
    x        INTEGER NOT NULL DEFAULT 1,
    last     INTEGER NOT NULL DEFAULT 0,
    next     INTEGER NOT NULL DEFAULT 0,
    hash     INTEGER NOT NULL DEFAULT 0,
    has_hash INTEGER NOT NULL DEFAULT 0,
    fetches  INTEGER NOT NULL DEFAULT 0,
    distance INTEGER NOT NULL DEFAULT -1,
    freq     REAL    NOT NULL DEFAULT 0,
    price    REAL    NOT NULL DEFAULT 0,
    policy   BLOB,
    fresh REAL NOT NULL DEFAULT -1, age REAL NOT NULL DEFAULT 0, behind INTEGER NOT NULL DEFAULT 0,
    has_change INTEGER NOT NULL DEFAULT 0, text_digest INTEGER NOT NULL DEFAULT 0,
    title_digest INTEGER NOT NULL DEFAULT 0, page_digest INTEGER NOT NULL DEFAULT 0,
    fallback INTEGER NOT NULL DEFAULT 0, reason INTEGER NOT NULL DEFAULT 0,
    change_at INTEGER NOT NULL DEFAULT 0, change_distance INTEGER NOT NULL DEFAULT -1,
    change_reason INTEGER NOT NULL DEFAULT 0, prev_text TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
INSERT INTO revisit_old SELECT url, class, first, t, x, last, next, hash, has_hash, fetches, distance,
    freq, price, policy, fresh, age, behind, has_change, text_digest, title_digest, page_digest,
    fallback, reason, change_at, change_distance, change_reason, prev_text FROM revisit;
DROP TABLE revisit;
ALTER TABLE revisit_old RENAME TO revisit;
CREATE INDEX revisit_next ON revisit(next);
CREATE INDEX revisit_behind ON revisit(url) WHERE behind = 1;`

// beforeFold turns a store back into what the schemas before 0011 had: the change
// signal in its own table revisit_change and the metadata in page_meta (rows moved
// there), no such columns on revisit and pages. Tests that fake an older store run
// it before lowering user_version, so that 0011 runs again on open.
var beforeFold = oldTable("0007_change_signal.sql", "revisit_change") + `
INSERT INTO revisit_change SELECT url, text_digest, title_digest, page_digest, fallback, reason,
    change_at, change_distance, change_reason, prev_text FROM revisit WHERE has_change = 1;
ALTER TABLE revisit DROP COLUMN has_change;
ALTER TABLE revisit DROP COLUMN text_digest;
ALTER TABLE revisit DROP COLUMN title_digest;
ALTER TABLE revisit DROP COLUMN page_digest;
ALTER TABLE revisit DROP COLUMN fallback;
ALTER TABLE revisit DROP COLUMN reason;
ALTER TABLE revisit DROP COLUMN change_at;
ALTER TABLE revisit DROP COLUMN change_distance;
ALTER TABLE revisit DROP COLUMN change_reason;
ALTER TABLE revisit DROP COLUMN prev_text;
` + oldTable("0009_page_meta.sql", "page_meta") + `
INSERT INTO page_meta SELECT url, published, published_from, published_at, modified, modified_from, headline, headline_from, authors, authors_from, language, language_from, canonical, canonical_from
    FROM pages WHERE published != '' OR modified != '' OR headline != '' OR authors != ''
    OR language != '' OR canonical != '';
ALTER TABLE pages DROP COLUMN published;
ALTER TABLE pages DROP COLUMN published_from;
ALTER TABLE pages DROP COLUMN published_at;
ALTER TABLE pages DROP COLUMN modified;
ALTER TABLE pages DROP COLUMN modified_from;
ALTER TABLE pages DROP COLUMN headline;
ALTER TABLE pages DROP COLUMN headline_from;
ALTER TABLE pages DROP COLUMN authors;
ALTER TABLE pages DROP COLUMN authors_from;
ALTER TABLE pages DROP COLUMN language;
ALTER TABLE pages DROP COLUMN language_from;
ALTER TABLE pages DROP COLUMN canonical;
ALTER TABLE pages DROP COLUMN canonical_from;`

// oldTable is the CREATE TABLE statement of table name as the migration file wrote
// it, so that a faked older store has exactly the table that schema had.
func oldTable(file, name string) string {
	return createTable(file, name, ") WITHOUT ROWID;")
}

// createTable is the CREATE TABLE statement of table name in a migration file, up to
// and including end.
func createTable(file, name, end string) string {
	b, err := migrationFiles.ReadFile("migrations/" + file)
	if err != nil {
		panic(err)
	}
	s := string(b)
	i := strings.Index(s, "CREATE TABLE "+name+" (")
	if i < 0 || !strings.Contains(s[i:], end) {
		panic("no CREATE TABLE " + name + " in " + file)
	}
	return s[i : i+strings.Index(s[i:], end)+len(end)]
}
