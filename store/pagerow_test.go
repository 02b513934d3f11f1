package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A schema-12 store (pages found by a unique index on their URL) opens at the newest
// version with every page, its metadata and its exchange readable by URL; fetching a
// stored page again stores nothing twice, a replacement overwrites it in place, and
// new pages are stored as before.
func TestSchema12StoreOpensWithItsPages(t *testing.T) {
	s, path := openTemp(t, Options{})
	a, b := testPage("http://a.test/p/1", 3000), testPage("http://b.test/p/2", 12_000)
	a.Meta = &PageMeta{Headline: "Flood", HeadlineFrom: "og"}
	a.Capture = &Capture{URL: a.URL, FetchedAt: a.FetchedAt, Status: 200, StatusLine: "HTTP/1.1 200 OK"}
	s.AddURLs([]URL{{URL: a.URL, Host: "a.test", Site: "a"}, {URL: b.URL, Host: "b.test", Site: "b"}}, nil)
	s.SavePage(a, nil, nil)
	s.SavePage(b, []URL{testURL("c.test", 3)}, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, q := range []string{beforeRevisitSeq, beforeCaptureSeq, beforePageRow, `PRAGMA user_version = 12`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'pages' AND name LIKE 'sqlite_autoindex%'`); n != 1 {
		t.Fatalf("the faked schema-12 store has %d unique indexes on pages, want its one on url", n)
	}
	db.Close()

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open a schema-12 store: %v", err)
	}
	for _, p := range []Page{a, b} {
		got, err := s.Page(p.URL)
		if err != nil || !bytes.Equal(got.Body, p.Body) || got.ETag != p.ETag {
			t.Errorf("%s after the upgrade: %d bytes, etag %q, %v; want the %d bytes stored", p.URL, len(got.Body), got.ETag, err, len(p.Body))
		}
	}
	if etag, _, err := s.PageValidators(b.URL); err != nil || etag != b.ETag {
		t.Errorf("validators of %s: %q, %v", b.URL, etag, err)
	}
	if m, err := s.PageMeta(a.URL); err != nil || m == nil || m.Headline != "Flood" {
		t.Errorf("metadata of %s: %+v, %v", a.URL, m, err)
	}
	if urls, err := s.PageURLs(); err != nil || !slices.Equal(urls, []string{a.URL, b.URL}) {
		t.Errorf("PageURLs = %q, %v", urls, err)
	}
	if by, err := s.StoredBySite(); err != nil || by["a"] != 1 || by["b"] != 1 || len(by) != 2 {
		t.Errorf("StoredBySite = %v, %v; want a and b with one page each", by, err)
	}
	var bodies [][]byte
	if err := s.Captures(time.Time{}, func(c Capture, bodyErr error) error {
		bodies = append(bodies, c.Body)
		return bodyErr
	}); err != nil || len(bodies) != 1 || !bytes.Equal(bodies[0], a.Body) {
		t.Errorf("captures after the upgrade: %d, %v; want a's exchange with its body from the page row", len(bodies), err)
	}

	again := a
	again.Body, again.Capture, again.Meta = []byte("<p>fetched again after a crash</p>"), nil, nil
	s.SavePage(again, nil, nil)
	replaced := b
	replaced.Body = []byte("<p>b, refetched and changed</p>")
	s.ReplacePage(replaced, nil, nil)
	c := testPage("http://c.test/p/3", 2000)
	s.SavePage(c, nil, nil)
	mustFlush(t, s)
	for _, want := range []Page{a, replaced, c} {
		if got, err := s.Page(want.URL); err != nil || !bytes.Equal(got.Body, want.Body) {
			t.Errorf("%s: %q, %v; want the %d bytes of its stored copy", want.URL, shorten(got.Body), err, len(want.Body))
		}
	}
	if n, _ := s.Counts(); n.Pages != 3 {
		t.Errorf("%d pages stored for 3 URLs after a second fetch and a replacement, want 3", n.Pages)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db = rawDB(t, path)
	defer db.Close()
	if v := queryInt(t, db, "PRAGMA user_version"); v != int64(SchemaVersion()) {
		t.Errorf("user_version = %d after open, want %d", v, SchemaVersion())
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM pages`); n != 3 {
		t.Errorf("%d page rows, want 3 (one per URL)", n)
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM urls u JOIN pages p ON p.id = u.page AND p.url = u.url`); n != 3 {
		t.Errorf("%d URL rows point at their page, want 3", n)
	}
}

// A store at schema 13 or 14 (a layout a development build wrote, then withdrawn) is
// refused with an error that says what to do, and left as it was.
func TestWithdrawnSchemaIsRefused(t *testing.T) {
	for _, v := range []int{13, 14} {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			s, path := openTemp(t, Options{})
			s.Close()
			db := rawDB(t, path)
			if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
				t.Fatal(err)
			}
			db.Close()
			_, err := Open(path, Options{})
			if !errors.Is(err, ErrWithdrawnSchema) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "new --db") {
				t.Errorf("Open = %v; want ErrWithdrawnSchema naming the file and what to do", err)
			}
			if _, err := OpenReadOnly(path); !errors.Is(err, ErrWithdrawnSchema) {
				t.Errorf("OpenReadOnly = %v; want ErrWithdrawnSchema", err)
			}
			db = rawDB(t, path)
			defer db.Close()
			if got := queryInt(t, db, "PRAGMA user_version"); got != int64(v) {
				t.Errorf("user_version = %d after the refusal, want %d untouched", got, v)
			}
		})
	}
}

// shorten is b for an error message.
func shorten(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
