package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/store"
)

// topicWeb is one news site and one social site on two loopback addresses. The news
// entry lists four articles, two of them about floods and two about typhoons (one
// both), one about neither; the social site's search lists two posts per result
// page, and every post links to one unrelated post.
type topicWeb struct {
	news, social string // "127.0.0.x:port"
	mu           sync.Mutex
	hits         map[string]int            // path?query -> requests
	agents       map[string]map[string]int // User-Agent -> path?query -> requests
}

var topicArticles = map[string]string{
	"/a/1": "Harbour flood: the river rose two metres overnight and the quay was closed to traffic.",
	"/a/2": "台风「海葵」今晨登陆，沿海多地停课停工，渡轮全部停航。",
	"/a/3": "The city council approved the new library budget after a long debate on Tuesday.",
	"/a/4": "FLOOD warnings after the 台风: the harbour master asks boats to stay in port until Friday.",
}

// fetchedBy is how often each page whose path?query starts with prefix was asked
// for by a crawler sending agent as its User-Agent: a test tells two runs of a crawl
// apart by it, as a request the first run had sent may reach the server only after
// that run was closed.
func (w *topicWeb) fetchedBy(agent, prefix string) map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for uri, n := range w.agents[agent] {
		if strings.HasPrefix(uri, prefix) {
			out[uri] = n
		}
	}
	return out
}

// fetched is how often each page whose path?query starts with prefix was asked for.
func (w *topicWeb) fetched(prefix string) map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for uri, n := range w.hits {
		if strings.HasPrefix(uri, prefix) {
			out[uri] = n
		}
	}
	return out
}

func newTopicWeb(t *testing.T) *topicWeb {
	t.Helper()
	w := &topicWeb{hits: map[string]int{}, agents: map[string]map[string]int{}}
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
	if w.agents[r.UserAgent()] == nil {
		w.agents[r.UserAgent()] = map[string]int{}
	}
	w.agents[r.UserAgent()][r.URL.RequestURI()]++
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

func topicOptions(t *testing.T, w *topicWeb) config.Options {
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 4
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.HostRate = 0
	// A loopback web's response time is this box's load, not a server's: with the
	// default politeness a loaded box's slow answers read as a sinking host, whose
	// back-off starts at a minute and doubles with each further slow answer (six
	// answers of a second or two: nine minutes). Politeness tests set their own.
	o.Politeness = config.FixedPoliteness()
	o.Revisit.Enabled = false
	o.Keywords = []string{"flood", "台风"}
	o.Sites = []config.SiteOptions{
		{Name: "harbor", Kind: config.SiteNews, Entry: "http://" + w.news + "/"},
		{Name: "chirp", Kind: config.SiteSocial, Search: "http://" + w.social + "/search?q={keyword}&page={page}", Pages: 2,
			Keywords: []string{"flood"}},
	}
	return o
}

func readResults(t *testing.T, path string) (rs []store.Result, cs []store.Cost) {
	t.Helper()
	withStore(t, path, func(st *store.Store) {
		var err error
		if rs, err = st.Results(); err != nil {
			t.Fatal(err)
		}
		if cs, err = st.Costs(); err != nil {
			t.Fatal(err)
		}
	})
	return rs, cs
}

// News pages are results only for the keywords their text holds; a social search's
// result pages and the posts they list are results for the keyword searched, and
// the posts' own links are not. Every fetch is costed to its site (news) or
// site+keyword (social).
func TestCollectionByKeyword(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	o.Rounds.PagesPerIP = 3
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	// One social keyword x 2 result pages, 3 pages per IP: 1 VPN (M3 sizing).
	if sz := e.Snapshot().Sizing; sz == nil || sz.Keywords != 1 || sz.PagesPerKeyword != 2 || sz.VPNs != 1 || sz.Sites != 2 || sz.Round != 1 {
		t.Errorf("sizing %+v", sz)
	}
	// --stats-json carries the same estimate and its inputs.
	b, err := json.Marshal(e.Stats())
	if err != nil {
		t.Fatal(err)
	}
	var stats struct {
		Sizing map[string]any `json:"sizing"`
	}
	if err := json.Unmarshal(b, &stats); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"vpns_needed": 1.0, "keywords": 1.0, "pages_per_keyword": 2.0,
		"pages_per_ip": 3.0, "pages_per_ip_from": "config", "sites": 2.0, "social_sites": 1.0} {
		if got := stats.Sizing[k]; got != want {
			t.Errorf("stats sizing.%s = %v, want %v (%s)", k, got, want, b)
		}
	}
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
	// harbor: entry + 4 articles + the /sitemap.xml a news site is asked for (a
	// 404 here); chirp+flood: 2 searches + 4 posts; chirp: /post/other.
	if pages["harbor|"] != 6 || pages["chirp|flood"] != 6 || pages["chirp|"] != 1 || len(pages) != 3 {
		t.Errorf("cost table pages %v", pages)
	}
	// A crawl started again on the store begins from the cost table the last run left.
	again, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	restored := map[string]int{}
	for _, c := range again.CostTable() {
		restored[c.Site+"|"+c.Keyword] = c.Pages
	}
	if !maps.Equal(restored, pages) {
		t.Errorf("cost table after a restart %v, want the stored %v", restored, pages)
	}
}

// A second round fetches every entry and search URL again; of the links they lead
// to, known news articles (inside web_com's window) are refetched, known posts
// (soc window closed) are not.
func TestSecondRoundRefetchesSourcesAndWindowedResults(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	o.Rounds.Every = 400 * time.Millisecond
	o.Revisit.Windows = map[string]time.Duration{"soc": time.Nanosecond}
	e := startEngine(t, o)
	hits := func(p string) int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.hits[p]
	}
	// Rounds end by the clock (every 400 ms), so on a busy box a round's fetches can
	// run into the next one: which round a result is stamped with is the product's
	// to say, not the test's to assume. Wait until the store shows what a second
	// round does — the results, some of them stamped by a later round end than the
	// rest — and fail if it never does.
	stamped := func() (results, rounds int) {
		st, err := store.OpenReadOnly(o.DB)
		if err != nil {
			return 0, 0
		}
		defer st.Close()
		rs, err := st.Results()
		if err != nil {
			return 0, 0
		}
		ends := map[int64]bool{}
		for _, r := range rs {
			ends[r.Round.UnixNano()] = true
		}
		return len(rs), len(ends)
	}
	waitFor(t, "a second round's refetches, stored", func() bool {
		if hits("/") < 2 || hits("/search?q=flood&page=2") < 2 || hits("/a/3") < 2 {
			return false
		}
		n, rounds := stamped()
		return n == 10 && rounds >= 2
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if n := hits("/post/flood-1-1"); n != 1 {
		t.Errorf("a post past its class window was fetched %d times, want once", n)
	}
	rs, cs := readResults(t, o.DB)
	var rounds = map[int64]bool{}
	for _, r := range rs {
		rounds[r.Round.UnixNano()] = true
	}
	if len(rs) != 10 || len(rounds) < 2 {
		t.Errorf("%d results over %d round ends: want the 10 results, later rounds updating them", len(rs), len(rounds))
	}
	if len(cs) == 0 {
		t.Error("no cost table after two rounds")
	}
}

// pagerWeb is a social site whose search result pages link to every result page of
// their query (a pagination bar) and to one post each.
type pagerWeb struct {
	addr  string
	pages int
	mu    sync.Mutex
	hits  map[string]int // "q/page" -> requests of that search page
}

func newPagerWeb(t *testing.T, pages int) *pagerWeb {
	t.Helper()
	w := &pagerWeb{pages: pages, hits: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.33:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.33: %v", err)
	}
	srv := &http.Server{Handler: w}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	w.addr = ln.Addr().String()
	return w
}

func (w *pagerWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	q, n := r.URL.Query().Get("q"), r.URL.Query().Get("page")
	switch r.URL.Path {
	case "/search":
		w.mu.Lock()
		w.hits[q+"/"+n]++
		w.mu.Unlock()
		var b strings.Builder
		fmt.Fprintf(&b, `<html><body><article><p>Results for %s, page %s</p><a href="/post/%s-%s">post</a><nav>`, q, n, q, n)
		for p := 1; p <= w.pages; p++ {
			fmt.Fprintf(&b, `<a href="/search?q=%s&page=%d">%d</a> `, q, p, p)
		}
		fmt.Fprint(&b, `</nav></article></body></html>`)
		fmt.Fprint(rw, b.String())
	case "/post/" + strings.TrimPrefix(r.URL.Path, "/post/"):
		fmt.Fprint(rw, `<html><body><article><p>A post about the weather and the sea, long enough to count as main text.</p></article></body></html>`)
	default:
		http.NotFound(rw, r)
	}
}

// requested is how many of q's search pages were asked for, and the most requests
// any of them had.
func (w *pagerWeb) requested(q string) (pages, most int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, n := range w.hits {
		if strings.HasPrefix(k, q+"/") {
			pages++
			most = max(most, n)
		}
	}
	return pages, most
}

// A search page's links to its query's other result pages (a pagination bar, a
// "next page" link) lead to sources of the round: the round fetches each once, and
// they are not refetched as the page's known results (M3 refetches those inside
// their class window). Refetched, a page was requested again after every other page
// linking to it — a social site's search quota spent over and over in one round —
// and a `:keyword rm` meanwhile withdrew those queued second fetches as searches
// never requested (steered_out), although they had been: counted both fetched and
// withdrawn (seen on a master, whose unit moved between workers and came back in
// reverse order, so each page's "next page" had been fetched before it).
func TestSearchPagesLinkingEachOtherAreFetchedOncePerRound(t *testing.T) {
	t.Parallel()
	const pages = 12
	options := func(w *pagerWeb) config.Options {
		o := testDefaults()
		o.DB = filepath.Join(t.TempDir(), "crawl.db")
		o.AllowPrivate = []string{"127.0.0.0/8"}
		o.HostRate = 0
		o.Revisit.Enabled = false
		o.Lanes.DelayMin, o.Lanes.DelayMax = 15*time.Millisecond, 25*time.Millisecond
		o.Sites = []config.SiteOptions{{Name: "chirp", Kind: config.SiteSocial, Search: "http://" + w.addr + "/search?q={keyword}&page={page}",
			Pages: pages, Keywords: []string{"flood"}}}
		return o
	}
	t.Run("a round", func(t *testing.T) {
		w := newPagerWeb(t, pages)
		e := startEngine(t, options(w))
		waitDone(t, e, 20*time.Second)
		if n, most := w.requested("flood"); n != pages || most != 1 {
			t.Errorf("%d of %d search pages requested, one of them %d times; want each once in the round", n, pages, most)
		}
	})
	t.Run("keyword removed halfway", func(t *testing.T) {
		w := newPagerWeb(t, pages)
		e := startEngine(t, options(w))
		waitFor(t, "half the searches", func() bool { n, _ := w.requested("flood"); return n >= pages/2 })
		s, err := steer.Parse(strings.Fields("keyword rm chirp flood"))
		if err != nil {
			t.Fatal(err)
		}
		msg, err := e.Steer(s)
		if err != nil {
			t.Fatal(err)
		}
		waitDone(t, e, 20*time.Second)
		n, most := w.requested("flood")
		if got, want := skippedAs(e, front.SkipSteeredOut), int64(pages-n); got != want || most != 1 {
			t.Errorf("%d searches counted withdrawn (%s), want the %d never requested (%d of %d requested, one %d times; %q)",
				got, front.SkipSteeredOut, want, n, pages, most, msg)
		}
	})
}
