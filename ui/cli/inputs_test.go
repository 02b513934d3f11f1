package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/store"
)

// optionsOf parses args as `crawl` does and builds its options; warnings go to w.
func optionsOf(t *testing.T, w *strings.Builder, args ...string) (*crawlFlags, config.Options, error) {
	t.Helper()
	c := newCrawlFlags("crawl", "", io.Discard, w)
	pos, code, done := c.parse(args)
	if done || code != 0 {
		t.Fatalf("parse %v: code %d\n%s", args, code, w)
	}
	o, err := c.options(pos)
	return c, o, err
}

// TestConfigOverTheCapIsRefusedUnread: a config file far bigger than any config
// (200 MB here, sparse: nothing is written) is refused before it is read, with a
// message naming the file, its size and the cap.
func TestConfigOverTheCapIsRefusedUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var w strings.Builder
	_, _, err = optionsOf(t, &w, "--config", path, "--db", filepath.Join(t.TempDir(), "c.db"), "https://example.com/")
	if err == nil {
		t.Fatal("a 200 MB config was taken")
	}
	for _, s := range []string{path, "200.0 MiB", "256 KiB"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error lacks %q (the file, its size, the cap): %v", s, err)
		}
	}
}

// TestConfigFromAPipeIsCapped: a config with no size to check first (a FIFO, or
// /dev/stdin) is read no further than the cap.
func TestConfigFromAPipeIsCapped(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		defer w.Close()
		line := []byte("# " + strings.Repeat("x", 1000) + "\n")
		for range 1 << 20 { // 1 GB unless the reader stops
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	o := config.DefaultOptions()
	err = loadConfig(path, &o)
	if err == nil || !strings.Contains(err.Error(), "over the 256 KiB") {
		t.Fatalf("a config piped without end: %v; want it refused at the cap", err)
	}
}

// TestSeedsFileSkipsOverlongAndBadLinesNamingThem: one over-long line (or a line that
// is no URL) is reported with the file and its line number and skipped; the seeds
// around it are kept. (It discarded the whole file, as "bufio.Scanner: token too
// long", naming neither.)
func TestSeedsFileSkipsOverlongAndBadLinesNamingThem(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "seeds.txt")
	body := "https://a.example/\n" + strings.Repeat("x", 100_000) + "\n# a comment\nhttps://b.example/x\nnot a url\n\nhttps://c.example/"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	_, o, err := optionsOf(t, &w, "--seeds", path, "--db", filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatalf("a seeds file with one over-long line: %v", err)
	}
	if want := []string{"https://a.example/", "https://b.example/x", "https://c.example/"}; strings.Join(o.Seeds, " ") != strings.Join(want, " ") {
		t.Errorf("seeds %q, want %q", o.Seeds, want)
	}
	for _, s := range []string{path + ":2: line is over 4096 bytes (100001)", path + ":5: not a URL to crawl"} {
		if !strings.Contains(w.String(), s) {
			t.Errorf("warnings lack %q:\n%s", s, w.String())
		}
	}
}

// TestSeedWithoutSchemeNamesTheURLToGive: a host typed without its scheme, which a
// URL parser reads as the scheme ("example.com:8080/": the scheme "example.com"),
// is answered with the URL to give, as show answers it: refused on the command
// line (exit 2, no store made), skipped with a warning in a seeds file.
func TestSeedWithoutSchemeNamesTheURLToGive(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	var stdout, stderr strings.Builder
	code := Main([]string{"crawl", "--headless", "--db", db, "example.com:8080/"}, &stdout, &stderr)
	want := `seed "example.com:8080/" has no scheme: give it as http://example.com:8080/`
	if code != ExitUsage || !strings.Contains(stderr.String(), want) {
		t.Errorf("crawl example.com:8080/: exit %d, stderr %q; want exit %d and %q", code, stderr.String(), ExitUsage, want)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a refused seed left %s behind (%v)", db, err)
	}
	path := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(path, []byte("https://a.example/\nlocalhost:8080/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if _, _, err := optionsOf(t, &w, "--seeds", path, "--db", db); err != nil {
		t.Fatal(err)
	}
	if want := path + `:2: not a URL to crawl: "localhost:8080/x" has no scheme: give it as http://localhost:8080/x`; !strings.Contains(w.String(), want) {
		t.Errorf("warnings %q lack %q", w.String(), want)
	}
}

// TestSeedsFileOfJunkIsRefusedWithItsFirstBadLine: a file with no URL at all is not
// a seeds file: refused, naming how many lines it has and the first bad one, and
// with at most a few lines of warnings whatever its length.
func TestSeedsFileOfJunkIsRefusedWithItsFirstBadLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junk.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("junk\n", 50_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	_, _, err := optionsOf(t, &w, "--seeds", path, "--db", filepath.Join(dir, "c.db"))
	if err == nil || !strings.Contains(err.Error(), "none of its 50000 lines") || !strings.Contains(err.Error(), "line 1:") {
		t.Fatalf("a seeds file of junk: %v; want it refused naming its lines and the first bad one", err)
	}
	if n := strings.Count(w.String(), "\n"); n > seedReports+1 {
		t.Errorf("%d lines of warnings for one bad file; want at most %d:\n%.2000s", n, seedReports+1, w.String())
	}
	if !strings.Contains(w.String(), "49990 more lines skipped") {
		t.Errorf("the warnings do not count the lines not named:\n%.2000s", w.String())
	}
}

// TestSeedsFileWithoutAURLIsRefusedNamingIt: an empty seeds file, or one of blank
// lines and comments, is refused naming the file, on a new store (not blamed on
// seeds missing from the command line) and on one a crawl would resume.
func TestSeedsFileWithoutAURLIsRefusedNamingIt(t *testing.T) {
	dir := t.TempDir()
	resumable := filepath.Join(dir, "old.db")
	if err := os.WriteFile(resumable, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, body, db, want string }{
		{"empty, new store", "", filepath.Join(dir, "new.db"), "no URL in it (0 lines, blank or # comments)"},
		{"comments, new store", "# none yet\n\n", filepath.Join(dir, "new.db"), "no URL in it (2 lines, blank or # comments)"},
		{"empty, store to resume", "", resumable, "no URL in it (0 lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "seeds.txt")
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := optionsOf(t, &strings.Builder{}, "--seeds", path, "--db", c.db)
			if err == nil || !strings.Contains(err.Error(), "--seeds "+path+": "+c.want) {
				t.Fatalf("got %v; want the file refused: %q", err, c.want)
			}
		})
	}
}

// TestLongSeedsFileIsHeldABatchAtATime: the options hold the head of a long seeds
// file, not the file; the rest is fed once the crawl runs, and every seed reaches
// the store. The seeds are loopback URLs the SSRF guard refuses: each ends at once,
// nothing is fetched.
func TestLongSeedsFileIsHeldABatchAtATime(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	if testing.Short() {
		t.Skip("crawls 25,000 refused URLs")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "seeds.txt")
	var b strings.Builder
	n := 2*seedBatch + 5
	for i := range n {
		fmt.Fprintf(&b, "http://127.0.0.%d:1/p%d\n", i%200+1, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "c.db")
	var w strings.Builder
	c, o, err := optionsOf(t, &w, "--seeds", path, "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Seeds) != seedBatch || c.seeds == nil {
		t.Fatalf("the options hold %d seeds of %d (rest to feed: %v); want the first %d, the rest fed after the start",
			len(o.Seeds), n, c.seeds != nil, seedBatch)
	}
	var out strings.Builder
	if code := Main([]string{"crawl", "--seeds", path, "--db", db, "--headless", "--until-idle", "--delay", "0s..0s"}, &out, &out); code != ExitNothingFetched {
		t.Fatalf("crawl: exit %d, want %d (every seed refused, nothing fetched)\n%s", code, ExitNothingFetched, tail(out.String(), 2000))
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cn, err := st.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if cn.URLs != int64(n) {
		t.Fatalf("the store holds %d URLs of the file's %d\n%s", cn.URLs, n, tail(out.String(), 2000))
	}
}

// TestConfigOfJunkSeedsSaysSoBriefly: a config whose seeds list is thousands of
// non-URLs is refused with one short message naming the first, not one line
// holding them all (the engine's "every seed was rejected (a, a, a, …)").
func TestConfigOfJunkSeedsSaysSoBriefly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte("seeds: ["+strings.Repeat("a,", 50_000)+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	_, _, err := optionsOf(t, &w, "--config", path, "--db", filepath.Join(dir, "c.db"))
	if err == nil || !strings.Contains(err.Error(), "none of its 50000 seeds") || !strings.Contains(err.Error(), "seeds[0]") {
		t.Fatalf("a config of 50,000 junk seeds: %v; want it refused naming the count and the first", err)
	}
	if len(err.Error())+len(w.String()) > 4000 {
		t.Errorf("%d bytes of messages for one bad seeds list", len(err.Error())+len(w.String()))
	}
}
