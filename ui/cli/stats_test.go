package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TestStatsNodes: the master of a distributed crawl keeps its node table in the
// store (M4); stats shows it, one entry per worker, and says nothing of nodes on a
// single-process crawl.
func TestStatsNodes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(append([]string{"stats", "--db", path}, args...), &out, &errb); code != 0 {
			t.Fatalf("stats %v: exit %d, stderr %q", args, code, errb.String())
		}
		return out.String(), errb.String()
	}

	t.Run("single process", func(t *testing.T) {
		out, _ := run("--json")
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["nodes"]; ok {
			t.Fatalf("a crawl without workers reports nodes:\n%s", out)
		}
		if _, ok := m["counts"]; !ok {
			t.Fatalf("the store's figures are gone:\n%s", out)
		}
		if text, _ := run(); strings.Contains(text, "nodes") {
			t.Fatalf("text output mentions nodes:\n%s", text)
		}
	})

	s.SetMeta("cluster.nodes.v1", []byte(`[
		{"name":"worker-2","state":"dead","heartbeat":"2026-11-25T06:01:10Z","joined":"2026-11-25T05:00:00Z","hosts":0,"results":812,"late":3},
		{"name":"worker-1","state":"active","heartbeat":"2026-11-25T06:04:05.5+01:00","joined":"2026-11-25T04:58:00Z","hosts":41,"results":12345,"late":0}
	]`))
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Run("json", func(t *testing.T) {
		out, _ := run("--json")
		var got struct {
			Nodes map[string]struct {
				State     string    `json:"state"`
				Heartbeat time.Time `json:"heartbeat"`
				Joined    time.Time `json:"joined"`
				Hosts     int       `json:"hosts"`
				Results   int64     `json:"results"`
				Late      int64     `json:"late"`
			} `json:"nodes"`
			Counts store.Counts `json:"counts"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("stats --json: %v\n%s", err, out)
		}
		if len(got.Nodes) != 2 {
			t.Fatalf("nodes = %v, want worker-1 and worker-2", got.Nodes)
		}
		w1, w2 := got.Nodes["worker-1"], got.Nodes["worker-2"]
		hb := time.Date(2026, 11, 25, 5, 4, 5, 5e8, time.UTC)
		if w1.State != "active" || !w1.Heartbeat.Equal(hb) || w1.Hosts != 41 || w1.Results != 12345 || w1.Late != 0 ||
			!w1.Joined.Equal(time.Date(2026, 11, 25, 4, 58, 0, 0, time.UTC)) {
			t.Fatalf("worker-1 = %+v", w1)
		}
		if w2.State != "dead" || w2.Results != 812 || w2.Late != 3 || w2.Hosts != 0 {
			t.Fatalf("worker-2 = %+v", w2)
		}
	})
	t.Run("text", func(t *testing.T) {
		out, _ := run()
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  worker-") {
				lines = append(lines, strings.Join(strings.Fields(l), " "))
			}
		}
		want := []string{
			"worker-1 active heartbeat 2026-11-25T05:04:05Z joined 2026-11-25T04:58:00Z 41 hosts 12345 results 0 late",
			"worker-2 dead heartbeat 2026-11-25T06:01:10Z joined 2026-11-25T05:00:00Z 0 hosts 812 results 3 late",
		}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Fatalf("node lines:\n%s\nwant:\n%s\nwhole output:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"), out)
		}
	})

	s.SetMeta("cluster.nodes.v1", []byte(`{"not":"an array"`))
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Run("a damaged node table", func(t *testing.T) {
		out, errText := run("--json")
		if !strings.Contains(errText, "cluster.nodes.v1") || strings.Contains(out, `"nodes"`) {
			t.Fatalf("stdout %q, stderr %q: want the figures without nodes and a warning", out, errText)
		}
	})
}

// TestStatsSkippedApart: `stats` lists URLs skipped by choice (robots.txt, content
// type) under "skipped", apart from the errors, in the table and in --json (a
// crawl that obeyed robots.txt must not read as a broken one).
func TestStatsSkippedApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"/a": "robots_disallowed", "/b": "robots_disallowed", "/c": "content_type", "/d": "timeout"}
	for p, kind := range kinds {
		u := "http://a.example" + p
		s.AddURLs([]store.URL{{URL: u, Host: "a.example"}}, nil)
		s.SetState(u, store.Failed, 1, kind)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"stats", "--db", path, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("stats: exit %d, stderr %q", code, errb.String())
	}
	var st store.Stats
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	want := store.Stats{ErrorKinds: []store.KindCount{{Kind: "timeout", Count: 1}},
		SkippedKinds: []store.KindCount{{Kind: "robots_disallowed", Count: 2}, {Kind: "content_type", Count: 1}}}
	if fmt.Sprint(st.ErrorKinds) != fmt.Sprint(want.ErrorKinds) || fmt.Sprint(st.SkippedKinds) != fmt.Sprint(want.SkippedKinds) {
		t.Fatalf("error_kinds %v, skipped_kinds %v; want %v and %v", st.ErrorKinds, st.SkippedKinds, want.ErrorKinds, want.SkippedKinds)
	}
	out.Reset()
	if code := Main([]string{"stats", "--db", path}, &out, &errb); code != 0 {
		t.Fatalf("stats: exit %d", code)
	}
	txt := out.String()
	errs, skips, ok := strings.Cut(txt, "\nskipped")
	if !ok || !strings.Contains(errs, "timeout") || strings.Contains(errs, "robots_disallowed") ||
		!strings.Contains(skips, "robots_disallowed") || !strings.Contains(skips, "content_type") {
		t.Fatalf("the table should list timeout under errors and robots/content type under skipped:\n%s", txt)
	}
}
