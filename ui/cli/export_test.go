package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// runningCrawlDB is a database a crawl holds open (the lock taken) with one page and
// its exchange, and one URL not fetched yet.
func runningCrawlDB(t *testing.T) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	s.AddURLs([]store.URL{{URL: "http://a.example/", Host: "a.example", Class: "web_com"}, {URL: "http://a.example/b", Host: "a.example"}}, nil)
	body := []byte("<html><head><title>Hello</title></head><body><p>hello world</p><a href=\"/b\">b</a></body></html>")
	s.SavePage(store.Page{URL: "http://a.example/", FetchedAt: at, Status: 200, ContentType: "text/html", Body: body,
		Egress: "e1", ETag: `"x1"`}, nil, nil)
	s.SaveCapture(store.Capture{URL: "http://a.example/", FetchedAt: at, Status: 200, StatusLine: "HTTP/1.1 200 OK",
		RequestHead:  "GET / HTTP/1.1\r\nHost: a.example\r\nUser-Agent: crawlconsole\r\n",
		ResponseHead: "Content-Type: text/html\r\nEtag: \"x1\"\r\nSet-Cookie: [redacted]\r\n", RemoteIP: "192.0.2.7", Body: body, Egress: "e1"})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// TestExportBadFlags: an unknown format, an unwritable --out, a --since or --max-size
// that does not parse get a message naming the problem and exit 2, and write nothing.
func TestExportBadFlags(t *testing.T) {
	_, db := runningCrawlDB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{"--db", db, "--format", "arc", "--out", out}, `--format "arc" is not known: use warc or jsonl`},
		{"no format", []string{"--db", db, "--out", out}, "--format is required"},
		{"no out", []string{"--db", db, "--format", "warc"}, "--out is required"},
		{"out is a file", []string{"--db", db, "--format", "warc", "--out", file}, "not a directory"},
		{"out under a file", []string{"--db", db, "--format", "jsonl", "--out", filepath.Join(file, "sub")}, "cannot create it"},
		// A file's name is refused rather than made a directory of that name.
		{"out names a jsonl file", []string{"--db", db, "--format", "jsonl", "--out", filepath.Join(dir, "pages.jsonl")}, "names a file, and the export writes into a directory"},
		{"bad since", []string{"--db", db, "--format", "warc", "--out", out, "--since", "yesterday"}, `--since "yesterday": not a time`},
		{"bad max size", []string{"--db", db, "--format", "warc", "--out", out, "--max-size", "big"}, `--max-size "big": not a size`},
		{"max size with jsonl", []string{"--db", db, "--format", "jsonl", "--out", out, "--max-size", "10MB"}, "--max-size rotates WARC files only"},
		{"no db", []string{"--db", filepath.Join(dir, "none.db"), "--format", "warc", "--out", out}, "no such store"},
		{"unknown flag", []string{"--db", db, "--format", "warc", "--out", out, "--gzip"}, "flag provided but not defined: -gzip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"export"}, c.args...), &stdout, &stderr)
			if code != ExitUsage || !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), ExitUsage, c.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Fatalf("a failed export wrote %d files", len(entries))
			}
			if _, err := os.Stat(filepath.Join(dir, "pages.jsonl")); err == nil {
				t.Fatal("a failed export made pages.jsonl")
			}
		})
	}
}

// TestExportBesideARunningCrawl: both formats export from a database a crawl holds
// open, and the crawl goes on writing; --since leaves out what is older.
func TestExportBesideARunningCrawl(t *testing.T) {
	s, db := runningCrawlDB(t)
	t.Run("warc", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "warc")
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"export", "--db", db, "--format", "warc", "--out", out}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.warc.gz"))
		if len(files) != 1 || !strings.Contains(stderr.String(), "1 response, 1 request, 0 revisits, in 1 file") {
			t.Fatalf("files %v, report %q", files, stderr.String())
		}
	})
	t.Run("a second export into the same directory keeps the first", func(t *testing.T) {
		for _, format := range []string{"warc", "jsonl"} {
			out := filepath.Join(t.TempDir(), format)
			for range 2 { // within the same second: the WARC serial restarted at 00001
				var stdout, stderr bytes.Buffer
				if code := Main([]string{"export", "--db", db, "--format", format, "--out", out}, &stdout, &stderr); code != 0 {
					t.Fatalf("%s: exit %d: %s", format, code, stderr.String())
				}
			}
			files, _ := filepath.Glob(filepath.Join(out, "*"))
			if len(files) != 2 {
				t.Errorf("%s: two exports into one directory left %v, want both files", format, files)
			}
		}
	})
	t.Run("jsonl to stdout", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"export", "--db", db, "--format", "jsonl", "--out", "-"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var line map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &line); err != nil {
			t.Fatalf("%v: %q", err, stdout.String())
		}
		if line["title"] != "Hello" || line["egress"] != "e1" || line["class"] != "web_com" ||
			line["fetched_at"] != "2026-11-20T10:00:00Z" || len(line["links"].([]any)) != 1 {
			t.Fatalf("line %v", line)
		}
	})
	t.Run("since", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"export", "--db", db, "--format", "jsonl", "--out", "-", "--since", "2026-11-21"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if stdout.Len() != 0 || !strings.Contains(stderr.String(), "exported 0 pages") {
			t.Fatalf("--since after the only fetch exported %q (%s)", stdout.String(), stderr.String())
		}
	})
	t.Run("warc to stdout", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"export", "--db", db, "--format", "warc", "--out", "-"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if !bytes.HasPrefix(stdout.Bytes(), []byte{0x1f, 0x8b}) {
			t.Fatalf("stdout is not gzip: %.20q", stdout.Bytes())
		}
		// The summary says where the records went: no file was written.
		if !strings.Contains(stderr.String(), "0 revisits, to stdout;") {
			t.Errorf("the summary of a WARC export to stdout does not say so: %q", stderr.String())
		}
	})
	s.SavePage(store.Page{URL: "http://a.example/b", FetchedAt: time.Now(), Status: 200}, nil, nil)
	if err := s.Flush(); err != nil {
		t.Fatalf("the crawl's store after the exports: %v", err)
	}
}

// TestShowURL: show prints what the crawl knows of one URL beside a running crawl —
// state, lane, attempts, status, the exchange's headers (cookies redacted), the
// revisit state — and the body with --body; an unknown URL is a clear error.
func TestShowURL(t *testing.T) {
	s, db := runningCrawlDB(t)
	s.SaveRevisit(store.Revisit{URL: "http://a.example/", Class: "web_com", T: 3 * time.Hour, X: 2,
		Last: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), Next: time.Date(2026, 11, 20, 11, 30, 0, 0, time.UTC), Distance: 7,
		// The last change edited the article: before it, the page said "hello planet".
		Change: &store.RevisitChange{ChangeAt: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), ChangeDistance: 9,
			ChangeReason: int(revisit.ReasonText), PrevText: "Hello\nhello planet", Shift: true}})
	s.SetState("http://a.example/b", store.Failed, 3, "http_4xx")
	// A page fetched through a redirect: its URL's own exchange is the 302, the
	// page's is under its final URL.
	moved := time.Date(2026, 11, 20, 10, 5, 0, 0, time.UTC)
	s.AddURLs([]store.URL{{URL: "http://a.example/old", Host: "a.example"}}, nil)
	s.SavePage(store.Page{URL: "http://a.example/old", FinalURL: "http://a.example/new", FetchedAt: moved, Status: 200,
		ContentType: "text/html", Body: []byte("<p>moved here</p>")}, nil, nil)
	s.SaveCapture(store.Capture{URL: "http://a.example/old", FetchedAt: moved, Status: 302, StatusLine: "HTTP/1.1 302 Found",
		RequestHead: "GET /old HTTP/1.1\r\n", ResponseHead: "Location: /new\r\n"})
	s.SaveCapture(store.Capture{URL: "http://a.example/new", FetchedAt: moved, Status: 200, StatusLine: "HTTP/1.1 200 OK",
		RequestHead: "GET /new HTTP/1.1\r\n", ResponseHead: "Content-Type: text/html\r\n", Body: []byte("<p>moved here</p>")})
	s.AddRefusal(store.Refusal{URL: "http://a.example/b", At: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Host: "a.example",
		Egress: "e2", Status: 405, Vendor: "AWS WAF", Evidence: "x-amzn-waf-action: captcha", Action: "pair e2 banned; retried via e1"})
	// A news page with its metadata, and one stored before metadata was kept.
	s.AddURLs([]store.URL{{URL: "http://a.example/news", Host: "a.example"}, {URL: "http://a.example/older", Host: "a.example"}}, nil)
	s.SavePage(store.Page{URL: "http://a.example/news", FetchedAt: moved, Status: 200, ContentType: "text/html", Body: []byte("<h1>Flood</h1>"),
		Meta: &store.PageMeta{Published: "2026-11-20T09:30:00+01:00", PublishedFrom: "json-ld datePublished", Headline: "Flood waters recede",
			HeadlineFrom: "h1", Authors: []string{"Ana Ruiz", "Tom Li"}, AuthorsFrom: "json-ld author", Language: "en", LanguageFrom: "lang attribute"}}, nil, nil)
	s.SavePage(store.Page{URL: "http://a.example/older", FetchedAt: moved, Status: 200, ContentType: "text/html",
		Body: []byte(`<html lang="de"><head><meta property="article:published_time" content="2026-11-19"></head><h1>Hochwasser</h1></html>`)}, nil, nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string
		code int
	}{
		{"metadata", []string{"--db", db, "http://a.example/news"}, []string{"published  2026-11-20T09:30:00+01:00  (json-ld datePublished)",
			"headline  Flood waters recede  (h1)", "authors  Ana Ruiz; Tom Li  (json-ld author)", "language  en  (lang attribute)", "canonical  -"}, 0},
		{"metadata of an older store", []string{"--db", db, "http://a.example/older"}, []string{
			"published  2026-11-19  (meta article:published_time, read from the stored body)", "language  de  (lang attribute, read from the stored body)"}, 0},
		{"page", []string{"--db", db, "http://a.example/"}, []string{"state  processed", "status  200", "egress  e1",
			"class / site / keyword  web_com / - / -", "revisit  class web_com, t 3h0m0s, x 2", "next  2026-11-20T10:00:00Z / 2026-11-20T11:30:00Z",
			"last distance  7", "last change  2026-11-20T09:00:00Z, distance 9, main text edited",
			"main text, before the last change -> now:", "- hello planet", "+ hello world", "GET / HTTP/1.1", "HTTP/1.1 200 OK", "Set-Cookie: [redacted]", "from 192.0.2.7 via e1"}, 0},
		{"body after the url", []string{"--db", db, "http://a.example/", "--body"}, []string{"body (", "<p>hello world</p>"}, 0},
		{"failed url", []string{"--db", db, "http://a.example/b"}, []string{"state  failed", "lane  3", "error kind  http_4xx", "page  not stored",
			"refusals (1):", "405 via e2  AWS WAF: x-amzn-waf-action: captcha", "then: pair e2 banned; retried via e1"}, 0},
		{"redirected page", []string{"--db", db, "http://a.example/old"}, []string{"final url  http://a.example/new",
			"first hop (", "HTTP/1.1 302 Found", "Location: /new", "last exchange (", "http://a.example/new):", "GET /new HTTP/1.1", "HTTP/1.1 200 OK"}, 0},
		{"normalised form", []string{"--db", db, "HTTP://A.EXAMPLE"}, []string{"url  http://a.example/"}, 0},
		{"unknown url", []string{"--db", db, "http://z.example/"}, []string{"http://z.example/ is not in"}, 1},
		{"no url", []string{"--db", db}, []string{"give exactly one URL"}, ExitUsage},
		// A URL without its scheme is a mistake in the argument, not a URL the crawl
		// missed: the answer is the URL to give, the one the store has when it has it;
		// a URL parser reads a host and port as a scheme ("a.example").
		{"no scheme", []string{"--db", db, "a.example/b"}, []string{`"a.example/b" has no scheme: give it as http://a.example/b` + "\n"}, ExitUsage},
		{"host and port", []string{"--db", db, "a.example:8080/"}, []string{`"a.example:8080/" has no scheme: give it as http://a.example:8080/ (not in the store either)`}, ExitUsage},
		{"not a url", []string{"--db", db, "news"}, []string{`"news" is not a URL a crawl stores: not an absolute URL (no scheme); give it whole`}, ExitUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"show"}, c.args...), &stdout, &stderr)
			got := squeeze(stdout.String() + stderr.String())
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// squeeze collapses runs of spaces (tabwriter padding) to two, line by line.
func squeeze(s string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		line := sc.Text()
		if len(f) > 1 {
			// keep single spaces inside values, squeeze tabwriter gaps
			for strings.Contains(line, "   ") {
				line = strings.ReplaceAll(line, "   ", "  ")
			}
		}
		b.WriteString(strings.TrimSpace(line) + "\n")
	}
	return b.String()
}
