package sandbox

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RealWeb serves documents of the real-world corpus on loopback as their sites would:
// every document at its published URL with only the scheme and authority rewritten
// (http, its own host, the server's port; every name resolves to 127.0.0.1), with its
// manifest Content-Type, the absolute URLs inside it rewritten the same way. Each host
// that publishes a document has a home page `/` linking its feeds with
// <link rel="alternate" type=... href=...>, and a /robots.txt whose Sitemap lines name
// its sitemaps and indexes. Every other path of any host is a small article page of its
// own (200, HTML, no links); the page of a feed's section (its URL up to its last path
// segment) announces that feed too, as Hugo's and WordPress's section pages do.
// Requests are counted per URL.
type RealWeb struct {
	dir  string
	srv  *http.Server
	addr string
	port int

	docs     map[string]RealDoc // realKey of its published URL -> document
	hosts    map[string][]RealDoc
	sections map[string][]RealDoc // host and path of a feed's section page -> its feeds

	mu   sync.Mutex
	hits map[string]int // by loopback URL as requested (host:port, request URI)
	reqs int
}

// StartRealWeb serves docs (all of LoadRealCorpus(dir) or a part of it), files read
// from dir at each request.
func StartRealWeb(dir string, docs []RealDoc) (*RealWeb, error) {
	return StartRealWebOn("127.0.0.1:0", dir, docs)
}

// StartRealWebOn is StartRealWeb listening on addr (`crawlconsole sandbox --corpus`'s
// --http).
func StartRealWebOn(addr, dir string, docs []RealDoc) (*RealWeb, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError("HTTP", addr, err)
	}
	w := &RealWeb{dir: dir, addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port,
		docs: map[string]RealDoc{}, hosts: map[string][]RealDoc{}, sections: map[string][]RealDoc{}, hits: map[string]int{}}
	for _, d := range docs {
		// Keyed by the URL it is served at, which Map gives (a URL inside its path
		// rewritten as well), as requests arrive.
		u, err := url.Parse(d.URL)
		mapped, ok := mapRealURL(d.URL, w.port)
		served, merr := url.Parse(mapped)
		if err != nil || !ok || merr != nil {
			ln.Close()
			return nil, fmt.Errorf("real web: %s: url %q is not an absolute http(s) URL", d.File, d.URL)
		}
		k := realKey(served)
		if other, dup := w.docs[k]; dup {
			ln.Close()
			return nil, fmt.Errorf("real web: %s and %s are served at the same URL", d.File, other.File)
		}
		w.docs[k] = d
		h := strings.ToLower(u.Hostname())
		w.hosts[h] = append(w.hosts[h], d)
		if d.IsFeed() {
			if sec := sectionPath(u.EscapedPath()); sec != "/" {
				w.sections[h+sec] = append(w.sections[h+sec], d)
			}
		}
	}
	w.srv = &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go w.srv.Serve(ln) //nolint:errcheck // returns on Close
	return w, nil
}

// Close stops the server.
func (w *RealWeb) Close() error { return w.srv.Close() }

// Addr is the server's host:port (every name must resolve to its IP, 127.0.0.1).
func (w *RealWeb) Addr() string { return w.addr }

// Map returns the loopback URL that serves the real URL raw (http, same host, the
// server's port, same path and query); ok is false when raw is not an absolute http(s)
// URL. Expected URLs are compared with what the crawl stored through it.
func (w *RealWeb) Map(raw string) (string, bool) { return mapRealURL(raw, w.port) }

// DocURL is the loopback URL serving d.
func (w *RealWeb) DocURL(d RealDoc) string {
	u, _ := w.Map(d.URL)
	return u
}

// Homes returns the home page of every host that publishes a document, sorted: the
// seeds of a crawl that must find the documents the way a crawler finds them on the
// real web.
func (w *RealWeb) Homes() []string {
	var out []string
	for h := range w.hosts {
		out = append(out, "http://"+net.JoinHostPort(h, strconv.Itoa(w.port))+"/")
	}
	sort.Strings(out)
	return out
}

// Body returns d as served: hosts rewritten, gzip kept, encoding kept.
func (w *RealWeb) Body(d RealDoc) ([]byte, error) { return realBody(w.dir, d, w.port) }

// Hits returns how many requests the loopback URL u received.
func (w *RealWeb) Hits(u string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits[u]
}

// Requests returns the number of requests served, in all.
func (w *RealWeb) Requests() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reqs
}

func (w *RealWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	w.mu.Lock()
	w.hits["http://"+r.Host+r.URL.RequestURI()]++
	w.reqs++
	w.mu.Unlock()
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	key := host + path
	if r.URL.RawQuery != "" {
		key += "?" + r.URL.RawQuery
	}
	if d, ok := w.docs[key]; ok {
		body, err := w.Body(d)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", d.ContentType)
		rw.Write(body) //nolint:errcheck // client may be gone
		return
	}
	switch {
	case path == "/robots.txt":
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(rw, w.robots(host)) //nolint:errcheck // client may be gone
	case path == "/" && r.URL.RawQuery == "" && len(w.hosts[host]) > 0:
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, w.home(host)) //nolint:errcheck // client may be gone
	default:
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		var feeds strings.Builder
		if r.URL.RawQuery == "" {
			for _, d := range w.sections[host+path] {
				fmt.Fprintf(&feeds, "<link rel=\"alternate\" type=\"%s\" href=\"%s\">\n", w.feedType(d), html.EscapeString(w.DocURL(d)))
			}
		}
		io.WriteString(rw, realArticle(host, r.URL.RequestURI(), feeds.String())) //nolint:errcheck // client may be gone
	}
}

// robots is host's robots.txt: everything allowed, a Sitemap line per sitemap or
// index it publishes.
func (w *RealWeb) robots(host string) string {
	var b strings.Builder
	b.WriteString("User-agent: *\nAllow: /\n")
	for _, d := range w.hosts[host] {
		if !d.IsFeed() {
			fmt.Fprintf(&b, "Sitemap: %s\n", w.DocURL(d))
		}
	}
	return b.String()
}

// home is host's home page: a <link rel="alternate"> per feed it publishes, in the
// head, as sites announce them for autodiscovery, the home page's own feeds (those at
// the root: Hugo's /index.xml, WordPress's /feed/) first, as a site's template puts
// them; a paragraph of text; no other links.
func (w *RealWeb) home(host string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n", html.EscapeString(host))
	var own, others []RealDoc
	for _, d := range w.hosts[host] {
		if !d.IsFeed() {
			continue
		}
		if u, err := url.Parse(d.URL); err == nil && sectionPath(u.EscapedPath()) == "/" {
			own = append(own, d)
		} else {
			others = append(others, d)
		}
	}
	n := 0
	for _, d := range append(own, others...) {
		n++
		fmt.Fprintf(&b, "<link rel=\"alternate\" type=\"%s\" title=\"%s feed %d\" href=\"%s\">\n",
			w.feedType(d), html.EscapeString(host), n, html.EscapeString(w.DocURL(d)))
	}
	fmt.Fprintf(&b, "</head><body><h1>%s</h1><p>%s</p></body></html>\n", html.EscapeString(host), proseRunes("en", 300))
	return b.String()
}

// feedType is the type a site's <link rel="alternate"> gives d: Atom's when the
// document is an Atom feed (also one inside an XHTML page), RSS's otherwise (what
// sites write for RSS 0.9x, 1.0 and 2.0 alike).
func (w *RealWeb) feedType(d RealDoc) string {
	if strings.HasPrefix(d.Kind, "atom") {
		return "application/atom+xml"
	}
	if d.Kind == "xhtml_feed" {
		if b, err := w.Body(d); err == nil {
			if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
				if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
					b, _ = io.ReadAll(io.LimitReader(zr, 1<<20))
				}
			}
			if bytes.Contains(b, []byte("<feed")) {
				return "application/atom+xml"
			}
		}
	}
	return "application/rss+xml"
}

// sectionPath is the path of the section page that announces a feed at path p: p
// up to its last segment ("/fr/events/index.xml" and "/category/x/feed/" give
// "/fr/events/" and "/category/x/"); "/" for a feed at the root.
func sectionPath(p string) string {
	p = strings.TrimSuffix(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return "/"
}

// realArticle is the page at any other path: HTML, its text drawn from the URL so that
// no two pages are alike, no links but head (the feeds a section page announces).
func realArticle(host, uri, head string) string {
	h := fnv.New64a()
	io.WriteString(h, host+uri) //nolint:errcheck // a hash does not fail
	sum := h.Sum64()
	words := strings.Fields(proseRunes("en", 1200))
	var b strings.Builder
	for i := range 60 {
		b.WriteString(words[(sum>>(i%48)+uint64(i)*7919)%uint64(len(words))])
		b.WriteByte(' ')
	}
	t := html.EscapeString(host + uri)
	return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + t + "</title>" + head + "</head><body><article><h1>" +
		t + "</h1><p>" + b.String() + "</p><p>Article " + strconv.FormatUint(sum, 16) + ".</p></article></body></html>\n"
}
