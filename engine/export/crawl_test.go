package export_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// served is one answer as it left the server, recorded by servedLog.
type served struct {
	status int
	body   []byte
}

// servedLog is an HTTP proxy in front of the sandbox that records, per URL, every
// status and body it served: the independent truth the export is checked against.
// The crawl uses it as its egress (http://127.0.0.1:PORT), so every byte the crawler
// got went through it.
type servedLog struct {
	mu    sync.Mutex
	byURL map[string][]served
}

func (l *servedLog) bodies(url string) []served {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]served(nil), l.byURL[url]...)
}

// recordingWriter keeps what a handler writes.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	cut    bool
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(p)
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.cut = true
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("no hijack")
}

// staticPage never changes and has no validators: its refetches are unchanged
// payloads (WARC revisit, identical-payload-digest) rather than 304s.
const staticPage = "<!DOCTYPE html><html><head><title>Static</title></head><body><p>The same words on every fetch, so a refetch finds the payload unchanged.</p></body></html>\n"

// gzipPage is staticPage gzip-encoded, served with Content-Encoding: gzip.
var gzipPage = func() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(staticPage))
	zw.Close()
	return b.Bytes()
}()

// crawlFixture crawls a small sandbox web through a recording proxy, with revisits on
// a fast clock, redirect chains, pages with invalid UTF-8, a Chinese site, a URL that
// answers 404 and a static page, until the store holds every kind of exchange the
// export must handle. It returns the database (crawl stopped) and what was served.
func crawlFixture(t *testing.T) (string, *servedLog) {
	t.Helper()
	const scale = 20000
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 3, 8, scale
	cfg.Faults.Shares = map[string]float64{sandbox.FaultRedirectChain: 0.08, sandbox.FaultBadUTF8: 0.05}
	cfg.Small()
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })

	static := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/gzip" {
			// Content-Encoding: the crawler decodes it; the export must say so.
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(len(gzipPage)))
			w.Write(gzipPage)
			return
		}
		w.Write([]byte(staticPage + `<a href="/gzip">gzip</a>`))
	}))
	t.Cleanup(static.Close)
	staticHost := static.Listener.Addr().String()

	log := &servedLog{byURL: map[string][]served{}}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &recordingWriter{ResponseWriter: w}
		if r.Host == staticHost {
			static.Config.Handler.ServeHTTP(rw, r)
		} else {
			sb.ServeHTTP(rw, r)
		}
		if rw.cut {
			return
		}
		if rw.status == 0 {
			rw.status = http.StatusOK
		}
		url := r.URL.String()
		log.mu.Lock()
		log.byURL[url] = append(log.byURL[url], served{rw.status, bytes.Clone(rw.body.Bytes())})
		log.mu.Unlock()
	}))
	t.Cleanup(proxy.Close)

	o := config.DefaultOptions()
	var chinese string
	for _, s := range sb.Info().Sites {
		o.Seeds = append(o.Seeds, s.Entry)
		if s.Lang == "zh" {
			chinese = s.Entry
		}
	}
	if chinese == "" {
		t.Fatal("the sandbox has no Chinese site")
	}
	missing := sb.Info().Sites[0].Entry + "no-such-page"
	staticURL := "http://" + staticHost + "/static"
	o.Seeds = append(o.Seeds, missing, staticURL)
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = []string{"rec=" + proxy.URL}
	o.Scope.SameSite = false
	o.Scope.AllowedHosts = nil
	gap := time.Duration(float64(sb.Config().AntiBot.HumanGap) / scale)
	o.Lanes.Max = 8
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap*5/4, gap*3
	o.HostRate = scale
	o.Revisit.Policy = revisit.PolicySeed
	o.Revisit.Every = 50 * time.Millisecond
	o.Revisit.Initial = 300 * time.Millisecond
	o.Revisit.MinInterval = 200 * time.Millisecond
	for _, c := range revisit.Classes {
		o.Revisit.Windows[c] = 0
	}
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	// Wait until the store holds every kind of exchange: a 304, an unchanged payload,
	// a redirect hop, the 404, the Chinese site and a page with invalid UTF-8.
	deadline := time.Now().Add(120 * time.Second)
	for {
		have, err := fixtureKinds(o.DB, missing, staticURL, chinese)
		if err == nil && len(have) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 120s the crawl still lacks %v (err %v)", have, err)
		}
		time.Sleep(200 * time.Millisecond) // polling the store: a condition with a deadline
	}
	// Stop returns once every write is committed. Done is no stop signal: it closes
	// only when the crawl runs dry, which a loaded box had not reached here (the
	// test then waited for it for ever).
	e.Stop()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return o.DB, log
}

// fixtureKinds lists the kinds of exchange the store does not hold yet.
func fixtureKinds(db, missing, staticURL, chinese string) ([]string, error) {
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return []string{"a database"}, err
	}
	defer st.Close()
	var n304, nSame, nRedirect, n404, nZh, nStaticBody, nGzip int
	err = st.Captures(time.Time{}, func(c store.Capture, _ error) error {
		switch {
		case c.Status == http.StatusNotModified:
			n304++
		case c.RefersTo != 0 && c.URL == staticURL:
			nSame++
		case c.Status/100 == 3:
			nRedirect++
		case c.Status == http.StatusNotFound && c.URL == missing:
			n404++
		case c.URL == chinese && c.Status == http.StatusOK:
			nZh++
		case c.URL == staticURL:
			nStaticBody++
		case c.Decoded == "gzip":
			nGzip++
		}
		return nil
	})
	var lack []string
	for name, n := range map[string]int{"a 304": n304, "an unchanged payload": nSame, "a redirect": nRedirect,
		"the 404": n404, "the Chinese entry": nZh, "the static page": nStaticBody, "the gzip page": nGzip} {
		if n == 0 {
			lack = append(lack, name)
		}
	}
	return lack, err
}
