package sandbox

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SPA is a small web of sites that build their pages with script, for rendering:
// each site listens on its own loopback address (no DNS), and every request is
// logged with its client address, so that the politeness gap and the egress of the
// browser's own requests can be judged.
//
//   - SPASite: the home page and every article are shells (<div id="root">,
//     <noscript>, a JSON state blob); the list (/api/list?p=N) and each article's
//     body (/api/article/N) come from a JSON API and are built by /app.js.
//   - MixedSite: a plain HTML site whose /app/ section is built by script; /news/
//     is plain.
//   - ErrorSite: answers its home page 404 with a shell whose script builds the
//     list all the same (a non-2xx SPA).
//   - StaticSite: plain articles and lists, with analytics script and a <noscript>
//     pixel as many real sites have: nothing to render.
//   - HangSite: / polls its API forever (never settles), /loop never yields.
//
// Every site also serves the cookie pages (spa_cookie.go): /c/welcome, /c/consent
// and /c/gated, a consent flow whose cookie a script sets; and the search pages
// (spa_search.go): /search/more and /search/scroll, results appended by a "Load
// more" button or on scrolling.
type SPA struct {
	Articles int // articles per site
	sites    map[string]*spaSite
	servers  []*http.Server
	mu       sync.Mutex
	log      []SPARequest
}

// The SPA web's site kinds.
const (
	SPASite    = "spa"
	MixedSite  = "mixed"
	ErrorSite  = "error"
	StaticSite = "static"
	HangSite   = "hang"
)

// SPARequest is one request a site served.
type SPARequest struct {
	Site, Host, Path, ClientIP, UserAgent string
	Cookie                                string // the request's Cookie header
	Start, End                            time.Time
}

type spaSite struct {
	kind, host string
	spa        *SPA
}

// StartSPA starts the sites, one on each address of addrs (host IPs on loopback,
// e.g. 127.0.0.21), in the order spa, mixed, error, static, hang.
func StartSPA(addrs []string, articles int) (*SPA, error) {
	kinds := []string{SPASite, MixedSite, ErrorSite, StaticSite, HangSite}
	if len(addrs) < len(kinds) {
		return nil, fmt.Errorf("sandbox: the SPA web needs %d addresses, got %d", len(kinds), len(addrs))
	}
	s := &SPA{Articles: articles, sites: map[string]*spaSite{}}
	for i, k := range kinds {
		if err := checkLoopback(net.JoinHostPort(addrs[i], "0")); err != nil {
			s.Close()
			return nil, err
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(addrs[i], "0"))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("sandbox: SPA site %s on %s: %w", k, addrs[i], err)
		}
		site := &spaSite{kind: k, host: ln.Addr().String(), spa: s}
		s.sites[k] = site
		srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
		s.servers = append(s.servers, srv)
		go srv.Serve(ln)
	}
	return s, nil
}

// Close stops the sites.
func (s *SPA) Close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}

// Host is a site's host:port.
func (s *SPA) Host(kind string) string { return s.sites[kind].host }

// URL is a site's home page.
func (s *SPA) URL(kind string) string { return "http://" + s.sites[kind].host + "/" }

// Log is a copy of the requests served so far.
func (s *SPA) Log() []SPARequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SPARequest(nil), s.log...)
}

// GapBreaks counts requests from one client address to one host that started
// while another was in flight, or less than gap after the previous one ended.
func GapBreaks(log []SPARequest, gap time.Duration) int {
	type key struct{ ip, host string }
	last := map[key]SPARequest{}
	n := 0
	// The log is in order of the ends; judge in order of the starts.
	sorted := append([]SPARequest(nil), log...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].Start.Before(sorted[j-1].Start); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	for _, r := range sorted {
		k := key{r.ClientIP, r.Host}
		if p, ok := last[k]; ok && r.Start.Sub(p.End) < gap {
			n++
		}
		if p, ok := last[k]; !ok || r.End.After(p.End) {
			last[k] = r
		}
	}
	return n
}

// TruthLinks are the article links a browser sees on a site's page (path), in the
// rendered DOM: what a plain fetch and a render should agree on.
func (s *SPA) TruthLinks(kind, path string) []string {
	var out []string
	switch {
	case path == "/" && kind != HangSite:
		for i := 0; i < s.Articles; i++ {
			out = append(out, s.articlePath(kind, i))
		}
	}
	return out
}

func (s *SPA) articlePath(kind string, i int) string {
	switch kind {
	case MixedSite:
		if i%2 == 0 {
			return "/app/" + strconv.Itoa(i)
		}
		return "/news/" + strconv.Itoa(i)
	case StaticSite:
		return "/s/" + strconv.Itoa(i)
	}
	return "/a/" + strconv.Itoa(i)
}

// spaArticleText is article i's body: a few paragraphs, deterministic.
func spaArticleText(kind string, i int) []string {
	var ps []string
	for p := 0; p < 5; p++ {
		ps = append(ps, fmt.Sprintf("Paragraph %d of story %d on the %s site tells what happened on day %d, who said what about it, and why the town council met again after %d weeks of talks about the bridge.", p+1, i, kind, i*7+p, p+2))
	}
	return ps
}

func (h *spaSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ip, _, _ := net.SplitHostPort(r.RemoteAddr)
	defer func() {
		h.spa.mu.Lock()
		h.spa.log = append(h.spa.log, SPARequest{Site: h.kind, Host: h.host, Path: r.URL.Path, ClientIP: ip,
			UserAgent: r.UserAgent(), Cookie: r.Header.Get("Cookie"), Start: start, End: time.Now()})
		h.spa.mu.Unlock()
	}()
	s, p := h.spa, r.URL.Path
	switch {
	case p == "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	case p == "/app.js":
		w.Header().Set("Content-Type", "application/javascript")
		fmt.Fprint(w, appJS)
	case p == "/api/list":
		writeJSON(w, s.list(h.kind))
	case strings.HasPrefix(p, "/api/article/"):
		i, err := strconv.Atoi(strings.TrimPrefix(p, "/api/article/"))
		if err != nil || i < 0 || i >= s.Articles {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"title": fmt.Sprintf("Story %d", i), "paragraphs": spaArticleText(h.kind, i)})
	case strings.HasPrefix(p, "/c/") || p == "/api/session":
		cookiePages(w, r)
	case strings.HasPrefix(p, "/search/") || strings.HasPrefix(p, "/r/") || p == "/api/search":
		searchPages(w, r)
	case p == "/api/poll":
		writeJSON(w, map[string]any{"t": time.Now().UnixNano()})
	case p == "/loop" && h.kind == HangSite:
		spaPage(w, http.StatusOK, `<div id="root"></div><script>while(true){}</script>`)
	case p == "/" && h.kind == HangSite:
		spaPage(w, http.StatusOK, `<div id="root"></div><noscript>JavaScript needed</noscript>
<script>setInterval(function(){fetch('/api/poll')}, 100);</script><a href="/loop">loop</a>`)
	case p == "/":
		s.home(w, h.kind)
	default:
		s.article(w, r, h.kind)
	}
}

func (s *SPA) list(kind string) []map[string]string {
	var out []map[string]string
	for i := 0; i < s.Articles; i++ {
		out = append(out, map[string]string{"url": s.articlePath(kind, i), "title": fmt.Sprintf("Story %d", i)})
	}
	return out
}

// spaShell is a page whose content appJS builds: an empty root, a state blob, a notice.
func spaShell(w http.ResponseWriter, status int, view string) {
	spaPage(w, status, `<div id="root"></div><script id="__INITIAL_STATE__" type="application/json">{"view":"`+view+`"}</script>
<noscript>This site needs JavaScript.</noscript><script src="/app.js"></script>`)
}

func (s *SPA) home(w http.ResponseWriter, kind string) {
	switch kind {
	case SPASite:
		spaShell(w, http.StatusOK, "list")
	case ErrorSite:
		spaShell(w, http.StatusNotFound, "list")
	default: // mixed and static: plain lists
		var b strings.Builder
		b.WriteString(`<h1>Front page</h1><ul>`)
		for i := 0; i < s.Articles; i++ {
			fmt.Fprintf(&b, `<li><a href="%s">Story %d</a></li>`, s.articlePath(kind, i), i)
		}
		b.WriteString(`</ul><script>var _paq=[]</script><noscript><img src="/pixel.gif"></noscript>`)
		spaPage(w, http.StatusOK, b.String())
	}
}

func (s *SPA) article(w http.ResponseWriter, r *http.Request, kind string) {
	seg, id, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	i, err := strconv.Atoi(id)
	if err != nil || i < 0 || i >= s.Articles || s.articlePath(kind, i) != r.URL.Path {
		http.NotFound(w, r)
		return
	}
	if seg == "a" || seg == "app" { // built by script
		spaShell(w, http.StatusOK, "article:"+id)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<a href="/">Home</a><article><h1>Story %d</h1>`, i)
	for _, p := range spaArticleText(kind, i) {
		b.WriteString("<p>" + p + "</p>")
	}
	b.WriteString(`</article><script>var _paq=[]</script><noscript><img src="/pixel.gif"></noscript>`)
	spaPage(w, http.StatusOK, b.String())
}

func spaPage(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprint(w, `<!doctype html><html><head><title>sandbox</title></head><body>`+body+`</body></html>`)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// appJS builds the list or an article from the JSON API into #root.
const appJS = `(function(){
var view = JSON.parse(document.getElementById('__INITIAL_STATE__').textContent).view;
var root = document.getElementById('root');
function el(tag, text){ var e=document.createElement(tag); if(text) e.textContent=text; return e; }
if (view === 'list') {
  fetch('/api/list').then(function(r){return r.json()}).then(function(items){
    var h = el('h1', 'Front page'); root.appendChild(h);
    var ul = el('ul');
    items.forEach(function(it){ var li=el('li'); var a=el('a', it.title); a.href=it.url; li.appendChild(a); ul.appendChild(li); });
    root.appendChild(ul);
  });
} else if (view.indexOf('article:') === 0) {
  fetch('/api/article/' + view.slice(8)).then(function(r){return r.json()}).then(function(a){
    var home = el('a', 'Home'); home.href = '/'; root.appendChild(home);
    var art = el('article'); art.appendChild(el('h1', a.title));
    a.paragraphs.forEach(function(p){ art.appendChild(el('p', p)); });
    root.appendChild(art);
  });
}
})();`
