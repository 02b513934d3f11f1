package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

// TestStatsBesideARunningCrawl: an operator runs `crawlconsole stats --db` on the database
// a crawl is writing into, and gets its figures rather than an "in use" error.
func TestStatsBesideARunningCrawl(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := store.Open(path, store.Options{}) // the running crawl holds the lock
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.AddURLs([]store.URL{{URL: "http://a.example/", Host: "a.example"}, {URL: "http://a.example/b", Host: "a.example"}}, nil)
	s.SavePage(store.Page{URL: "http://a.example/", FetchedAt: time.Now(), Status: 200, Body: []byte("<html>hello</html>")}, nil, nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"stats", "--db", path, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("stats beside a running crawl: exit %d, stderr %q", code, errb.String())
	}
	var st store.Stats
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out.String())
	}
	if st.Counts.Pages != 1 || st.Counts.URLs != 2 {
		t.Fatalf("stats report %d pages, %d URLs; want 1 and 2", st.Counts.Pages, st.Counts.URLs)
	}
	out.Reset()
	if code := Main([]string{"stats", "--db", path}, &out, &errb); code != 0 || !strings.Contains(out.String(), path) {
		t.Fatalf("stats table: exit %d, output %q", code, out.String())
	}
	// The crawl still writes.
	s.SavePage(store.Page{URL: "http://a.example/b", FetchedAt: time.Now(), Status: 200}, nil, nil)
	if err := s.Flush(); err != nil {
		t.Fatalf("the crawl's store after stats: %v", err)
	}
}
