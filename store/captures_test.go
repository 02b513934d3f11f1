package store

import (
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestCapturesKeepEveryBodyOnce: a page refetched changed, unchanged and back again
// keeps each exchange with the body it had, each distinct body stored once (the
// newest shared with the page row, older ones moved into their captures before the
// page is overwritten), and refetches of a body already stored refer to it.
func TestCapturesKeepEveryBodyOnce(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	bodyA := []byte("<p>version A, long enough to be compressed: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</p>")
	bodyB := []byte("<p>version B, long enough to be compressed: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</p>")
	type fetch struct {
		body    []byte
		wantRef int64 // index+1 of the capture it refers to; 0: holds its body
	}
	cases := []struct {
		name       string
		fetches    []fetch
		wantBodies int64 // capture rows holding a body of their own
		wantShared int64 // capture rows sharing the page row's body
	}{
		{"changed, then unchanged", []fetch{{bodyA, 0}, {bodyB, 0}, {bodyB, 2}, {bodyB, 2}}, 1, 1},
		{"flip-flop", []fetch{{bodyA, 0}, {bodyB, 0}, {bodyA, 1}, {bodyB, 2}}, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, path := openTemp(t, Options{})
			const url = "http://a.test/p"
			for i, f := range tc.fetches {
				p := Page{URL: url, FetchedAt: at.Add(time.Duration(i) * time.Hour), Status: 200, Body: f.body,
					Capture: &Capture{URL: url, FetchedAt: at.Add(time.Duration(i) * time.Hour), Status: 200, StatusLine: "HTTP/1.1 200 OK",
						Refetch: i > 0}}
				if i == 0 {
					s.SavePage(p, nil, nil)
				} else {
					s.ReplacePage(p, nil, nil)
				}
			}
			// A redirect hop and a 304 stored on their own.
			s.SaveCapture(Capture{URL: url + "?hop=1", FetchedAt: at, Status: 302, Body: []byte("Moved.")})
			s.SaveCapture(Capture{URL: url, FetchedAt: at.Add(9 * time.Hour), Status: 304})
			mustFlush(t, s)
			var got []Capture
			if err := s.Captures(time.Time{}, func(c Capture, bodyErr error) error {
				if bodyErr != nil {
					t.Fatal(bodyErr)
				}
				got = append(got, c)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			n := len(tc.fetches)
			if len(got) != n+2 {
				t.Fatalf("%d captures, want %d", len(got), n+2)
			}
			for i, f := range tc.fetches {
				c := got[i]
				if c.RefersTo != f.wantRef {
					t.Errorf("fetch %d refers to %d, want %d", i, c.RefersTo, f.wantRef)
				}
				if c.PayloadDigest != PayloadDigest(f.body) {
					t.Errorf("fetch %d: digest %s", i, c.PayloadDigest)
				}
				if f.wantRef == 0 && string(c.Body) != string(f.body) {
					t.Errorf("fetch %d: body %q, want %q", i, c.Body, f.body)
				}
				if f.wantRef != 0 && c.Body != nil {
					t.Errorf("fetch %d: a revisit holds a body", i)
				}
			}
			if string(got[n].Body) != "Moved." || got[n+1].Status != 304 || got[n+1].Body != nil {
				t.Errorf("hop %+v, 304 %+v", got[n], got[n+1])
			}
			db := rawDB(t, path)
			if c := queryInt(t, db, `SELECT COUNT(*) FROM captures WHERE body IS NOT NULL AND url = '`+url+`'`); c != tc.wantBodies {
				t.Errorf("%d capture bodies stored, want %d", c, tc.wantBodies)
			}
			if c := queryInt(t, db, `SELECT COUNT(*) FROM captures WHERE in_page = 1`); c != tc.wantShared {
				t.Errorf("%d captures share the page's body, want %d", c, tc.wantShared)
			}
		})
	}
}

// A schema-15 store (with the index on captures.fetched_at that 0016 drops) opens at
// the newest version with every exchange kept, and an incremental export (since a
// time) still reads exactly the captures fetched from then on, in ID order.
func TestSchema15StoreKeepsItsCaptures(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s, path := openTemp(t, Options{})
	for i := range 6 {
		u := testURL("a.test", i).URL
		s.SavePage(Page{URL: u, FetchedAt: at.Add(time.Duration(i) * time.Hour), Status: 200, Body: []byte("<p>page</p>"),
			Capture: &Capture{URL: u, FetchedAt: at.Add(time.Duration(i) * time.Hour), Status: 200, StatusLine: "HTTP/1.1 200 OK"}}, nil, nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, q := range []string{beforeRevisitSeq, beforeCaptureSeq, `CREATE INDEX captures_fetched ON captures(fetched_at)`, `PRAGMA user_version = 15`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open a schema-15 store: %v", err)
	}
	s.SaveCapture(Capture{URL: testURL("a.test", 6).URL, FetchedAt: at.Add(6 * time.Hour), Status: 404})
	mustFlush(t, s)
	var ids []int64
	var hours []int
	if err := s.Captures(at.Add(3*time.Hour), func(c Capture, bodyErr error) error {
		ids = append(ids, c.ID)
		hours = append(hours, int(c.FetchedAt.Sub(at)/time.Hour))
		return bodyErr
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(hours) != "[3 4 5 6]" || !slices.IsSorted(ids) {
		t.Errorf("captures since hour 3: hours %v, ids %v; want hours 3 to 6 in ID order", hours, ids)
	}
	s.Close()
	db = rawDB(t, path)
	defer db.Close()
	if n := queryInt(t, db, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'captures_fetched'`); n != 0 {
		t.Errorf("captures_fetched still there after the upgrade")
	}
	if v := queryInt(t, db, "PRAGMA user_version"); v != int64(SchemaVersion()) {
		t.Errorf("user_version = %d after open, want %d", v, SchemaVersion())
	}
}

// TestPayloadDigestIsWARCs: the digest is "sha1:" and the base32 of the body's SHA-1,
// as WARC readers and CDX indexes compare it (the empty body's is the well-known one).
func TestPayloadDigestIsWARCs(t *testing.T) {
	if got, want := PayloadDigest(nil), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"; got != want {
		t.Fatalf("PayloadDigest(empty) = %q, want %q", got, want)
	}
	body := []byte("<html>a page</html>")
	sum := sha1.Sum(body)
	if got, want := PayloadDigest(body), "sha1:"+base32.StdEncoding.EncodeToString(sum[:]); got != want {
		t.Fatalf("PayloadDigest = %q, want %q", got, want)
	}
}
