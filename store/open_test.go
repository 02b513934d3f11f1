package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store/identity"
	"github.com/crawlconsole/crawlconsole/store/internal/bodycodec"
	"github.com/klauspost/compress/zstd"
)

func TestMigrationsAreNumberedFromOne(t *testing.T) {
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	want := 1
	for i, m := range ms {
		for withdrawnVersions[want] {
			want++
		}
		if m.version != want || !strings.HasPrefix(m.name, fmt.Sprintf("%04d_", want)) {
			t.Errorf("migration %d is %s (version %d), want version %d", i, m.name, m.version, want)
		}
		want++
	}
	if len(ms) == 0 || SchemaVersion() != ms[len(ms)-1].version {
		t.Errorf("SchemaVersion() = %d with %d migrations", SchemaVersion(), len(ms))
	}
}

func TestMigrationsRunOnceAndReopenKeepsData(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.AddURLs([]URL{testURL("a.test", 1)}, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if v := queryInt(t, db, "PRAGMA user_version"); v != int64(SchemaVersion()) {
		t.Errorf("user_version = %d, want %d", v, SchemaVersion())
	}
	// Migrating an up-to-date database is a no-op.
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := migrations()
	if ran, err := migrate(context.Background(), conn, path, ms, nil); err != nil || ran != 0 {
		t.Errorf("second migrate ran %d steps, err %v; want 0, nil", ran, err)
	}
	conn.Close()
	db.Close()
	for i := 0; i < 2; i++ {
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		if c, _ := s.Counts(); c.URLs != 1 {
			t.Errorf("reopen %d: %d URLs, want the 1 stored", i, c.URLs)
		}
		s.Close()
	}
}

// A step that fails leaves the database at the previous version with none of the
// step's changes, so the next Open retries it cleanly.
func TestFailedMigrationRollsBack(t *testing.T) {
	db := rawDB(t, filepath.Join(t.TempDir(), "m.db"))
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ms := []migration{
		{1, "0001_a.sql", "CREATE TABLE a (x INTEGER);"},
		{2, "0002_b.sql", "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);"},
	}
	ran, err := migrate(context.Background(), conn, "m.db", ms, nil)
	if err == nil || ran != 1 || !strings.Contains(err.Error(), "0002_b.sql") {
		t.Fatalf("migrate = %d, %v; want 1 step then an error naming 0002_b.sql", ran, err)
	}
	if v := queryInt(t, conn, "PRAGMA user_version"); v != 1 {
		t.Errorf("user_version = %d after a failed step 2, want 1", v)
	}
	if n := queryInt(t, conn, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'b'"); n != 0 {
		t.Errorf("table b of the failed step exists")
	}
	ms[1].sql = "CREATE TABLE b (x INTEGER);"
	if ran, err := migrate(context.Background(), conn, "m.db", ms, nil); err != nil || ran != 1 {
		t.Errorf("retry ran %d, %v; want step 2 only", ran, err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.Close()
	db := rawDB(t, path)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), path) {
		t.Errorf("Open of a newer database = %v; want ErrNewerSchema naming %s", err, path)
	}
	// The refusal must not leave the lock held.
	s, err = Open(path, Options{})
	if err == nil || errors.Is(err, ErrInUse) {
		t.Errorf("second Open = %v; want ErrNewerSchema again, not in-use", err)
	}
	if s != nil {
		s.Close()
	}
}

func TestBadPathsGiveClearErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	content := []byte("these are not the pages you are looking for\n")
	if err := os.WriteFile(text, content, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want []string
		is   error
	}{
		{"missing directory", filepath.Join(dir, "nope", "crawl.db"), []string{filepath.Join(dir, "nope", "crawl.db"), "does not exist"}, nil},
		{"not an SQLite file", text, []string{text, "not an SQLite database", "untouched"}, ErrNotDatabase},
		{"a directory", dir, []string{dir, "directory"}, nil},
		{"parent is a file", filepath.Join(text, "crawl.db"), []string{filepath.Join(text, "crawl.db"), "not a directory"}, nil},
		{"empty path", "", []string{"empty"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(tc.path, Options{})
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", tc.path)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
	if got, _ := os.ReadFile(text); !bytes.Equal(got, content) {
		t.Errorf("the non-SQLite file was changed: %q", got)
	}
	if _, err := os.Stat(text + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a WAL was created next to the non-SQLite file")
	}
}

func TestUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "crawl.db")
	_, err := Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("Open in a read-only directory = %v; want permission denied naming %s", err, path)
	}
}

func TestSecondOpenInSameProcessIsInUse(t *testing.T) {
	s, path := openTemp(t, Options{})
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open = %v, want ErrInUse", err)
	}
	want := fmt.Sprintf("database %s is in use by another crawlconsole process (pid %d); stop it or use another --db", path, os.Getpid())
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	s.Close()
	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s2.Close()
}

// TestReopenWhileAChildHoldsTheLockDescriptor: a process starting a child (the
// renderer's browser) lends it every descriptor between fork and exec; a database
// closed in that window must still be free to open again at once. The child's copy
// is played by a duplicate of the lock's descriptor, held open across Close.
func TestReopenWhileAChildHoldsTheLockDescriptor(t *testing.T) {
	s, path := openTemp(t, Options{})
	copyFD, err := syscall.Dup(int(s.lock.f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(copyFD)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after Close, with the descriptor's copy still open: %v", err)
	}
	s2.Close()
}

// childEnv selects what a re-executed test binary does instead of running tests.
const childEnv = "STORE_TEST_CHILD"

// TestMain lets the crash and in-use tests run this binary as a second process.
func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "open":
		childOpen(os.Getenv("STORE_TEST_DB"))
	case "crawl":
		childCrawl(os.Getenv("STORE_TEST_DB"))
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode")
		os.Exit(3)
	}
}

// childOpen tries to open the database and reports the error on stdout.
func childOpen(path string) {
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Printf("inuse=%v err=%s\n", errors.Is(err, ErrInUse), err)
		os.Exit(1)
	}
	s.Close()
	fmt.Println("opened")
}

// child re-executes the test binary in mode on the database at path.
func child(ctx context.Context, mode, path string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "STORE_TEST_DB="+path)
	return cmd
}

func TestSecondProcessGetsInUse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, path := openTemp(t, Options{})
	out, err := child(ctx, "open", path).Output()
	want := fmt.Sprintf("inuse=true err=database %s is in use by another crawlconsole process (pid %d); stop it or use another --db\n", path, os.Getpid())
	if err == nil || string(out) != want {
		t.Errorf("child while we hold the store: %v, output %q\nwant %q", err, out, want)
	}
	s.Close()
	if out, err := child(ctx, "open", path).Output(); err != nil || string(out) != "opened\n" {
		t.Errorf("child after we closed: %v, output %q; want opened", err, out)
	}
}

func TestOpenRecoversInProgressURLs(t *testing.T) {
	s, path := openTemp(t, Options{})
	for i := 0; i < 5; i++ {
		s.AddURLs([]URL{testURL("a.test", i)}, nil)
	}
	for i := 0; i < 3; i++ {
		s.SetState(testURL("a.test", i).URL, InProgress, 1, "")
	}
	s.LaneOpened(1, "", time.Now())
	if s.Recovered() != 0 {
		t.Errorf("fresh store Recovered() = %d", s.Recovered())
	}
	s.Close()
	s = reopen(t, path)
	if s.Recovered() != 3 {
		t.Errorf("Recovered() = %d, want the 3 in-progress URLs", s.Recovered())
	}
	c, _ := s.Counts()
	if c.InProgress != 0 || c.Unprocessed != 5 {
		t.Errorf("after recovery %+v; want 5 unprocessed, none in progress", c)
	}
	if q, _ := s.Queued(time.Now(), 0, 10); len(q) != 5 {
		t.Errorf("queue holds %d URLs after recovery, want 5", len(q))
	}
	if st, _ := s.Stats(); st.Lanes.Open != 0 {
		t.Errorf("%d lanes still open after a restart, want 0", st.Lanes.Open)
	}
}

// Root ignores permissions, so the lock file's failure stands in for any path the
// process cannot write: the error names the database.
func TestLockFileThatCannotBeCreated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	if err := os.Mkdir(lockPath(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "lock file") {
		t.Errorf("Open with an unusable lock file = %v; want an error naming %s and the lock file", err, path)
	}
	t.Log(err)
}

// TestAnotherApplicationsDatabaseIsLeftAlone: a SQLite file that is not a
// crawlconsole database (foreign tables, or another application_id), and one of a
// newer schema, are refused before anything changes: byte for byte the same, no WAL.
// A crawlconsole database from before application_id opens and
// gets it.
func TestAnotherApplicationsDatabaseIsLeftAlone(t *testing.T) {
	newDB := func(t *testing.T, stmts ...string) string {
		path := filepath.Join(t.TempDir(), "other.db")
		db := rawDB(t, path)
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		return path
	}
	for name, c := range map[string]struct {
		stmts []string
		want  error
		text  string
	}{
		"foreign tables":     {[]string{"CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)", "INSERT INTO invoices VALUES (1, 9.5)"}, ErrNotOurs, "invoices"},
		"foreign app id":     {[]string{"PRAGMA application_id = 1234", "CREATE TABLE urls (x)", "CREATE TABLE pages (y)"}, ErrNotOurs, "0x4d2"},
		"newer crawlconsole": {[]string{fmt.Sprintf("PRAGMA application_id = %d", identity.ApplicationID), "PRAGMA user_version = 999", "CREATE TABLE urls (x)"}, ErrNewerSchema, "999"},
	} {
		t.Run(name, func(t *testing.T) {
			path := newDB(t, c.stmts...)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Open(path, Options{})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("Open = %v; want %v naming %q", err, c.want, c.text)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("the refused file changed")
			}
			if _, err := os.Stat(path + "-wal"); err == nil {
				t.Error("a -wal file appeared beside the refused database")
			}
		})
	}
	t.Run("crawlconsole database from before application_id", func(t *testing.T) {
		s, path := openTemp(t, Options{})
		s.AddURLs([]URL{testURL("a.test", 1)}, nil)
		mustFlush(t, s)
		s.Close()
		db := rawDB(t, path)
		if _, err := db.Exec("PRAGMA application_id = 0"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("an older crawlconsole database: %v", err)
		}
		s.Close()
		var app int64
		rawDB(t, path).QueryRow("PRAGMA application_id").Scan(&app)
		if app != identity.ApplicationID {
			t.Errorf("application_id %#x after Open, want %#x", app, identity.ApplicationID)
		}
	})
}

// A schema-11 store (small bodies as zstd frames, no S2) opens at the newest
// version with its pages as they were, says which codecs its bodies may use, and
// stores new small bodies as S2.
func TestSchema11StoreOpensWithItsBodies(t *testing.T) {
	s, path := openTemp(t, Options{})
	before := testPage("http://before.test/", 4000)
	s.SavePage(before, nil, nil)
	s.Close()
	db := rawDB(t, path)
	body, codec := compressZstdForTest(t, before.Body)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{beforeRevisitSeq, nil},
		{beforeCaptureSeq, nil},
		{beforePageRow, nil},
		{`UPDATE pages SET body_codec = ?, body = ? WHERE url = ?`, []any{codec, body, before.URL}},
		{`UPDATE meta SET value = '0 raw, 1 zlib, 2 zstd' WHERE key = 'store.body_codecs'`, nil},
		{`PRAGMA user_version = 11`, nil},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	after := testPage("http://after.test/", 4000)
	s.SavePage(after, nil, nil)
	mustFlush(t, s)
	for _, p := range []Page{before, after} {
		if got, err := s.Page(p.URL); err != nil || !bytes.Equal(got.Body, p.Body) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes stored", p.URL, len(got.Body), err, len(p.Body))
		}
	}
	s.Close()
	db = rawDB(t, path)
	defer db.Close()
	if v := queryInt(t, db, "PRAGMA user_version"); v != int64(SchemaVersion()) {
		t.Errorf("user_version = %d after open, want %d", v, SchemaVersion())
	}
	var codecs string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'store.body_codecs'`).Scan(&codecs); err != nil || !strings.Contains(codecs, "3 s2") {
		t.Errorf("store.body_codecs = %q, %v; want it to name 3 s2", codecs, err)
	}
	if c := queryInt(t, db, `SELECT body_codec FROM pages WHERE url = ?`, before.URL); c != bodycodec.Zstd {
		t.Errorf("the schema-11 page's body was rewritten (codec %d)", c)
	}
	if c := queryInt(t, db, `SELECT body_codec FROM pages WHERE url = ?`, after.URL); c != bodycodec.S2 {
		t.Errorf("a new 4 KB body stored with codec %d, want %d (s2)", c, bodycodec.S2)
	}
}

// compressZstdForTest is body as a zstd frame (codec 2), as older stores kept it.
func compressZstdForTest(t *testing.T, body []byte) ([]byte, int) {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(body, nil), bodycodec.Zstd
}

// TestSQLiteConfigured: SQLite's global memory statistics, which cost a
// process-wide mutex around every allocation of the writer, are off, and new
// connections get the bigger lookaside (sqlite3_config was found and SQLite had not
// initialized before the store's init).
func TestSQLiteConfigured(t *testing.T) {
	for i, what := range []string{"SQLITE_CONFIG_MEMSTATUS", "SQLITE_CONFIG_LOOKASIDE"} {
		if sqliteConfig[i] != 0 {
			t.Errorf("sqlite3_config(%s) = %d, want 0 (SQLITE_OK)", what, sqliteConfig[i])
		}
	}
}

// A restarted master marks a rejoining worker's claims in progress in one write
// (SetInProgress): each URL reads in progress as SetState's mark does, and a store
// reopened after it recovers them to the queue.
func TestSetInProgressMarksEachURL(t *testing.T) {
	s, path := openTemp(t, Options{})
	for i := 0; i < 4; i++ {
		s.AddURLs([]URL{testURL("a.test", i)}, nil)
	}
	s.SetInProgress([]string{testURL("a.test", 0).URL, testURL("a.test", 2).URL, "http://unknown.test/"})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Counts(); c.InProgress != 2 || c.Unprocessed != 2 {
		t.Errorf("after SetInProgress of 2 known URLs and 1 unknown: %+v; want 2 in progress, 2 unprocessed", c)
	}
	s.Close()
	s = reopen(t, path)
	if s.Recovered() != 2 {
		t.Errorf("Recovered() = %d, want the 2 marked in progress", s.Recovered())
	}
}
