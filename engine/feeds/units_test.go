package feeds

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// newsAndBlog is the book of two news sites declared on two hosts of one
// registered domain.
func newsAndBlog() *sites.Book {
	return sites.New([]config.SiteOptions{
		{Name: "news", Kind: config.SiteNews, Entry: "http://news.example.test/"},
		{Name: "blog", Kind: config.SiteNews, Entry: "http://blog.example.test/"},
	}, nil, nil)
}

// unitDiscovery is discovery over a site book that a test may swap, as live
// steering does.
func unitDiscovery(book *atomic.Pointer[sites.Book]) *Discovery {
	return New(Options{Discovery: config.DefaultDiscovery(), Revisit: config.DefaultRevisit(), Sites: book.Load}, nopCrawl{}, nil)
}

// oneDomainRead is discovery over a site book that a test may swap, empty for now,
// that has read news.example.test's sitemap once, dated honestly, and
// blog.example.test's three times an hour apart, dated the serving time (a lie):
// one registered domain, example.test, whose hosts' evidence differs.
func oneDomainRead() (d *Discovery, book *atomic.Pointer[sites.Book], at time.Time) {
	book = new(atomic.Pointer[sites.Book])
	d = unitDiscovery(book)
	at = time.Now()
	readSitemap(d, "news.example.test", false, at)
	for i := range 3 {
		readSitemap(d, "blog.example.test", true, at.Add(time.Duration(i)*time.Hour))
	}
	return d, book, at
}

// readSitemap hands d a read of host's sitemap listing six articles, dated the
// serving time (a lastmod that is always "now": lie) or a day before.
func readSitemap(d *Discovery, host string, lie bool, at time.Time) {
	served := at.UTC().Truncate(time.Second)
	date := served.Add(-24 * time.Hour)
	if lie {
		date = served
	}
	var entries []discover.Entry
	for i := range 6 {
		entries = append(entries, discover.Entry{URL: fmt.Sprintf("http://%s/story/%d", host, i), Modified: date})
	}
	res := &fetch.Result{Header: http.Header{"Date": {served.Format(http.TimeFormat)}}}
	d.readDocument(frontier.Task{URL: "http://" + host + "/sitemap.xml", Host: host}, res,
		&discover.Doc{Kind: discover.KindSitemap, Entries: entries}, nil, at)
}

// rowOf is the Sites pane's row of site in d's view, or nil.
func rowOf(d *Discovery, site string) *view.SiteDiscovery {
	for _, r := range d.View() {
		if r.Site == site {
			return &r
		}
	}
	return nil
}

// Two news sites declared on news. and blog. of one registered domain keep apart
// what discovery learns of them: blog's sitemap, whose lastmod is always the serving
// time, costs blog its date trust and not news; each has its own row (its own
// sitemap, its own count of what it announced); and a restart keeps them apart.
// Keyed by registered domain, the two shared one row: news's dates were ignored
// for blog's lie, and the Sites pane showed both sitemaps under both sites.
func TestDeclaredSitesOfOneDomainKeepTheirOwnDiscovery(t *testing.T) {
	t.Parallel()
	var book atomic.Pointer[sites.Book]
	book.Store(newsAndBlog())
	d := unitDiscovery(&book)
	at := time.Now()
	for i := range 3 {
		readSitemap(d, "news.example.test", false, at.Add(time.Duration(i)*time.Hour))
		readSitemap(d, "blog.example.test", true, at.Add(time.Duration(i)*time.Hour))
	}
	check := func(when string, d *Discovery) {
		t.Helper()
		news, blog := rowOf(d, "news"), rowOf(d, "blog")
		if news == nil || blog == nil {
			t.Fatalf("%s: rows %+v: want one for news and one for blog", when, d.View())
		}
		if !news.DatesTrusted {
			t.Errorf("%s: news's dates are ignored (%s): another declared site's sitemap lied", when, news.Why)
		}
		if blog.DatesTrusted {
			t.Errorf("%s: blog's dates are trusted: its lastmod is always the serving time", when)
		}
		if !slices.Equal(news.Sitemaps, []string{"http://news.example.test/sitemap.xml"}) || !slices.Equal(blog.Sitemaps, []string{"http://blog.example.test/sitemap.xml"}) {
			t.Errorf("%s: sitemaps news %v, blog %v: want each its own", when, news.Sitemaps, blog.Sitemaps)
		}
		if r := rowOf(d, "example.test"); r != nil {
			t.Errorf("%s: a row for the registered domain %+v beside the declared sites", when, r)
		}
	}
	check("before a restart", d)
	if n := rowOf(d, "news").Found; n != 18 {
		t.Errorf("news announced %d URLs, want its own 18", n)
	}
	r := restartedWith(t, d, &book)
	check("after a restart", r)
	if !r.covers("news.example.test") || !r.covers("blog.example.test") {
		t.Error("after a restart a site's own sitemap does not cover its front page")
	}
}

// restartedWith is d as a restarted crawl with the site book in book finds it.
func restartedWith(t *testing.T, d *Discovery, book *atomic.Pointer[sites.Book]) *Discovery {
	t.Helper()
	b, err := json.Marshal(d.export())
	if err != nil {
		t.Fatal(err)
	}
	var st discoveryState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	r := unitDiscovery(book)
	if n := r.restore(st); n != 0 {
		t.Fatalf("%d parts of the state left out after a restart", n)
	}
	return r
}

// A store written when discovery kept its state by registered domain loads into
// the sites declared now: the domain's trust evidence goes to each declared site
// holding one of its sources (which source earned it was not kept), its sources to
// their own sites, and an undeclared host's source stays under the domain, which
// keeps the evidence too. Its coverage goes to the one site all its sources are on.
func TestOldStoreKeyedByRegisteredDomainLoadsIntoDeclaredSites(t *testing.T) {
	t.Parallel()
	lied := discover.TrustState{NowLike: []bool{true, true, true}}
	old := `{
		"sources": {
			"http://news.example.test/sitemap.xml": {"kind": "sitemap", "refused": 0},
			"http://blog.example.test/sitemap.xml": {"kind": "sitemap", "refused": 0},
			"http://shop.example.test/feed.xml": {"kind": "feed"},
			"http://www.other.test/sitemap.xml": {"kind": "sitemap"}
		},
		"trust": {"example.test": ` + mustJSON(t, lied) + `},
		"sitemap_reads": {"example.test": 2, "other.test": 1},
		"coverage": {"other.test": ` + mustJSON(t, coverOf("http://www.other.test/sitemap.xml", "http://www.other.test/")) + `}
	}`
	var st discoveryState
	if err := json.Unmarshal([]byte(old), &st); err != nil {
		t.Fatal(err)
	}
	var book atomic.Pointer[sites.Book]
	book.Store(sites.New([]config.SiteOptions{
		{Name: "news", Kind: config.SiteNews, Entry: "http://news.example.test/"},
		{Name: "blog", Kind: config.SiteNews, Entry: "http://blog.example.test/"},
		{Name: "other", Kind: config.SiteNews, Entry: "http://www.other.test/"},
	}, nil, nil))
	d := unitDiscovery(&book)
	if n := d.restore(st); n != 0 {
		t.Fatalf("%d parts of an old store's state unusable", n)
	}
	for _, site := range []string{"news", "blog", "example.test"} {
		r := rowOf(d, site)
		if r == nil {
			t.Fatalf("no row for %s after loading an old store: %+v", site, d.View())
		}
		if r.DatesTrusted {
			t.Errorf("%s trusts its dates after loading an old store whose domain's dates lied", site)
		}
	}
	if r := rowOf(d, "news"); !slices.Equal(r.Sitemaps, []string{"http://news.example.test/sitemap.xml"}) {
		t.Errorf("news's sitemaps after loading an old store: %v, want its own only", r.Sitemaps)
	}
	if r := rowOf(d, "example.test"); !slices.Equal(r.Feeds, []string{"http://shop.example.test/feed.xml"}) || len(r.Sitemaps) != 0 {
		t.Errorf("the undeclared shop host's feed: row %+v, want it under example.test alone", r)
	}
	d.mu.Lock()
	reads := d.sites["blog"].sitemapReads
	d.mu.Unlock()
	if reads != 2 {
		t.Errorf("blog's sitemap reads %d after loading an old store, want the domain's 2", reads)
	}
	if got := d.cover.Export(); got["other"].Sources == nil || got["other.test"].Sources != nil {
		t.Errorf("coverage after loading an old store is keyed %v: want other.test's under the site other", sortedKeys(got))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// coverOf is a stored coverage of two sources with nothing judged yet.
func coverOf(a, b string) discover.CoverState {
	return discover.CoverState{Sources: []discover.CoverSourceState{{URL: a}, {URL: b}}}
}

// A site declared live (steering swaps the book whole) takes its hosts' sources
// out of the registered domain's row into its own, with the evidence the domain had
// learned; the rest of the domain keeps its row. A site removed live gives them back.
func TestLiveSiteChangesMoveDiscoveryState(t *testing.T) {
	t.Parallel()
	d, book, at := oneDomainRead()
	if r := rowOf(d, "example.test"); r == nil || len(r.Sitemaps) != 2 || r.DatesTrusted {
		t.Fatalf("before any site is declared: %+v, want one row for the domain with both sitemaps, dates ignored", d.View())
	}
	// Two sites declared on the domain: neither holds the rest of it, so blog's host
	// stays the domain's.
	book.Store(sites.New([]config.SiteOptions{
		{Name: "news", Kind: config.SiteNews, Entry: "http://news.example.test/"},
		{Name: "shop", Kind: config.SiteNews, Entry: "http://shop.example.test/"},
	}, nil, nil))
	news, rest := rowOf(d, "news"), rowOf(d, "example.test")
	if news == nil || rest == nil {
		t.Fatalf("after news is declared: %+v, want rows news and example.test", d.View())
	}
	if !slices.Equal(news.Sitemaps, []string{"http://news.example.test/sitemap.xml"}) || !slices.Equal(rest.Sitemaps, []string{"http://blog.example.test/sitemap.xml"}) {
		t.Errorf("after news is declared: news %v, the domain %v: want each its own host's sitemap", news.Sitemaps, rest.Sitemaps)
	}
	if news.DatesTrusted || rest.DatesTrusted {
		t.Errorf("after news is declared: dates trusted news %v, the domain %v: want the domain's evidence kept by both", news.DatesTrusted, rest.DatesTrusted)
	}
	// news's own reads from now on earn it its own evidence.
	for i := range 20 {
		readSitemap(d, "news.example.test", false, at.Add(time.Duration(3+i)*time.Hour))
	}
	if r := rowOf(d, "news"); !r.DatesTrusted {
		t.Errorf("news's dates are still ignored after 20 honest sitemaps of its own (%s)", r.Why)
	}
	if !d.covers("news.example.test") {
		t.Error("news's own sitemap does not cover its front page once it is declared")
	}
	book.Store(nil)
	if v := d.View(); len(v) != 1 || v[0].Site != "example.test" || len(v[0].Sitemaps) != 2 {
		t.Errorf("after news is removed: %+v, want the domain's one row with both sitemaps", v)
	}
}

// A stored unit with trust evidence and no source (nothing names its hosts) keeps
// its evidence under its own name, with or without a site book.
func TestStoredTrustWithoutSourcesStaysWithItsUnit(t *testing.T) {
	t.Parallel()
	st := discoveryState{Trust: map[string]discover.TrustState{"liar.example": {NowLike: []bool{true, true, true}}}}
	for _, d := range []*Discovery{newTestDiscovery(), New(Options{Discovery: config.DefaultDiscovery(), Sites: newsAndBlog}, nopCrawl{}, nil)} {
		if n := d.restore(st); n != 0 {
			t.Fatalf("%d parts left out", n)
		}
		if r := rowOf(d, "liar.example"); r == nil || r.DatesTrusted {
			t.Errorf("stored evidence of liar.example restored as %+v: want its row, dates ignored", r)
		}
	}
}

// When a live change splits one discovery row over several sites, what the row
// counted (URLs announced, date moves followed and ignored, warnings) goes with the
// hosts that counted it: each new row shows its own hosts' counts and none is lost,
// so the metrics' counters summed over the rows (announced, hints) never go back.
// The emptied row's counts used to be dropped: news and blog both showed 0.
func TestASplitRowKeepsItsCountsWithTheirHosts(t *testing.T) {
	t.Parallel()
	d, book, at := oneDomainRead()
	d.readDocument(frontier.Task{URL: "http://blog.example.test/feed.xml", Host: "blog.example.test"}, &fetch.Result{},
		&discover.Doc{Kind: discover.KindFeed, Warnings: map[string]int{"bad_date": 2}}, nil, at)
	dom := rowOf(d, "example.test")
	if dom == nil || dom.Found != 24 || dom.Warnings["bad_date"] != 2 {
		t.Fatalf("before any site is declared: %+v, want the domain's row with 24 URLs announced and 2 bad dates", d.View())
	}
	sum := func(v []view.SiteDiscovery) (found, hints, ignored int64, warnings int) {
		for _, r := range v {
			found, hints, ignored = found+r.Found, hints+r.Hints, ignored+r.Ignored
			for _, n := range r.Warnings {
				warnings += n
			}
		}
		return
	}
	f0, h0, i0, w0 := sum(d.View())
	book.Store(newsAndBlog())
	v := d.View()
	news, blog := rowOf(d, "news"), rowOf(d, "blog")
	if news == nil || blog == nil || rowOf(d, "example.test") != nil {
		t.Fatalf("after news and blog are declared: %+v, want rows news and blog only", v)
	}
	if news.Found != 6 || blog.Found != 18 {
		t.Errorf("after the split: news announced %d and blog %d; want each its own host's 6 and 18", news.Found, blog.Found)
	}
	if news.Warnings["bad_date"] != 0 || blog.Warnings["bad_date"] != 2 {
		t.Errorf("after the split: bad dates news %d, blog %d; want blog's own 2 with blog", news.Warnings["bad_date"], blog.Warnings["bad_date"])
	}
	if f, h, i, w := sum(v); f != f0 || h != h0 || i != i0 || w != w0 {
		t.Errorf("after the split the rows sum to %d announced, %d hints, %d ignored, %d warnings; before, %d, %d, %d, %d: a counter went back",
			f, h, i, w, f0, h0, i0, w0)
	}
	book.Store(nil)
	if r := rowOf(d, "example.test"); r == nil || r.Found != 24 || r.Warnings["bad_date"] != 2 {
		t.Errorf("after the sites are removed again: %+v, want the domain's row with all 24 URLs and 2 bad dates", d.View())
	}
}
