package sandbox

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The block corpus: anti-bot vendors' block and challenge answers, and
// ordinary pages that look like them, kept as test data with their sources
// (blocks/vendors.yaml, blocks/lookalikes.yaml). BlockWeb serves it on loopback so
// that the engine meets it through its real fetch path, on either route.

//go:embed blocks/vendors.yaml blocks/lookalikes.yaml
var blocksFS embed.FS

// BlockAnswer is one answer of the block corpus.
type BlockAnswer struct {
	Name     string            `yaml:"name"`     // unique label (BlockWeb serves answer i on host aI.blocks.test: a name may hold a keyword)
	Vendor   string            `yaml:"vendor"`   // blockpage signature name; "" generic or ordinary
	Block    bool              `yaml:"-"`        // a refusal (vendors.yaml) or an ordinary page (lookalikes.yaml)
	Source   string            `yaml:"source"`   // the public material it was rebuilt from
	Status   int               `yaml:"status"`   // HTTP status
	Headers  map[string]string `yaml:"headers"`  // response headers
	Location string            `yaml:"location"` // Location of a redirect
	Body     string            `yaml:"body"`     // body, templates expanded
}

// Header returns the answer's headers as net/http holds them.
func (a BlockAnswer) Header() http.Header {
	h := http.Header{}
	for k, v := range a.Headers {
		h.Set(k, v)
	}
	if a.Location != "" {
		h.Set("Location", a.Location)
	}
	return h
}

var (
	blockCorpusOnce sync.Once
	blockCorpus     []BlockAnswer
	blockCorpusErr  error
)

// BlockCorpus returns the block corpus: vendor answers first (Block true), then the
// look-alike pages, bodies expanded. The slice is shared: do not modify it.
func BlockCorpus() ([]BlockAnswer, error) {
	blockCorpusOnce.Do(func() {
		for _, f := range []struct {
			path  string
			block bool
		}{{"blocks/vendors.yaml", true}, {"blocks/lookalikes.yaml", false}} {
			b, err := blocksFS.ReadFile(f.path)
			if err != nil {
				blockCorpusErr = err
				return
			}
			var list []BlockAnswer
			if err := yaml.Unmarshal(b, &list); err != nil {
				blockCorpusErr = fmt.Errorf("%s: %w", f.path, err)
				return
			}
			for _, a := range list {
				a.Block = f.block
				a.Body = expandBlockBody(a.Body, a.Name)
				blockCorpus = append(blockCorpus, a)
			}
		}
		seen := map[string]bool{}
		for _, a := range blockCorpus {
			if seen[a.Name] || a.Name == "" || strings.ContainsAny(a.Name, "._ /") {
				blockCorpusErr = fmt.Errorf("block corpus: name %q is empty, repeated or not a DNS label", a.Name)
				return
			}
			seen[a.Name] = true
		}
	})
	return blockCorpus, blockCorpusErr
}

var blockTemplate = regexp.MustCompile(`\{\{(text:(en|ru|zh):(\d+)|links:(\d+))\}\}`)

// expandBlockBody expands {{text:LANG:N}} (N runes of the sandbox's prose in LANG)
// and {{links:N}} (N site links).
func expandBlockBody(body, name string) string {
	return blockTemplate.ReplaceAllStringFunc(body, func(m string) string {
		g := blockTemplate.FindStringSubmatch(m)
		if g[4] != "" {
			n, _ := strconv.Atoi(g[4])
			var b strings.Builder
			for i := range n { // fragment links: the same page to a crawler, a template to the judge
				fmt.Fprintf(&b, `<a href="#%s-%d">Section %d</a> `, name, i, i)
			}
			return b.String()
		}
		n, _ := strconv.Atoi(g[3])
		return proseRunes(g[2], n)
	})
}

// proseRunes returns n runes of the embedded corpus of lang, sentence after
// sentence, slots filled with plain words.
func proseRunes(lang string, n int) string {
	raw, _ := corpusFS.ReadFile("corpus/" + lang + ".txt")
	raw = regexp.MustCompile(`\{[a-z]+\}`).ReplaceAll(raw, []byte("river"))
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	var b strings.Builder
	count := 0
	for i := 0; count < n; i++ {
		l := lines[i%len(lines)]
		b.Write(l)
		b.WriteString(" ")
		count += utf8.RuneCount(l) + 1
	}
	return b.String()
}

// BlockWeb serves the block corpus on loopback: answer i of the corpus at
// http://aI.blocks.test:PORT/answer (Host, AnswerURL), and, so that a crawl meets it on a host with
// history, ordinary pages of that host's template at /p/1 .. /p/N, each linking to
// the next and the last to /answer. Every other name (a redirect's target) gets a
// small ordinary page. Requests are counted per URL.
type BlockWeb struct {
	srv     *http.Server
	addr    string
	port    int
	byName  map[string]BlockAnswer
	hostOf  map[string]string      // answer name -> its host
	byHost  map[string]BlockAnswer // host -> answer
	history int

	mu   sync.Mutex
	hits map[string]int
}

// StartBlockWeb starts serving the corpus; history is the number of template pages
// before each answer (0: the answer is met first).
func StartBlockWeb(history int) (*BlockWeb, error) {
	corpus, err := BlockCorpus()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	w := &BlockWeb{addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port,
		byName: map[string]BlockAnswer{}, hostOf: map[string]string{}, byHost: map[string]BlockAnswer{},
		history: history, hits: map[string]int{}}
	for i, a := range corpus {
		w.byName[a.Name] = a
		h := "a" + strconv.Itoa(i) + ".blocks.test"
		w.hostOf[a.Name], w.byHost[h] = h, a
	}
	w.srv = &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go w.srv.Serve(ln) //nolint:errcheck // returns on Close
	return w, nil
}

// Close stops the server.
func (w *BlockWeb) Close() error { return w.srv.Close() }

// Addr is the server's host:port (every name resolves to its IP).
func (w *BlockWeb) Addr() string { return w.addr }

// Seed is where a crawl of answer name starts: its first template page, or the
// answer itself without history.
func (w *BlockWeb) Seed(name string) string {
	if w.history > 0 {
		return w.PageURL(name, 1)
	}
	return w.AnswerURL(name)
}

// Host is the host serving answer name.
func (w *BlockWeb) Host(name string) string { return w.hostOf[name] }

// AnswerURL is the URL serving answer name.
func (w *BlockWeb) AnswerURL(name string) string {
	return "http://" + w.hostOf[name] + ":" + strconv.Itoa(w.port) + "/answer"
}

// PageURL is template page i of answer name's host.
func (w *BlockWeb) PageURL(name string, i int) string {
	return "http://" + w.hostOf[name] + ":" + strconv.Itoa(w.port) + "/p/" + strconv.Itoa(i)
}

// Hits returns how many requests url received.
func (w *BlockWeb) Hits(url string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits[url]
}

// Requests returns the number of requests served, in all.
func (w *BlockWeb) Requests() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.hits {
		n += c
	}
	return n
}

func (w *BlockWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	w.mu.Lock()
	w.hits["http://"+r.Host+r.URL.RequestURI()]++
	w.mu.Unlock()
	a, known := w.byHost[host]
	if r.URL.Path == "/robots.txt" {
		rw.Header().Set("Content-Type", "text/plain")
		io.WriteString(rw, "User-agent: *\nAllow: /\n") //nolint:errcheck // client may be gone
		return
	}
	if !known || r.URL.Path != "/answer" && !strings.HasPrefix(r.URL.Path, "/p/") {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, "<html><head><title>Elsewhere</title></head><body><p>"+proseRunes("en", 400)+"</p></body></html>") //nolint:errcheck // client may be gone
		return
	}
	if strings.HasPrefix(r.URL.Path, "/p/") {
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		w.servePage(rw, a, i)
		return
	}
	for k, v := range a.Header() {
		rw.Header()[k] = v
	}
	if rw.Header().Get("Content-Type") == "" {
		rw.Header().Set("Content-Type", "text/html")
	}
	rw.WriteHeader(a.Status)
	io.WriteString(rw, a.Body) //nolint:errcheck // client may be gone
}

// servePage is template page i of a's host: the host's own headers (a vendor's
// presence cookies and server name), 25 links and a few KiB of text, linking on to
// the next page and from the last to the answer.
func (w *BlockWeb) servePage(rw http.ResponseWriter, a BlockAnswer, i int) {
	lang := "en"
	for k, v := range a.Headers {
		if strings.EqualFold(k, "server") || strings.EqualFold(k, "x-iinfo") || strings.EqualFold(k, "x-datadome") {
			rw.Header().Set(k, v)
		}
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	next := w.AnswerURL(a.Name)
	if i < w.history {
		next = w.PageURL(a.Name, i+1)
	}
	// The template never names the answer: its name may hold a keyword ("captcha").
	fmt.Fprintf(rw, `<html><head><title>Daily news, page %d</title></head><body><nav>%s</nav><article><p>%s</p></article><a href="%s">next</a></body></html>`,
		i, expandBlockBody("{{links:25}}", "nav"), proseRunes(lang, 2000+200*i), next)
}
