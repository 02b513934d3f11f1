package store

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// A URL fetched before and after the upgrade to 0017 (captures found by their URL's
// row) keeps one history: a refetch refers to a body stored before the upgrade, the
// page's old shared body moves into its old capture when the page changes, and the
// newest capture, the last body before a 304, the node of a page and the pages
// without a capture see the captures of both sides. A capture of a URL the store
// has no row for (a redirect hop) is found by its text.
func TestCapturesStoredBeforeTheUpgradeStayFound(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	bodyA := []byte("<p>version A, long enough to be compressed: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</p>")
	bodyB := []byte("<p>version B, long enough to be compressed: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</p>")
	bodyC := []byte("<p>version C, long enough to be compressed: cccccccccccccccccccccccccccccccccccccccc</p>")
	const url, hop, bare = "http://a.test/p", "http://a.test/p?hop=1", "http://a.test/old-uncaptured"
	fetch := func(s *Store, i int, body []byte, node string) {
		when := at.Add(time.Duration(i) * time.Hour)
		p := Page{URL: url, FetchedAt: when, Status: 200, Body: body,
			Capture: &Capture{URL: url, FetchedAt: when, Status: 200, StatusLine: "HTTP/1.1 200 OK", Refetch: i > 0, Node: node}}
		if i == 0 {
			s.SavePage(p, nil, nil)
		} else {
			s.ReplacePage(p, nil, nil)
		}
	}
	s, path := openTemp(t, Options{})
	fetch(s, 0, bodyA, "old")
	fetch(s, 1, bodyB, "old")
	s.SaveCapture(Capture{URL: hop, FetchedAt: at, Status: 302, Body: []byte("Moved.")})
	s.SavePage(Page{URL: bare, FetchedAt: at, Status: 200, Body: []byte("<p>no exchange kept</p>")}, nil, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, q := range []string{beforeRevisitSeq, beforeCaptureSeq, `PRAGMA user_version = 16`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s = reopen(t, path)
	fetch(s, 2, bodyC, "new") // a new body: fetch 1's moves out of the page row into its capture
	fetch(s, 3, bodyB, "new") // fetch 1's body, now in its capture
	fetch(s, 4, bodyA, "new") // fetch 0's body
	s.SaveCapture(Capture{URL: url, FetchedAt: at.Add(5 * time.Hour), Status: 304, Node: "new"})
	s.SaveCapture(Capture{URL: hop, FetchedAt: at.Add(5 * time.Hour), Status: 302, Body: []byte("Moved again.")})
	mustFlush(t, s)

	var got []Capture
	if err := s.Captures(time.Time{}, func(c Capture, bodyErr error) error {
		if bodyErr != nil {
			return bodyErr
		}
		if c.URL == url {
			got = append(got, c)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("%d captures of %s, want 6", len(got), url)
	}
	for i, want := range []struct {
		body []byte
		ref  int // index+1 of the capture referred to, 0: holds its body
	}{{bodyA, 0}, {bodyB, 0}, {bodyC, 0}, {bodyB, 2}, {bodyA, 1}} {
		c := got[i]
		var wantRef int64
		if want.ref > 0 {
			wantRef = got[want.ref-1].ID
		}
		if c.RefersTo != wantRef {
			t.Errorf("fetch %d refers to capture %d, want %d", i, c.RefersTo, wantRef)
		}
		if want.ref == 0 && string(c.Body) != string(want.body) {
			t.Errorf("fetch %d holds %q, want %q (its body kept when the page changed)", i, c.Body, want.body)
		}
	}
	latest, err := s.LatestCapture(url)
	if err != nil || latest.ID != got[5].ID || latest.Status != 304 {
		t.Errorf("LatestCapture = %d (status %d), %v; want the 304, %d", latest.ID, latest.Status, err, got[5].ID)
	}
	if c, err := s.LastBodyCapture(url, got[5].ID); err != nil || c.ID != got[2].ID {
		t.Errorf("LastBodyCapture before the 304 = %d, %v; want fetch 2's (%d)", c.ID, err, got[2].ID)
	}
	if c, err := s.LastBodyCapture(url, got[1].ID); err != nil || c.ID != got[0].ID {
		t.Errorf("LastBodyCapture before fetch 1 = %d, %v; want fetch 0's (%d), stored before the upgrade", c.ID, err, got[0].ID)
	}
	if c, err := s.LatestCapture(hop); err != nil || c.Status != 302 || !c.FetchedAt.Equal(at.Add(5*time.Hour)) {
		t.Errorf("LatestCapture of a hop with no URL row = %+v, %v; want the second 302", c, err)
	}
	nodes := map[string]string{}
	if err := s.Pages(time.Time{}, func(r PageRow, _ error) error {
		nodes[r.Page.URL] = r.Node
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if nodes[url] != "new" || nodes[bare] != "" {
		t.Errorf("nodes of the pages = %v; want %s's newest capture's (new) and none for %s", nodes, url, bare)
	}
	var uncaptured []string
	if err := s.UncapturedPages(time.Time{}, func(p Page, _ error) error {
		uncaptured = append(uncaptured, p.URL)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(uncaptured) != fmt.Sprint([]string{bare}) {
		t.Errorf("UncapturedPages = %q, want only %s", uncaptured, bare)
	}

	db = rawDB(t, path)
	defer db.Close()
	if n := queryInt(t, db, `SELECT COUNT(*) FROM captures WHERE seq IS NULL`); n != 4 {
		t.Errorf("%d captures without a URL row id, want the 3 stored before the upgrade and the hop after it", n)
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM captures c JOIN urls u ON u.seq = c.seq AND u.url = c.url`); n != 4 {
		t.Errorf("%d captures under their URL's row id, want the 4 of %s stored after the upgrade", n, url)
	}
}

// A page whose URL the store never saw (SavePage adds it) and a capture stored on
// its own for a known URL both get the URL's row id; the page reached through a
// redirect keeps its exchange under the final URL's row when the store has one.
func TestCapturesTakeTheirURLsRow(t *testing.T) {
	s, path := openTemp(t, Options{})
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const fresh, known, from, final = "http://a.test/new", "http://a.test/known", "http://a.test/from", "http://a.test/final"
	s.AddURLs([]URL{{URL: known, Host: "a.test"}, {URL: final, Host: "a.test"}}, nil)
	s.SavePage(Page{URL: fresh, FetchedAt: at, Status: 200, Body: []byte("<p>fresh</p>"),
		Capture: &Capture{URL: fresh, FetchedAt: at, Status: 200}}, nil, nil)
	s.SaveCapture(Capture{URL: known, FetchedAt: at, Status: 404})
	s.SavePage(Page{URL: from, FetchedAt: at, Status: 200, FinalURL: final, Body: []byte("<p>final</p>"),
		Capture: &Capture{URL: final, FetchedAt: at, Status: 200}}, nil, nil)
	mustFlush(t, s)
	db := rawDB(t, path)
	defer db.Close()
	for _, u := range []string{fresh, known, final} {
		if n := queryInt(t, db, `SELECT COUNT(*) FROM captures c JOIN urls u ON u.seq = c.seq WHERE c.url = ? AND u.url = ?`, u, u); n != 1 {
			t.Errorf("%s: %d captures under its URL's row id, want 1", u, n)
		}
		if _, err := s.LatestCapture(u); err != nil {
			t.Errorf("LatestCapture(%s): %v", u, err)
		}
	}
	if _, err := s.LatestCapture(from); !errors.Is(err, ErrNotFound) {
		t.Errorf("LatestCapture(%s) = %v, want ErrNotFound (its exchange is the final URL's)", from, err)
	}
}
