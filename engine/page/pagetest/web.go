package pagetest

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// Page is a body as a server sent it, with its Content-Type.
type Page struct {
	URL         string
	ContentType string
	Body        []byte
}

// SandboxPages renders pages of a sandbox web (seed 1, its default content faults
// when faults is set: bad UTF-8, malformed markup, binary bodies labelled as text)
// without a server, breadth first from the sites' entry pages along the links that
// links reads from each body (absolute URLs; others are skipped), and returns those
// that keep takes (i: the page's place in that order; nil keeps all), up to n.
func SandboxPages(n int, faults bool, links func(url string, body []byte) []string, keep func(i int) bool) []Page {
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
	var out []Page
	for i := 0; i < len(queue) && len(out) < n; i++ {
		status, h, body := w.Render(queue[i], cfg.Epoch, int64(i))
		if status == 0 || len(body) == 0 {
			continue
		}
		if keep == nil || keep(i) {
			out = append(out, Page{URL: queue[i], ContentType: contentType(h), Body: body})
		}
		for _, l := range links(queue[i], body) {
			push(l)
		}
	}
	return out
}

func contentType(h http.Header) string { return h.Get("Content-Type") }

// CorpusDir is where the article extraction benchmark's pages (real sites' HTML)
// are: $CRAWLCONSOLE_CORPUS, or shared/corpus/article-extraction-benchmark beside
// the repository's checkout, reached from a test's package folder by up (e.g.
// "../../.." from engine/page).
func CorpusDir(up string) string {
	if dir := os.Getenv("CRAWLCONSOLE_CORPUS"); dir != "" {
		return dir
	}
	return filepath.Join(up, "shared", "corpus", "article-extraction-benchmark")
}

// CorpusPages reads the benchmark's pages from dir (CorpusDir), each under its
// file's path; none when the corpus is absent, an error naming the file when one
// cannot be read.
func CorpusPages(dir string) ([]Page, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "html", "*.html.gz"))
	var out []Page
	for _, name := range files {
		body, err := gunzipFile(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		out = append(out, Page{URL: name, ContentType: "text/html; charset=utf-8", Body: body})
	}
	return out, nil
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
