package store

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyBesideARunningCrawl: `crawlconsole stats --db` must read a database a crawl
// is writing (the crawl holds the lock), see what it committed, and change nothing.
func TestReadOnlyBesideARunningCrawl(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.AddURLs([]URL{{URL: "http://a.example/", Host: "a.example"}, {URL: "http://a.example/x", Host: "a.example"}}, nil)
	s.SetState("http://a.example/", InProgress, 1, "")
	s.SavePage(testPage("http://a.example/", 1), nil, nil)
	mustFlush(t, s)

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("OpenReadOnly while the crawl holds the store: %v", err)
	}
	defer ro.Close()
	st, err := ro.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts.Pages != 1 || st.Counts.URLs != 2 {
		t.Fatalf("read-only stats see %d pages and %d URLs, want 1 and 2", st.Counts.Pages, st.Counts.URLs)
	}

	// The crawl goes on: the reader sees each new commit.
	s.SavePage(testPage("http://a.example/x", 2), nil, nil)
	mustFlush(t, s)
	if c, err := ro.Counts(); err != nil || c.Pages != 2 {
		t.Fatalf("after the crawl committed another page: %+v, %v; want 2 pages", c, err)
	}

	// Writes through the reader are refused, not queued or applied.
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ro.AddURLs([]URL{{URL: "http://b.example/", Host: "b.example"}}, nil)
	if err := ro.Flush(); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Flush on a read-only store = %v, want ErrReadOnly", err)
	}
	if !errors.Is(ro.Err(), ErrReadOnly) {
		t.Fatalf("Err = %v, want ErrReadOnly", ro.Err())
	}
	if _, err := ro.URLState("http://b.example/"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a write through the read-only store landed: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the read-only store changed the database file")
	}
	// The crawl's store is unharmed.
	s.SavePage(testPage("http://a.example/y", 3), nil, nil)
	mustFlush(t, s)
}

func TestReadOnlyErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenReadOnly(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not exist", err)
	}
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("not a database at all, clearly"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(junk); !errors.Is(err, ErrNotDatabase) {
		t.Errorf("junk file: %v, want ErrNotDatabase", err)
	}
	old := filepath.Join(dir, "old.db")
	db := rawDB(t, old)
	if _, err := db.Exec("CREATE TABLE t(x); PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenReadOnly(old); !errors.Is(err, ErrOldSchema) {
		t.Errorf("schema 1 database: %v, want ErrOldSchema", err)
	}
}

// TestReadOnlyOnAReadOnlyDirectory: a closed store in a read-only directory (a
// mounted snapshot, read-only media) is read from the file itself, for `stats`,
// `show` and `export`: SQLite's WAL reader cannot make the -shm there and says
// "unable to open database file: no such file or directory" of a file that is there.
// The directory is made read-only by a bind mount in a mount namespace of a child (a
// chmod does not stop root), so the test needs unshare.
func TestReadOnlyOnAReadOnlyDirectory(t *testing.T) {
	if dir := os.Getenv("STORE_RO_CHILD"); dir != "" {
		ro, err := OpenReadOnly(filepath.Join(dir, "c.db"))
		if err != nil {
			t.Fatalf("OpenReadOnly on a read-only directory: %v", err)
		}
		defer ro.Close()
		if c, err := ro.Counts(); err != nil || c.Pages != 1 || c.URLs != 1 {
			t.Fatalf("counts %+v, %v; want 1 page, 1 URL", c, err)
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare for a read-only bind mount")
	}
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.AddURLs([]URL{{URL: "http://a.example/", Host: "a.example"}}, nil)
	s.SavePage(testPage("http://a.example/", 1), nil, nil)
	mustFlush(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"c.db-shm", "c.db-wal", "c.db.lock"} {
		os.Remove(filepath.Join(dir, f))
	}
	cmd := exec.Command(unshare, "-m", "sh", "-c", `mount --bind -o ro "$1" "$1" && exec "$2" -test.run '^TestReadOnlyOnAReadOnlyDirectory$' -test.count=1`,
		"sh", dir, os.Args[0])
	cmd.Env = append(os.Environ(), "STORE_RO_CHILD="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("mount:")) || bytes.Contains(out, []byte("unshare:")) {
			t.Skipf("no read-only bind mount here: %s", out)
		}
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestReadOnlyDoesNotReadALiveStoreAsImmutable: where the directory can be written
// (a crawl may be writing the file), a WAL reader that cannot open its -shm is an
// error, not a read of the file as immutable, which takes no locks and would read
// a running crawl's pages half-written. The -shm is made unopenable as a link into
// a directory that is not there.
func TestReadOnlyDoesNotReadALiveStoreAsImmutable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.AddURLs([]URL{{URL: "http://a.example/", Host: "a.example"}}, nil)
	mustFlush(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"c.db-shm", "c.db-wal"} {
		os.Remove(filepath.Join(dir, f))
	}
	if err := os.Symlink(filepath.Join(dir, "gone", "c.db-shm"), path+"-shm"); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err == nil {
		ro.Close()
		t.Fatal("OpenReadOnly read a store in a writable directory whose -shm cannot be opened; want an error")
	}
	if !strings.Contains(err.Error(), "unable to open") {
		t.Errorf("error %q, want SQLite's cannot-open", err)
	}
}
