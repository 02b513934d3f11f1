package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

// topicWeb is one news site and one social site on two loopback addresses. The news
// entry lists four articles, two of them about floods and two about typhoons (one
// both), one about neither; the social site's search lists two posts per result
// page, and every post links to one unrelated post.
type topicWeb struct {
	news, social string // "127.0.0.x:port"
	mu           sync.Mutex
	hits         map[string]int // path?query -> requests
}

var topicArticles = map[string]string{
	"/a/1": "Harbour flood: the river rose two metres overnight and the quay was closed to traffic.",
	"/a/2": "台风「海葵」今晨登陆，沿海多地停课停工，渡轮全部停航。",
	"/a/3": "The city council approved the new library budget after a long debate on Tuesday.",
	"/a/4": "FLOOD warnings after the 台风: the harbour master asks boats to stay in port until Friday.",
}

func newTopicWeb(t *testing.T) *topicWeb {
	t.Helper()
	w := &topicWeb{hits: map[string]int{}}
	for i, dst := range []*string{&w.news, &w.social} {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", 31+i))
		if err != nil {
			t.Skipf("cannot listen on 127.0.0.%d: %v", 31+i, err)
		}
		srv := &http.Server{Handler: w}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		*dst = ln.Addr().String()
	}
	return w
}

func (w *topicWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(rw, r)
		return
	}
	w.mu.Lock()
	w.hits[r.URL.RequestURI()]++
	w.mu.Unlock()
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	page := func(body string) {
		fmt.Fprintf(rw, "<html><body><article>%s</article></body></html>", body)
	}
	switch {
	case r.Host == w.news && r.URL.Path == "/":
		var b strings.Builder
		for _, p := range []string{"/a/1", "/a/2", "/a/3", "/a/4"} {
			fmt.Fprintf(&b, `<li><a href="%s">story</a></li>`, p)
		}
		page("<ul>" + b.String() + "</ul>")
	case r.Host == w.news && topicArticles[r.URL.Path] != "":
		page("<p>" + topicArticles[r.URL.Path] + "</p>")
	case r.Host == w.social && r.URL.Path == "/search":
		q, n := r.URL.Query().Get("q"), r.URL.Query().Get("page")
		page(fmt.Sprintf(`<p>Results for %s</p><a href="/post/%s-%s-1">one</a><a href="/post/%s-%s-2">two</a>`, q, q, n, q, n))
	case r.Host == w.social && strings.HasPrefix(r.URL.Path, "/post/"):
		page(`<p>A post about the weather and the sea, with a long enough text to count as main text.</p><a href="/post/other">other</a>`)
	default:
		http.NotFound(rw, r)
	}
}

func topicOptions(t *testing.T, w *topicWeb) Options {
	o := DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 4
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	o.Keywords = []string{"flood", "台风"}
	o.Sites = []SiteOptions{
		{Name: "harbor", Kind: SiteNews, Entry: "http://" + w.news + "/"},
		{Name: "chirp", Kind: SiteSocial, Search: "http://" + w.social + "/search?q={keyword}&page={page}", Pages: 2,
			Keywords: []string{"flood"}},
	}
	return o
}

func readResults(t *testing.T, path string) ([]store.Result, []store.Cost) {
	t.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Results()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := st.Costs()
	if err != nil {
		t.Fatal(err)
	}
	return rs, cs
}

// News pages are results only for the keywords their text holds; a social search's
// result pages and the posts they list are results for the keyword searched, and
// the posts' own links are not. Every fetch is costed to its site (news) or
// site+keyword (social).
func TestCollectionByKeyword(t *testing.T) {
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	rs, cs := readResults(t, o.DB)
	var got []string
	for _, r := range rs {
		path := strings.TrimPrefix(strings.TrimPrefix(r.URL, "http://"+w.news), "http://"+w.social)
		got = append(got, fmt.Sprintf("%s|%s|%s|%s", r.Site, r.Keyword, r.Kind, path))
		if r.Host == "" || r.Round.IsZero() || r.FetchedAt.IsZero() {
			t.Errorf("result %+v lacks host, round or fetch time", r)
		}
	}
	sort.Strings(got)
	want := []string{
		"chirp|flood|post|/post/flood-1-1", "chirp|flood|post|/post/flood-1-2",
		"chirp|flood|post|/post/flood-2-1", "chirp|flood|post|/post/flood-2-2",
		"chirp|flood|search|/search?q=flood&page=1", "chirp|flood|search|/search?q=flood&page=2",
		"harbor|flood|news|/a/1", "harbor|flood|news|/a/4", "harbor|台风|news|/a/2", "harbor|台风|news|/a/4",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	pages := map[string]int{}
	for _, c := range cs {
		pages[c.Site+"|"+c.Keyword] = c.Pages
		if c.Cost <= 0 || c.Round.IsZero() {
			t.Errorf("cost row %+v: no cost or round end", c)
		}
	}
	// harbor: entry + 4 articles; chirp+flood: 2 searches + 4 posts; chirp: /post/other.
	if pages["harbor|"] != 5 || pages["chirp|flood"] != 6 || pages["chirp|"] != 1 || len(pages) != 3 {
		t.Errorf("cost table pages %v", pages)
	}
}
