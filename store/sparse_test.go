package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The statements run with execSparse leave zero values unbound and read NULL as the
// zero value, and those run with write bind every value in one call: every row they
// write, zero fields and set ones, empty texts and NULL blobs alike, is the row
// binding every value one at a time through exec writes, value and type.
func TestSparseBindingWritesTheSameRows(t *testing.T) {
	write := func(bindAll bool) map[string][]string {
		bindZeros = bindAll
		defer func() { bindZeros = false }()
		path := filepath.Join(t.TempDir(), "crawl.db")
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		at := time.Unix(1_700_000_000, 5)
		full := testPage("http://full.test/", 3000)
		full.Meta = &PageMeta{Published: "2024-03-05", PublishedFrom: "json-ld", PublishedAt: at,
			Modified: "2024-03-06", ModifiedFrom: "meta", Headline: "H", HeadlineFrom: "og",
			Authors: []string{"A", "B"}, AuthorsFrom: "meta", Language: "en", LanguageFrom: "html",
			Canonical: "http://full.test/c", CanonicalFrom: "link"}
		full.Revisit = &Revisit{URL: full.URL, Class: "web_com", First: at, T: time.Hour, X: 2, Last: at,
			Next: at.Add(time.Hour), Hash: 1<<63 + 7, HasHash: true, Fetches: 3, Distance: 4, Freq: 0.25,
			Price: 1.5, Policy: []byte{1, 2}, Fresh: 0.5, Age: 2.5, Behind: true,
			Change: &RevisitChange{Text: 1, Title: 2, Page: 3, Fallback: true, Reason: 1, ChangeAt: at,
				ChangeDistance: 5, ChangeReason: 2, PrevText: "before", Shift: true}}
		full.Capture = &Capture{URL: full.URL, FetchedAt: at, Status: 200, StatusLine: "HTTP/1.1 200 OK",
			RequestHead: "GET / HTTP/1.1\r\n", ResponseHead: "A: b\r\n", RemoteIP: "127.0.0.1", Decoded: "gzip",
			Truncated: "length", Lane: 2, Egress: "e", Node: "n", Kind: CaptureRendered}
		bare := Page{URL: "http://bare.test/", FetchedAt: at, Revisit: &Revisit{URL: "http://bare.test/", Distance: -1,
			Fresh: -1, Change: &RevisitChange{}}, Capture: &Capture{URL: "http://bare.test/"}}
		s.AddURLs([]URL{{URL: "http://u.test/a", Host: "u.test", ParentHash: 9, Depth: 2, Class: "soc",
			Site: "s", Keyword: "k", Lane: 4}, {URL: "http://u.test/b"}}, nil)
		s.SavePage(full, []URL{{URL: "http://u.test/c", Host: "u.test"}}, nil)
		s.SavePage(bare, nil, nil)
		bare.Revisit = &Revisit{URL: bare.URL, Class: "soc", Fetches: 1}
		s.ReplacePage(bare, nil, nil)
		s.SaveRevisit(Revisit{URL: full.URL, Freq: 0, Policy: []byte{}})
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		db := rawDB(t, path)
		rows := map[string][]string{}
		for _, table := range []string{"urls", "pages", "revisit", "captures"} {
			rows[table] = dumpTable(t, db, table)
		}
		return rows
	}
	sparse, all := write(false), write(true)
	for table, want := range all {
		if !reflect.DeepEqual(sparse[table], want) {
			t.Errorf("%s rows written sparse:\n%s\nwant, every value bound:\n%s", table,
				strings.Join(sparse[table], "\n"), strings.Join(want, "\n"))
		}
	}
}

// dumpTable lists table's rows, each column's type and quoted value, the write
// times of urls rows left out.
func dumpTable(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	cols, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for cols.Next() {
		var c string
		if err := cols.Scan(&c); err != nil {
			t.Fatal(err)
		}
		if table == "urls" && (c == "discovered_at" || c == "updated_at") {
			continue
		}
		exprs = append(exprs, fmt.Sprintf("'%s=' || typeof(%s) || ':' || quote(%s)", c, c, c))
	}
	cols.Close()
	rows, err := db.Query(`SELECT ` + strings.Join(exprs, " || ' ' || ") + ` FROM ` + table + ` ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no rows", table)
	}
	return out
}
