package engine_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// failedRedirects is a loopback site whose redirect chains all fail: a loop
// (/loop/a → /loop/b → /loop/a), a chain longer than fetch.max_redirects
// (/chain/0 → /chain/1 → …), a redirect to an unsupported scheme and a redirect to
// a page that hangs up without answering. answered lists, per seed, the 3xx
// responses the crawler receives before its fetch fails, and the kind it fails with.
type failedRedirects struct {
	srv      *httptest.Server
	seeds    []string
	answered map[string][]string // seed -> URLs answered with a 3xx, in order
	kinds    map[string]string   // seed -> error kind
}

// redirectBody is the body a hop of the site sends with its 3xx.
func redirectBody(path string) string { return "<p>moved, from " + path + "</p>" }

func startFailedRedirects(t *testing.T, maxRedirects int) *failedRedirects {
	t.Helper()
	mux := http.NewServeMux()
	redirect := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", to)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusFound)
			io.WriteString(w, redirectBody(r.URL.Path))
		}
	}
	mux.HandleFunc("/loop/a", redirect("/loop/b"))
	mux.HandleFunc("/loop/b", redirect("/loop/a"))
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		redirect(fmt.Sprintf("/chain/%d", n+1))(w, r)
	})
	mux.HandleFunc("/bad/a", redirect("ftp://127.0.0.1/file"))
	mux.HandleFunc("/reset/a", redirect("/reset/b"))
	mux.HandleFunc("/reset/b", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close() // no answer at all: a reset on the second hop
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u := srv.URL
	f := &failedRedirects{srv: srv, answered: map[string][]string{}, kinds: map[string]string{}}
	add := func(seed, kind string, answered ...string) {
		f.seeds = append(f.seeds, u+seed)
		f.kinds[u+seed] = kind
		for _, a := range answered {
			f.answered[u+seed] = append(f.answered[u+seed], u+a)
		}
	}
	add("/loop/a", fetch.KindRedirectLoop, "/loop/a", "/loop/b")
	var chain []string
	for i := 0; i <= maxRedirects; i++ { // maxRedirects hops followed, the last one refused
		chain = append(chain, fmt.Sprintf("/chain/%d", i))
	}
	add("/chain/0", fetch.KindTooManyRedir, chain...)
	add("/bad/a", fetch.KindBadRedirect, "/bad/a")
	add("/reset/a", fetch.KindReset, "/reset/a")
	return f
}

// options crawls only the site's seeds, fast, with no retries (a reset's retry
// would answer the same).
func (f *failedRedirects) options(o *config.Options, maxRedirects int) {
	quickSiteOptions(o, f.seeds)
	o.Fetch.MaxRedirects = maxRedirects
}

// quickSiteOptions crawls only seeds, on loopback, fast: no host cap, no adaptive
// politeness, no retries, no revisits. A loopback web's answer time is this box's
// load, not a server's: with the default politeness, a loaded box's slow answers
// read as a sinking host, backed off for a minute; the page's next requests (a
// rendered page's own included, which wait at the host's gate) waited for it.
func quickSiteOptions(o *config.Options, seeds []string) {
	o.Seeds = seeds
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = true
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.HostRate = 0
	o.Politeness = config.FixedPoliteness()
	o.Fetch.Retries = 0
	o.Revisit.Enabled = false
}

// check verifies the crawl's store: every seed failed with its kind and no page was
// stored, and a WARC export holds a response record (with its request) for each 3xx
// the crawler received on the way, the body it was sent included.
func (f *failedRedirects) check(t *testing.T, db string) {
	t.Helper()
	recs, rep := failedAndExported(t, db, f.kinds)
	responses := map[string][]string{} // target URI -> payloads of its 302 responses
	requests := map[string]int{}
	for _, rec := range recs {
		uri := rec.header["WARC-Target-URI"]
		switch rec.header["WARC-Type"] {
		case "request":
			requests[uri]++
		case "response":
			head, payload, _ := strings.Cut(string(rec.block), "\r\n\r\n")
			if !strings.HasPrefix(head, "HTTP/1.1 302 ") {
				t.Errorf("response record of %s: status line %q, want a 302", uri, strings.SplitN(head, "\r\n", 2)[0])
			}
			responses[uri] = append(responses[uri], payload)
		}
	}
	want := 0
	for _, seed := range f.seeds {
		for _, hop := range f.answered[seed] {
			want++
			path := strings.TrimPrefix(hop, f.srv.URL)
			if got := responses[hop]; len(got) != 1 || got[0] != redirectBody(path) {
				t.Errorf("%s (redirect of %s, %s): response payloads %q in the WARC, want one %q", hop, seed, f.kinds[seed], got, redirectBody(path))
			}
			if requests[hop] != 1 {
				t.Errorf("%s: %d request records, want 1", hop, requests[hop])
			}
		}
	}
	if rep.Responses != want {
		t.Errorf("export wrote %d responses, want the %d redirects received", rep.Responses, want)
	}
}

// failedAndExported checks db's store: each URL of kinds failed with its kind and no
// page was stored; and returns the records of a WARC export of it.
func failedAndExported(t *testing.T, db string, kinds map[string]string) ([]warcRec, export.Report) {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for u, kind := range kinds {
		row, err := st.URLState(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if row.State != store.Failed || row.ErrKind != kind {
			t.Errorf("%s: %s, kind %q; want failed, kind %q", u, row.State, row.ErrKind, kind)
		}
	}
	if c, err := st.Counts(); err != nil || c.Pages != 0 {
		t.Errorf("counts %+v (%v): want no page stored", c, err)
	}
	return exportedRecords(t, st)
}

// exportedRecords exports st to WARC (no warning allowed) and reads the records back.
func exportedRecords(t *testing.T, st *store.Store) ([]warcRec, export.Report) {
	t.Helper()
	var out bytes.Buffer
	rep, err := export.WARC(st, export.WARCOptions{Stdout: &out})
	if err != nil || rep.Warnings != 0 {
		t.Fatalf("export: %+v, %v", rep, err)
	}
	return readRecords(t, out.Bytes()), rep
}

// warcRec is one WARC record: its header fields and block.
type warcRec struct {
	header map[string]string
	block  []byte
}

// readRecords reads a stream of gzip-per-record WARC records (standard library only).
func readRecords(t *testing.T, raw []byte) []warcRec {
	t.Helper()
	var out []warcRec
	br := bytes.NewReader(raw)
	for br.Len() > 0 {
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatalf("gzip member %d: %v", len(out), err)
		}
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gzip member %d: %v", len(out), err)
		}
		head, rest, ok := bytes.Cut(member, []byte("\r\n\r\n"))
		if !ok || !bytes.HasPrefix(head, []byte("WARC/1.1\r\n")) {
			t.Fatalf("record %d: bad head %.200q", len(out), member)
		}
		rec := warcRec{header: map[string]string{}}
		for _, l := range strings.Split(string(head), "\r\n")[1:] {
			k, v, _ := strings.Cut(l, ":")
			rec.header[k] = strings.TrimSpace(v)
		}
		n, err := strconv.Atoi(rec.header["Content-Length"])
		if err != nil || n > len(rest) || string(rest[n:]) != "\r\n\r\n" {
			t.Fatalf("record %d: Content-Length %q with %d bytes left", len(out), rec.header["Content-Length"], len(rest))
		}
		rec.block = rest[:n]
		out = append(out, rec)
	}
	return out
}

// TestFailedRedirectChainsAreArchived: a fetch whose redirect chain fails (a loop,
// too many redirects, a bad target, a reset on a later hop) fails as before, counted
// under its kind with no response counted, but the 3xx responses it received are
// stored and exported to WARC, as every response the crawler gets is.
func TestFailedRedirectChainsAreArchived(t *testing.T) {
	t.Parallel()
	const maxRedirects = 3
	f := startFailedRedirects(t, maxRedirects)
	o := enginetest.DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	f.options(&o, maxRedirects)
	e := enginetest.CrawlToDone(t, o)
	s := e.Stats()
	wantErrors := map[string]int64{}
	for _, k := range f.kinds {
		wantErrors[k]++
	}
	if fmt.Sprint(s.Errors) != fmt.Sprint(wantErrors) || s.PagesFetched != 0 || len(s.StatusClass) != 0 || s.PagesStored != 0 {
		t.Errorf("stats: errors %v, pages fetched %d, status classes %v, stored %d; want errors %v and no response counted",
			s.Errors, s.PagesFetched, s.StatusClass, s.PagesStored, wantErrors)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	f.check(t, o.DB)
}

// TestWorkersFailedRedirectChainsReachTheMaster: the same from a worker: the hops
// of its failed fetches travel with the result, and the master's store and WARC
// export hold them.
func TestWorkersFailedRedirectChainsReachTheMaster(t *testing.T) {
	t.Parallel()
	const maxRedirects = 2
	f := startFailedRedirects(t, maxRedirects)
	c := startClusterWith(t, enginetest.SandboxConfig(5, 2), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		f.options(o, maxRedirects)
	})
	c.worker("w1", "127.0.0.2")
	s := c.waitDone(time.Minute)
	wantErrors := map[string]int64{}
	for _, k := range f.kinds {
		wantErrors[k]++
	}
	if fmt.Sprint(s.Errors) != fmt.Sprint(wantErrors) || s.PagesFetched != 0 || s.PagesStored != 0 {
		t.Errorf("master's stats: errors %v, pages fetched %d, stored %d; want errors %v and no response counted",
			s.Errors, s.PagesFetched, s.PagesStored, wantErrors)
	}
	f.check(t, c.opts.DB)
}
