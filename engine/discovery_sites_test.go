package engine

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Two news sites declared on news. and blog. of one registered domain, blog's
// sitemap giving every page a lastmod of the serving time (a lie), news's honest
// dates: the Sites pane shows each site with its own sitemap, news's dates trusted
// and blog's not, and a restarted crawl shows the same. Keyed by registered domain,
// the two shared one discovery row: both listed both sitemaps, and blog's lie cost
// news its date trust.
func TestDeclaredSitesOfOneDomainKeepTheirOwnDateTrust(t *testing.T) {
	t.Parallel()
	news, blog := newDiscoSite(t), newDiscoSite(t)
	host := func(s *discoSite, name string) string {
		_, port, _ := net.SplitHostPort(s.host)
		return name + ".example.test:" + port
	}
	nh, bh := host(news, "news"), host(blog, "blog")
	for _, s := range []*discoSite{news, blog} {
		s.pages["/"] = `<html><body><p>front page</p></body></html>`
		for i := 1; i <= 6; i++ {
			s.pages[fmt.Sprintf("/p%d", i)] = versionText(i)
		}
	}
	news.raw["/sitemap.xml"] = sitemapDatedBy(nh, false)
	blog.raw["/sitemap.xml"] = sitemapDatedBy(bh, true)
	o := discoveryPollOptions(t, "http://"+nh+"/")
	o.Resolver = loopResolver{}
	o.Sites = []config.SiteOptions{
		{Name: "news", Kind: config.SiteNews, Entry: "http://" + nh + "/"},
		{Name: "blog", Kind: config.SiteNews, Entry: "http://" + bh + "/"},
	}
	e := startEngine(t, o)
	waitFor(t, "each site's sitemap read 3 times", func() bool {
		return news.requested("/sitemap.xml") >= 3 && blog.requested("/sitemap.xml") >= 3
	})
	check := func(when string, rows []view.SiteRow) {
		t.Helper()
		got := map[string]view.SiteRow{}
		for _, r := range rows {
			got[r.Name] = r
		}
		if r := got["news"]; r.DatesTrusted != "yes" || !slices.Equal(r.Sitemaps, []string{"http://" + nh + "/sitemap.xml"}) {
			t.Errorf("%s: news's row: dates trusted %q, sitemaps %v: want yes, its own sitemap only", when, r.DatesTrusted, r.Sitemaps)
		}
		if r := got["blog"]; r.DatesTrusted != "no" || !slices.Equal(r.Sitemaps, []string{"http://" + bh + "/sitemap.xml"}) {
			t.Errorf("%s: blog's row: dates trusted %q, sitemaps %v: want no, its own sitemap only", when, r.DatesTrusted, r.Sitemaps)
		}
	}
	check("while the crawl runs", e.Snapshot().Sites.Sites)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, err := New(o) // built, not started: what the store kept, nothing fetched again
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	check("after a restart", e2.fr.SitesView(time.Now(), e2.disc.View(), nil).Sites)
}

// A site declared live takes its host's sitemap, and what the crawl learned of its
// dates, out of its registered domain's row into its own: here blog's lying sitemap,
// read while blog was an undeclared host of a domain two other sites are declared
// on, shows under the site blog.example.test once `:site add` declares it, still
// untrusted, and news's row keeps its own sitemap and its trust.
func TestSiteAddTakesItsHostsDiscoveryIntoItsOwnRow(t *testing.T) {
	t.Parallel()
	news, blog, shop := newDiscoSite(t), newDiscoSite(t), newDiscoSite(t)
	host := func(s *discoSite, name string) string {
		_, port, _ := net.SplitHostPort(s.host)
		return name + ".example.test:" + port
	}
	nh, bh, sh := host(news, "news"), host(blog, "blog"), host(shop, "shop")
	for _, s := range []*discoSite{news, blog, shop} {
		s.pages["/"] = `<html><body><p>front page</p></body></html>`
	}
	news.raw["/sitemap.xml"] = sitemapDatedBy(nh, false)
	blog.raw["/sitemap.xml"] = sitemapDatedBy(bh, true)
	o := discoveryPollOptions(t, "http://"+nh+"/")
	o.Seeds = append(o.Seeds, "http://"+bh+"/")
	o.Resolver = loopResolver{}
	o.Sites = []config.SiteOptions{
		{Name: "news", Kind: config.SiteNews, Entry: "http://" + nh + "/"},
		{Name: "shop", Kind: config.SiteNews, Entry: "http://" + sh + "/"},
	}
	e := startEngine(t, o)
	row := func(site string) *view.SiteDiscovery {
		for _, r := range e.Snapshot().Discovery {
			if r.Site == site {
				return &r
			}
		}
		return nil
	}
	newsRowKept := func(r *view.SiteDiscovery) bool {
		return r != nil && r.DatesTrusted && slices.Equal(r.Sitemaps, []string{"http://" + nh + "/sitemap.xml"})
	}
	// news's row is judged after the add: it must have been whole before it.
	waitFor(t, "blog's sitemap read 3 times, as a host of example.test, and news's row with its sitemap, dates trusted", func() bool {
		r := row("example.test")
		return blog.requested("/sitemap.xml") >= 3 && r != nil && !r.DatesTrusted && newsRowKept(row("news"))
	})
	if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: "http://" + bh + "/"}); err != nil {
		t.Fatal(err)
	}
	if r := row("blog.example.test"); r == nil || r.DatesTrusted || !slices.Equal(r.Sitemaps, []string{"http://" + bh + "/sitemap.xml"}) {
		t.Errorf("the site added live: row %+v, want its sitemap, its dates still ignored", r)
	}
	if r := row("example.test"); r != nil && len(r.Sitemaps) > 0 {
		t.Errorf("the domain's row keeps sitemaps %v after the site holding them was declared", r.Sitemaps)
	}
	if r := row("news"); !newsRowKept(r) {
		t.Errorf("news's row: %+v, want its own sitemap, dates trusted", r)
	}
}

// sitemapDatedBy serves six pages of host dated the serving time (lie) or a fixed day.
func sitemapDatedBy(host string, lie bool) func(int) (string, []byte) {
	return func(int) (string, []byte) {
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		date := "2024-03-01T10:00:00Z"
		if lie {
			date = time.Now().UTC().Format(time.RFC3339Nano)
		}
		for i := 1; i <= 6; i++ {
			fmt.Fprintf(&b, "<url><loc>http://%s/p%d</loc><lastmod>%s</lastmod></url>", host, i, date)
		}
		b.WriteString(`</urlset>`)
		return "application/xml", []byte(b.String())
	}
}
