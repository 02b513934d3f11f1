package fetch

import (
	"compress/gzip"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// testPage is a body as a server sent it, with its Content-Type.
type testPage struct {
	url, contentType string
	body             []byte
}

// sandboxPages renders up to n pages of a sandbox web with its default content
// faults (bad UTF-8, malformed markup, binary bodies labelled as text), reached from
// the sites' entry pages by their links, breadth first, without a server.
func sandboxPages(tb testing.TB, n int, faults bool) []testPage {
	tb.Helper()
	cfg := sandbox.DefaultConfig()
	cfg.Seed = 1
	if !faults {
		cfg.Faults.Shares = nil
	}
	w := sandbox.NewWeb(cfg)
	var queue []string
	seen := map[string]bool{}
	push := func(u string) {
		if !seen[u] {
			seen[u] = true
			queue = append(queue, u)
		}
	}
	for _, s := range w.Sites() {
		push(s.Entry)
	}
	var out []testPage
	for i := 0; i < len(queue) && len(out) < n; i++ {
		status, h, body := w.Render(queue[i], cfg.Epoch, int64(i))
		if status == 0 || len(body) == 0 {
			continue
		}
		out = append(out, testPage{url: queue[i], contentType: h.Get("Content-Type"), body: body})
		base, err := url.Parse(queue[i])
		if err != nil {
			continue
		}
		p := extractLinks(body, "crawlconsole")
		for _, l := range append(p.Links, p.Nofollow...) {
			if u, err := base.Parse(l); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				u.Fragment = ""
				push(u.String())
			}
		}
	}
	if len(out) == 0 {
		tb.Fatal("the sandbox rendered no pages")
	}
	return out
}

// corpusPages reads the article extraction benchmark's pages (real sites' HTML),
// from $CRAWLCONSOLE_CORPUS or ../../../shared/corpus/article-extraction-benchmark;
// nil when absent.
func corpusPages(tb testing.TB) []testPage {
	tb.Helper()
	dir := os.Getenv("CRAWLCONSOLE_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus", "article-extraction-benchmark")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "html", "*.html.gz"))
	var out []testPage
	for _, f := range files {
		body, err := gunzipFile(f)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out = append(out, testPage{url: "file://" + f, contentType: "text/html; charset=utf-8", body: body})
	}
	return out
}

func gunzipFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}
