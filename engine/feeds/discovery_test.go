package feeds

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// nopCrawl is a crawl that queues nothing: the tests here watch what discovery
// itself learns from the reads they hand it.
type nopCrawl struct{}

func (nopCrawl) Now() time.Time                                  { return time.Now() }
func (nopCrawl) Logf(view.Level, string, string, ...any)         {}
func (nopCrawl) Count(string)                                    {}
func (nopCrawl) QueueSitemaps([]string)                          {}
func (nopCrawl) Requeue(urls []string, _ time.Time) (int, error) { return len(urls), nil }
func (nopCrawl) NotQueued(urls []string) []string                { return urls }
func (nopCrawl) NewsSite(string) bool                            { return false }
func (nopCrawl) Withdraw(urls []string) int                      { return len(urls) }
func (nopCrawl) KeepSources([]string)                            {}
func (nopCrawl) MarkOut([]string)                                {}

// newTestDiscovery is discovery with the default options, no store and nopCrawl.
func newTestDiscovery() *Discovery {
	return New(Options{Discovery: config.DefaultDiscovery(), Revisit: config.DefaultRevisit()}, nopCrawl{}, nil)
}

// A news sitemap on www listing articles of the site's section hosts
// covers the site once those hosts' robots.txt vouch for it, so the www entry page
// stops being polled like a feed. Otherwise one refusal on a read made before a
// section host's robots.txt came in (the usual order: the sitemap is read first)
// would leave the entry page polled for the whole crawl (on the live bench, 23 polls
// of one entry page in 1.5 web days). A sitemap the section hosts do not name (undeclared, as
// /sitemap.xml found by probing) never covers them.
func TestSitemapCoversTheSiteOnceSectionHostsVouch(t *testing.T) {
	t.Parallel()
	const sitemap = "http://www.paper.example/sitemap-news.xml"
	doc := &discover.Doc{Kind: discover.KindSitemap, Entries: []discover.Entry{
		{URL: "http://www.paper.example/story/1"},
		{URL: "http://world.paper.example/story/2"},
		{URL: "http://elsewhere.example/story/3"}, // another site's: refused, not the site's gap
	}}
	read := func(e *Discovery) []string {
		res := &fetch.Result{}
		task := frontier.Task{URL: sitemap, Host: "www.paper.example"}
		e.readDocument(task, res, doc, nil, time.Now())
		return res.Links
	}
	tests := []struct {
		name  string
		vouch bool // world.paper.example's robots.txt names the sitemap
		want  bool
	}{
		{"section host vouches", true, true},
		{"section host's robots.txt names another sitemap", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestDiscovery()
			d := e
			if got := read(e); len(got) != 1 {
				t.Fatalf("first read admitted %v: want only www's story (world's robots.txt not read yet)", got)
			}
			if d.covers("www.paper.example") {
				t.Fatal("covered before the section host's robots.txt was read: its articles would be found by nothing")
			}
			d.mu.Lock()
			d.origins["http://world.paper.example"] = true
			if tc.vouch {
				d.cross[sitemap] = append(d.cross[sitemap], "world.paper.example")
			}
			d.mu.Unlock()
			links := read(e)
			if got := d.covers("www.paper.example"); got != tc.want {
				t.Errorf("covered after the section host's robots.txt = %v, want %v (links %v)", got, tc.want, links)
			}
			if !tc.vouch {
				return
			}
			if len(links) != 2 {
				t.Errorf("second read admitted %v: want both stories of the site", links)
			}
			// A new section appears: its host's robots.txt was never read, so the
			// sitemap may not speak for it, and the entry page that links it is made
			// due at once (it would otherwise wait for the page revisit schedule).
			d.mu.Lock()
			d.entries["paper.example"] = []string{"http://www.paper.example/"}
			d.mu.Unlock()
			grown := &discover.Doc{Kind: doc.Kind, Entries: append(slices.Clone(doc.Entries), discover.Entry{URL: "http://sport.paper.example/story/4"})}
			due, _ := e.readDocument(frontier.Task{URL: sitemap, Host: "www.paper.example"}, &fetch.Result{}, grown, nil, time.Now())
			if d.covers("www.paper.example") || !slices.Contains(due, "http://www.paper.example/") {
				t.Errorf("a new section host: covered %v, due %v: want not covered and the entry page due", d.covers("www.paper.example"), due)
			}
		})
	}
}

// "lastmod is always now" is judged on the server's clock. A site whose
// clock runs hours off ours still serves its lie as lastmod = Date; compared with
// our fetch time instead, such a site would keep its trust (as the lying site did on
// the live bench, whose sites run on the web clock).
func TestAlwaysNowIsJudgedOnTheServersClock(t *testing.T) {
	t.Parallel()
	e := newTestDiscovery()
	ours := time.Now()
	for _, skew := range []time.Duration{0, 3 * time.Hour, -26 * time.Hour} {
		served := ours.Add(skew).UTC().Truncate(time.Second)
		var entries []discover.Entry
		for i := range 6 {
			entries = append(entries, discover.Entry{URL: fmt.Sprintf("http://www.liar.example/story/%d", i), Modified: served})
		}
		res := &fetch.Result{Header: http.Header{"Date": {served.Format(http.TimeFormat)}}}
		task := frontier.Task{URL: "http://www.liar.example/sitemap.xml", Host: "www.liar.example"}
		e.readDocument(task, res, &discover.Doc{Kind: discover.KindSitemap, Entries: entries}, nil, ours)
	}
	if ok, why := e.sites["liar.example"].trust.Trusted(); ok {
		t.Errorf("a sitemap whose lastmod is always its Date is trusted (%q): want its dates ignored", why)
	}
}

// A source's poll rate is what it lists anew, whoever fetched the articles
// first. Here the entry page has found both new stories before the sitemap is read
// again; the sitemap still shows two new entries (counting only what was new to
// the crawl, 0: it would look dead and be read once a day). A source too large to remember falls back to the crawl's count.
func TestSourceCountsWhatItListsAnew(t *testing.T) {
	t.Parallel()
	d := newTestDiscovery()
	const src = "http://www.paper.example/sitemap-news.xml"
	doc := func(urls ...string) *discover.Doc {
		out := &discover.Doc{Kind: discover.KindSitemap}
		for _, u := range urls {
			out.Entries = append(out.Entries, discover.Entry{URL: "http://www.paper.example/story/" + u})
		}
		return out
	}
	if _, ok := d.newSinceLastRead(src, doc("1", "2")); ok {
		t.Error("first read compared with nothing: want no count")
	}
	if n, ok := d.newSinceLastRead(src, doc("3", "1", "4", "2")); !ok || n != 2 {
		t.Errorf("second read: %d new (ok %v), want 2", n, ok)
	}
	if n, ok := d.newSinceLastRead(src, &discover.Doc{Kind: discover.KindSitemap}); ok || n != 0 {
		t.Errorf("a 304: %d new (ok %v), want nothing counted", n, ok)
	}
	if n, ok := d.newSinceLastRead(src, doc("4", "5")); !ok || n != 1 {
		t.Errorf("after a 304: %d new (ok %v), want 1 against the last read's list", n, ok)
	}
	big := make([]string, maxListed+1)
	for i := range big {
		big[i] = fmt.Sprint(i)
	}
	if _, ok := d.newSinceLastRead(src, doc(big...)); ok || d.listed[src] != nil || d.nListed != 0 {
		t.Errorf("a source over %d entries: ok %v, %d hashes kept: want it forgotten", maxListed, ok, d.nListed)
	}
}

// An entry page polled like a feed learns its site's publishing rate from
// the links it lists anew since its last read, as a feed does, not from the links new
// to the crawl. Here every read shows 3 new stories that another path (a section
// host's front page, refetched by the page revisit policy) had brought in first:
// counted as new to the crawl the page looked dead and went to the daily pace.
func TestEntryPageRateIsWhatItListsAnew(t *testing.T) {
	t.Parallel()
	e := newTestDiscovery()
	const entry = "http://www.paper.example/"
	task := frontier.Task{URL: entry, Host: "www.paper.example"}
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for read := range 72 {
		known := []string{entry, entry + "about"}
		for i := 3 * read; i < 3*read+20; i++ { // the latest 20, 3 more each hour
			known = append(known, fmt.Sprintf("%sstory/%d", entry, i))
		}
		rv := &model.Revisit{URL: entry}
		e.PollEntry(task, nil, known, rv, at) // none new to the crawl: found first elsewhere
		at = at.Add(time.Hour)
	}
	if r := e.poller.Rate(entry); r < 2 || r > 4 {
		t.Errorf("learned %.2f new stories an hour, want about the 3 the page lists anew each hour", r)
	}
	if d := e.poller.Interval(entry); d > 2*time.Hour {
		t.Errorf("read every %v: a page gaining 3 stories an hour is read at most every 2 hours", d)
	}
}

// A sitemap that may speak only for its own host, beside a front page that
// lists the newest stories of every section (the sandbox's undeclared sitemap): what
// the sitemap lists anew the front page has always listed first. It is read at the
// longest interval and its share of the polls goes to the others; the Sites pane
// says which source covers it. The front page, whose section stories the sitemap
// never lists, keeps its own rate.
func TestASitemapTheFrontPageCoversIsReadDaily(t *testing.T) {
	t.Parallel()
	e := newTestDiscovery()
	const entry = "http://www.paper.example/"
	const sitemap = entry + "sitemap.xml"
	front := frontier.Task{URL: entry, Host: "www.paper.example"}
	sections := []string{"www", "politics", "world"}
	story := func(i int) string {
		return fmt.Sprintf("http://%s.paper.example/story/%d", sections[i%3], i)
	}
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var smRV *model.Revisit
	for hour := range 72 {
		n := 3 * (hour + 10) // 3 stories an hour, one per section
		known := []string{entry + "about"}
		for i := n - 20; i < n; i++ {
			known = append(known, story(i))
		}
		e.PollEntry(front, nil, known, &model.Revisit{URL: entry}, at)
		if hour%3 == 0 {
			doc := &discover.Doc{Kind: discover.KindSitemap}
			var listing []string
			for i := 0; i < n; i += 3 { // its own host's stories only
				doc.Entries = append(doc.Entries, discover.Entry{URL: story(i)})
				listing = append(listing, story(i))
			}
			smRV = &model.Revisit{URL: sitemap}
			e.SchedulePoll(sitemap, doc, nil, listing, smRV, at)
		}
		at = at.Add(time.Hour)
	}
	if got := smRV.Next.Sub(at.Add(-3 * time.Hour)); got != 24*time.Hour {
		t.Errorf("the covered sitemap is next read %v after its last read, want the longest interval (24h)", got)
	}
	if by := e.shadowed["paper.example"][sitemap]; by != entry {
		t.Errorf("the sitemap is shown covered by %q, want the front page", by)
	}
	if e.poller.Shadowed(entry) {
		t.Error("the front page is shadowed: the sitemap never lists its section stories")
	}
	if d := e.poller.Interval(entry); d > 2*time.Hour {
		t.Errorf("the front page is read every %v, want at most every 2 hours (3 new stories an hour)", d)
	}
	// A restart keeps it: the sitemap is read daily from the start, not at its own
	// rate until 8 new URLs show the cover again.
	e.sources[sitemap] = discover.KindSitemap // as its read registers it (readDocument)
	r := restarted(t, e)
	if d := r.poller.Interval(sitemap); d != 24*time.Hour || r.shadowed["paper.example"][sitemap] != entry {
		t.Errorf("after a restart the sitemap is read every %v, covered by %q: want 24h, by the front page", d, r.shadowed["paper.example"][sitemap])
	}
	// A steering log holding :site rm then :site add of the site replays both at
	// every start: the site comes back as the restart restored it, covered sitemap
	// and all (no second pause on top of the restart's).
	re := r
	rate := r.poller.Rate(sitemap)
	restored := r.poller.Export()[sitemap]
	paper := sites.New([]config.SiteOptions{{Name: "paper.example", Kind: config.SiteNews, Entry: entry}}, nil, nil)
	re.WithdrawSite("paper.example", paper, false)
	re.RestoreSite("paper.example", paper, false)
	if d := r.poller.Interval(sitemap); d != 24*time.Hour || r.shadowed["paper.example"][sitemap] != entry {
		t.Errorf("after replaying :site rm and :site add the sitemap is read every %v, covered by %q: want 24h, by the front page", d, r.shadowed["paper.example"][sitemap])
	}
	if st := r.poller.Export()[sitemap]; st != restored || r.poller.Rate(sitemap) != rate {
		t.Errorf("after the replay the sitemap's state is %+v (rate %.3f, was %.3f): want it as restored, %+v", st, r.poller.Rate(sitemap), rate, restored)
	}
	// The front page fails (a 5xx): it covers nothing while it fails, and the
	// sitemap is read at its own rate again.
	e.SourceFailed(entry)
	if e.poller.Shadowed(sitemap) || len(e.shadowed["paper.example"]) != 0 {
		t.Errorf("the sitemap is still shadowed by a front page whose read failed")
	}
	if d := e.poller.Interval(sitemap); d >= 24*time.Hour {
		t.Errorf("the sitemap's interval is %v once the front page failed, want its own rate's", d)
	}
}

// A site whose sitemap had to refuse pages of its own section host (off_host: that
// host's robots.txt does not name the sitemap) is not covered by it, so its entry
// page stays polled; a restart keeps that verdict. Before, the restarted crawl took
// the site for covered (what the sitemap's last read refused was not kept), and the
// entry page's first fetch after the restart dropped the pace its polls had learned.
func TestSitemapGapIsKeptAcrossARestart(t *testing.T) {
	t.Parallel()
	e := newTestDiscovery()
	sitemap := "http://www.paper.example/sitemap.xml"
	task := frontier.Task{URL: sitemap, Host: "www.paper.example"}
	doc := &discover.Doc{Kind: discover.KindSitemap, Entries: []discover.Entry{
		{URL: "http://www.paper.example/story/1"},
		{URL: "http://sport.paper.example/story/2"}, // its robots.txt does not vouch for the sitemap
	}}
	e.readDocument(task, &fetch.Result{}, doc, nil, time.Now())
	if e.covers("www.paper.example") {
		t.Fatal("a sitemap that refused a page of its own site covers it")
	}
	r := restarted(t, e)
	if r.covers("www.paper.example") {
		t.Error("after a restart the site is covered by a sitemap whose last read refused its section host's page")
	}
}

// A child sitemap read after a restart before its index is read again still speaks
// for the hosts whose robots.txt named the index (cross-submission): no false gap,
// no off_host refusal. Before, which index listed it and who vouched for that index
// were not kept.
func TestCrossSubmittedChildSitemapAfterARestart(t *testing.T) {
	t.Parallel()
	e := newTestDiscovery()
	index := "http://www.paper.example/sitemap-index.xml"
	child := "http://www.paper.example/sitemap-sport.xml"
	e.cross[index] = []string{"sport.paper.example"} // as the sport host's robots.txt registers it
	e.readDocument(frontier.Task{URL: index, Host: "www.paper.example"}, &fetch.Result{},
		&discover.Doc{Kind: discover.KindIndex, Entries: []discover.Entry{{URL: child}}}, nil, time.Now())
	readChild := func(e *Discovery) {
		e.readDocument(frontier.Task{URL: child, Host: "www.paper.example"}, &fetch.Result{},
			&discover.Doc{Kind: discover.KindSitemap, Entries: []discover.Entry{{URL: "http://sport.paper.example/story/1"}}}, nil, time.Now())
	}
	readChild(e)
	if !e.covers("www.paper.example") {
		t.Fatal("before the restart the child sitemap does not speak for the host that vouched for its index")
	}
	r := restarted(t, e)
	readChild(r)
	if !r.covers("www.paper.example") || r.sites["paper.example"].total().warnings["off_host"] != 0 {
		t.Errorf("after a restart the child sitemap refused the vouching host's page (off_host %d)", r.sites["paper.example"].total().warnings["off_host"])
	}
}

// restarted is d as a restarted crawl finds it: its state through the JSON the
// store keeps, restored into a new discovery, with nothing left out.
func restarted(t *testing.T, d *Discovery) *Discovery {
	t.Helper()
	b, err := json.Marshal(d.export())
	if err != nil {
		t.Fatal(err)
	}
	var st discoveryState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	r := newTestDiscovery()
	if n := r.restore(st); n != 0 {
		t.Fatalf("%d parts of the state left out after a restart", n)
	}
	return r
}

// Of two news sites declared on www. and news. of one registered domain, the
// sitemap found on www. covers www.'s front page only: news.'s front page, which
// that sitemap does not list, is still polled. Keyed by registered domain, the
// www. sitemap stopped the polling of every site of the domain.
func TestSitemapCoversItsOwnDeclaredSiteOnly(t *testing.T) {
	t.Parallel()
	book := sites.New([]config.SiteOptions{
		{Name: "www", Kind: config.SiteNews, Entry: "http://www.paper.example/"},
		{Name: "news", Kind: config.SiteNews, Entry: "http://news.paper.example/"},
	}, nil, nil)
	d := New(Options{Discovery: config.DefaultDiscovery(), Revisit: config.DefaultRevisit(),
		Sites: func() *sites.Book { return book }}, nopCrawl{}, nil)
	const sitemap = "http://www.paper.example/sitemap-news.xml"
	doc := &discover.Doc{Kind: discover.KindSitemap, Entries: []discover.Entry{{URL: "http://www.paper.example/story/1"}}}
	d.readDocument(frontier.Task{URL: sitemap, Host: "www.paper.example"}, &fetch.Result{}, doc, nil, time.Now())
	if !d.covers("www.paper.example") {
		t.Error("www's own sitemap does not cover its front page")
	}
	if d.covers("news.paper.example") {
		t.Error("www's sitemap covers news's front page, another declared site's: it would no longer be polled")
	}
}
