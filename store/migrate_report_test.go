package store

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store/internal/upgrade"
)

// A schema-12 store upgraded through 0015, which copies the pages table row by row,
// says so before it starts (what it does, how many pages) and when it is done (how
// many pages it copied), with its pages readable afterwards. On a big store that
// step takes minutes; here the size threshold is lowered to see the lines.
func TestUpgradeCopyingPagesIsReported(t *testing.T) {
	defer func(rows int64, every time.Duration) { upgrade.ReportRows, upgrade.ReportEvery = rows, every }(upgrade.ReportRows, upgrade.ReportEvery)
	upgrade.ReportRows, upgrade.ReportEvery = 1, time.Hour
	s, path := openTemp(t, Options{})
	const n = 300
	var urls []URL
	for i := range n {
		urls = append(urls, testURL("a.test", i))
	}
	s.AddURLs(urls, nil)
	for _, u := range urls {
		s.SavePage(testPage(u.URL, 500), nil, nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, out := reopenAt(t, path, beforeRevisitSeq, beforeCaptureSeq, beforePageRow, `PRAGMA user_version = 12`)
	defer s.Close()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	prefix := "store: upgrading " + path + " to schema 15: "
	if len(lines) != 2 || !strings.HasPrefix(lines[0], prefix+"moving the pages into a table") ||
		!strings.Contains(lines[0], fmt.Sprintf(", %d pages;", n)) ||
		!strings.HasPrefix(lines[1], prefix+"done in ") || !strings.HasSuffix(lines[1], fmt.Sprintf(", %d pages copied", n)) {
		t.Errorf("upgrade report:\n%s\nwant a line saying what 0015 does to the %d pages and one saying it copied them", out, n)
	}
	if c, err := s.Counts(); err != nil || c.Pages != n {
		t.Errorf("%d pages after the upgrade, %v; want %d", c.Pages, err, n)
	}
	last := testPage(urls[n-1].URL, 500)
	if p, err := s.Page(last.URL); err != nil || !bytes.Equal(p.Body, last.Body) {
		t.Errorf("last page after the upgrade: %d bytes, %v; want the %d stored", len(p.Body), err, len(last.Body))
	}
}

// A store below the threshold upgrades silently, as does a step that copies no table.
func TestSmallUpgradeSaysNothing(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.SavePage(testPage("http://a.test/p/1", 500), nil, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, out := reopenAt(t, path, beforeRevisitSeq, beforeCaptureSeq, beforePageRow, `PRAGMA user_version = 12`)
	s.Close()
	if out != "" {
		t.Errorf("a one-page upgrade printed %q", out)
	}
}

// The upgrade to 0017, which indexes the exchanges already stored anew, says so on a
// store big enough, and when it is done.
func TestUpgradeIndexingCapturesIsReported(t *testing.T) {
	defer func(rows int64) { upgrade.ReportRows = rows }(upgrade.ReportRows)
	upgrade.ReportRows = 3
	s, path := openTemp(t, Options{})
	for i := range 3 {
		s.SaveCapture(Capture{URL: testURL("a.test", i).URL, FetchedAt: time.Now(), Status: 404})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, out := reopenAt(t, path, beforeRevisitSeq, beforeCaptureSeq, `PRAGMA user_version = 16`)
	s.Close()
	prefix := "store: upgrading " + path + " to schema 17: "
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], prefix+"indexing the exchanges") || !strings.Contains(lines[0], ", 3 exchanges;") ||
		!strings.HasPrefix(lines[1], prefix+"done in ") {
		t.Errorf("upgrade report:\n%s\nwant a line saying what 0017 does to the 3 exchanges and one saying it is done", out)
	}
}

// The upgrade to 0018, which copies the revisit table, says so on a store big
// enough, and how many rows it copied.
func TestUpgradeCopyingRevisitIsReported(t *testing.T) {
	defer func(rows int64) { upgrade.ReportRows = rows }(upgrade.ReportRows)
	upgrade.ReportRows = 3
	s, path := openTemp(t, Options{})
	for i := range 3 {
		u := testURL("a.test", i)
		s.AddURLs([]URL{u}, nil)
		s.SaveRevisit(testRevisit(u.URL, time.Now()))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, out := reopenAt(t, path, beforeRevisitSeq, `PRAGMA user_version = 17`)
	s.Close()
	prefix := "store: upgrading " + path + " to schema 18: "
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], prefix+"moving the pages' revisit states") || !strings.Contains(lines[0], ", 3 revisit states;") ||
		!strings.HasPrefix(lines[1], prefix+"done in ") || !strings.HasSuffix(lines[1], ", 3 revisit states copied") {
		t.Errorf("upgrade report:\n%s\nwant a line saying what 0018 does to the 3 revisit states and one saying it copied them", out)
	}
}

// Revisit state whose URL the store has no row for gets one at the upgrade to 0018,
// under the host url.Hostname reads, as a runtime save of such state does.
func TestUpgradeGivesARevisitOnlyURLItsHost(t *testing.T) {
	s, path := openTemp(t, Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{
		"http://news.example/a/1":          "news.example",
		"https://user@x.example:8443/p?q":  "x.example",
		"http://[::1]:8080/v6":             "::1",
		"http://bare.example?only=a-query": "bare.example",
	}
	stmts := []string{beforeRevisitSeq, `PRAGMA user_version = 17`}
	for u := range urls {
		stmts = append(stmts, `INSERT INTO revisit(url, next) VALUES('`+u+`', 1)`)
	}
	s, _ = reopenAt(t, path, stmts...)
	s.Close()
	db := rawDB(t, path)
	defer db.Close()
	for u, want := range urls {
		var host string
		if err := db.QueryRow(`SELECT host FROM urls WHERE url = ?`, u).Scan(&host); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if host != want {
			t.Errorf("%s: host %q after the upgrade, want %q", u, host, want)
		}
	}
}

// reopenAt rewrites the closed store at path with stmts (an older schema's layout and
// its user_version) and opens it again, returning the store and what its upgrade
// printed.
func reopenAt(t *testing.T, path string, stmts ...string) (*Store, string) {
	t.Helper()
	db := rawDB(t, path)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	var out bytes.Buffer
	s, err := Open(path, Options{Progress: &out})
	if err != nil {
		t.Fatal(err)
	}
	return s, out.String()
}
