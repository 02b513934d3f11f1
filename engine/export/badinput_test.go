package export_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	_ "github.com/mattn/go-sqlite3"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

// storedPage puts one page and its exchange into st, as the engine does.
func storedPage(st *store.Store, url string, body []byte, at time.Time) {
	st.SavePage(store.Page{URL: url, FetchedAt: at, Status: 200, ContentType: "text/html", Body: body, Egress: "e1"}, nil, nil)
	st.SaveCapture(store.Capture{
		URL: url, FetchedAt: at, Status: 200, StatusLine: "HTTP/1.1 200 OK",
		RequestHead:  "GET " + strings.TrimPrefix(url, "http://a.test") + " HTTP/1.1\r\nHost: a.test\r\nUser-Agent: t\r\nCookie: " + "[redacted]" + "\r\n",
		ResponseHead: "Content-Type: text/html\r\n", RemoteIP: "127.0.0.1", Body: body, Egress: "e1",
	})
}

// exportAll runs a WARC export into a temp dir and reads it back with the test's reader.
func exportAll(t *testing.T, st *store.Store) (export.Report, []warcRecord) {
	t.Helper()
	var warned []string
	rep, err := export.WARC(st, export.WARCOptions{Dir: t.TempDir(), Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != rep.Warnings {
		t.Errorf("%d warnings told, %d counted", len(warned), rep.Warnings)
	}
	var recs []warcRecord
	for _, f := range rep.Files {
		recs = append(recs, readWARC(t, f)...)
	}
	return rep, recs
}

// TestExportBadInput: a 16 MiB body, a page with invalid UTF-8 and a damaged body
// are exported correctly or skipped with a counted warning, never a crash, and the
// files hold only whole records.
func TestExportBadInput(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// Past the default fetch.max_body_bytes (10 MiB), which only an operator who
	// raised it stores; no path of the export or the store depends on a body's
	// size beyond that, and each MiB costs the test its storing, digests,
	// compression and text extraction.
	huge := bytes.Repeat([]byte("<p>0123456789abcdef</p>\n"), (16<<20)/24+1)[:16<<20]
	badUTF8 := []byte("<html><head><title>caf\xe9 \xff\xfe</title></head><body><p>Bad \xc3\x28 bytes and \xe4\xb8 cut.</p></body></html>")
	cases := []struct {
		name     string
		body     []byte
		corrupt  bool // damage the stored bytes after writing
		warnings int
	}{
		{"16 MiB body", huge, false, 0},
		{"invalid UTF-8", badUTF8, false, 0},
		{"damaged body", []byte(strings.Repeat("<p>compressible text</p>", 200)), true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "crawl.db")
			st, err := store.Open(path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			storedPage(st, "http://a.test/ok", []byte("<p>fine</p>"), at)
			storedPage(st, "http://a.test/case", c.body, at.Add(time.Second))
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if c.corrupt {
				db, err := sql.Open("sqlite3", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range []string{`UPDATE captures SET body = substr(body, 1, 10) || x'00ff00ff' || substr(body, 15) WHERE url = 'http://a.test/case'`,
					`UPDATE pages SET body = substr(body, 1, 10) || x'00ff00ff' || substr(body, 15) WHERE url = 'http://a.test/case'`} {
					if _, err := db.Exec(q); err != nil {
						t.Fatal(err)
					}
				}
				db.Close()
			}
			st, err = store.OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			rep, recs := exportAll(t, st)
			if rep.Warnings != c.warnings {
				t.Errorf("warnings %d, want %d", rep.Warnings, c.warnings)
			}
			var found bool
			for _, r := range recs {
				if r.get("WARC-Type") != "response" || r.get("WARC-Target-URI") != "http://a.test/case" {
					continue
				}
				found = true
				_, _, payload := httpPayload(t, r.block)
				if !bytes.Equal(payload, c.body) || r.get("WARC-Payload-Digest") != sha1Digest(c.body) {
					t.Errorf("payload of %d bytes (digest %s), want the %d stored", len(payload), r.get("WARC-Payload-Digest"), len(c.body))
				}
				if sha1Digest(r.block) != r.get("WARC-Block-Digest") {
					t.Error("block digest wrong")
				}
				if strings.Contains(string(r.block), "Cookie: ") && !strings.Contains(string(r.block), "Cookie: [redacted]") {
					t.Error("a cookie value reached the export")
				}
			}
			if found == c.corrupt {
				t.Errorf("response record of the case found=%v, want %v", found, !c.corrupt)
			}
			// JSONL: one valid line per page, valid UTF-8 whatever the page held.
			var out bytes.Buffer
			jrep, err := export.JSONL(st, &out, export.JSONLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 2 || jrep.Pages != 2 || jrep.Warnings != c.warnings {
				t.Fatalf("JSONL: %d lines, report %+v", len(lines), jrep)
			}
			for _, l := range lines {
				var pl export.PageLine
				if !utf8.ValidString(l) || json.Unmarshal([]byte(l), &pl) != nil {
					t.Errorf("JSONL line not valid JSON in UTF-8: %.200q", l)
				}
				if c.name == "invalid UTF-8" && pl.URL == "http://a.test/case" && (pl.Title == "" || pl.Text == "") {
					t.Errorf("invalid UTF-8 page lost its title or text: %+v", pl)
				}
			}
		})
	}
}

// TestExportOldSchema: pages a crawlconsole without captures stored are exported as
// response records rebuilt from the page row (status, type, validators, body), marked
// as rebuilt, with digests right and no request record.
func TestExportOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st.SavePage(store.Page{URL: "http://old.test/", FetchedAt: at, Status: 200, ContentType: "text/html",
		Body: []byte("<title>old</title><p>kept before captures</p>"), ETag: `"v1"`}, nil, nil)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Make it the database the schema before captures left (version 7): no captures
	// table, nor the tables of the migrations after it.
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	// (0011 moved the change signal into revisit and page_meta into pages: the
	// change table comes back, the columns go; 0015 added urls.page, which goes.)
	if _, err := db.Exec(`DROP TABLE captures;
		CREATE TABLE revisit_change (url TEXT NOT NULL PRIMARY KEY, text_digest INTEGER NOT NULL DEFAULT 0,
			title_digest INTEGER NOT NULL DEFAULT 0, page_digest INTEGER NOT NULL DEFAULT 0,
			fallback INTEGER NOT NULL DEFAULT 0, reason INTEGER NOT NULL DEFAULT 0,
			change_at INTEGER NOT NULL DEFAULT 0, change_distance INTEGER NOT NULL DEFAULT -1,
			change_reason INTEGER NOT NULL DEFAULT 0, prev_text TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
		ALTER TABLE revisit DROP COLUMN has_change; ALTER TABLE revisit DROP COLUMN text_digest;
		ALTER TABLE revisit DROP COLUMN title_digest; ALTER TABLE revisit DROP COLUMN page_digest;
		ALTER TABLE revisit DROP COLUMN fallback; ALTER TABLE revisit DROP COLUMN reason;
		ALTER TABLE revisit DROP COLUMN change_at; ALTER TABLE revisit DROP COLUMN change_distance;
		ALTER TABLE revisit DROP COLUMN change_reason; ALTER TABLE revisit DROP COLUMN prev_text;
		ALTER TABLE pages DROP COLUMN published; ALTER TABLE pages DROP COLUMN published_from; ALTER TABLE pages DROP COLUMN published_at;
		ALTER TABLE pages DROP COLUMN modified; ALTER TABLE pages DROP COLUMN modified_from; ALTER TABLE pages DROP COLUMN headline;
		ALTER TABLE pages DROP COLUMN headline_from; ALTER TABLE pages DROP COLUMN authors; ALTER TABLE pages DROP COLUMN authors_from;
		ALTER TABLE pages DROP COLUMN language; ALTER TABLE pages DROP COLUMN language_from; ALTER TABLE pages DROP COLUMN canonical;
		ALTER TABLE pages DROP COLUMN canonical_from;
		ALTER TABLE urls DROP COLUMN page;
		PRAGMA user_version = 7`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := store.OpenReadOnly(path); err == nil {
		t.Fatal("the old database opened read-only without migrating")
	}
	st, err = store.Open(path, store.Options{}) // what export does with an old schema
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// After the upgrade the page is refetched and answered 304: the old copy is still
	// the one to export, and the revisit points at it.
	st.SaveCapture(store.Capture{URL: "http://old.test/", FetchedAt: at.Add(time.Hour), Status: 304,
		StatusLine: "HTTP/1.1 304 Not Modified", RequestHead: "GET / HTTP/1.1\r\nHost: old.test\r\n", RemoteIP: "192.0.2.9"})
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	rep, recs := exportAll(t, st)
	if rep.Rebuilt != 1 || rep.Revisits != 1 || rep.Warnings != 0 || len(recs) != 4 {
		t.Fatalf("report %+v, %d records; want warcinfo, the 304's revisit and request, one rebuilt page", rep, len(recs))
	}
	if rv := recs[1]; rv.get("WARC-Type") != "revisit" || rv.get("WARC-Refers-To-Target-URI") != "http://old.test/" ||
		rv.get("WARC-Refers-To-Date") != "2026-01-02T03:04:05Z" {
		t.Errorf("304 revisit %v", rv.header)
	}
	r := recs[3]
	status, h, payload := httpPayload(t, r.block)
	if r.get("WARC-Type") != "response" || r.get("Crawlconsole-Rebuilt") == "" || status != http.StatusOK ||
		h.Get("Etag") != `"v1"` || string(payload) != "<title>old</title><p>kept before captures</p>" ||
		r.get("WARC-Payload-Digest") != sha1Digest(payload) || r.get("WARC-Date") != "2026-01-02T03:04:05Z" {
		t.Errorf("rebuilt record %v\n%q", r.header, r.block)
	}
}
