package walvfs

import (
	"bytes"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// Each commit is whole to a reader on SQLite's own VFS the moment it returns, for
// transactions of every size around the one whose commit frame straddles the most
// this VFS gathers before writing (2 MiB: about 510 frames), and from a log that
// restarted. The writer checkpoints only after the reader looked (a checkpoint reads
// the log, and what this VFS gathered is written before any read).
func TestEveryCommitIsWholeToAReader(t *testing.T) {
	if Name() == "" {
		t.Skip("the VFS could not be registered")
	}
	path := filepath.Join(t.TempDir(), "w.db")
	w, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&vfs="+Name())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.Exec(`PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)`); err != nil {
		t.Fatal(err)
	}
	r, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	row := func() []byte { // a page of its own: 4,000 bytes fit one, two do not
		b := make([]byte, 4000)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	id := 0
	for size := 500; size <= 520; size++ {
		tx, err := w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		var last []byte
		for range size {
			id++
			last = row()
			if _, err := tx.Exec(`INSERT INTO t(id, b) VALUES(?, ?)`, id, last); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("commit of %d rows: %v", size, err)
		}
		var n int
		var got []byte
		if err := r.QueryRow(`SELECT count(*), (SELECT b FROM t WHERE id = ?) FROM t`, id).Scan(&n, &got); err != nil {
			t.Fatalf("after a commit of %d rows: %v", size, err)
		}
		if n != id || !bytes.Equal(got, last) {
			t.Fatalf("after a commit of %d rows the reader sees %d rows (want %d), the last one the same: %v",
				size, n, id, bytes.Equal(got, last))
		}
		if size%3 == 0 {
			if _, err := w.Exec(`PRAGMA wal_checkpoint(RESTART)`); err != nil {
				t.Fatal(err)
			}
		}
	}
	var check string
	if err := r.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q, %v", check, err)
	}
}
