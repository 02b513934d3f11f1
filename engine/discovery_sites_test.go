package engine

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
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
	sitemap := func(h string, lie bool) func(int) (string, []byte) {
		return func(int) (string, []byte) {
			var b strings.Builder
			b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			date := "2024-03-01T10:00:00Z"
			if lie {
				date = time.Now().UTC().Format(time.RFC3339Nano)
			}
			for i := 1; i <= 6; i++ {
				fmt.Fprintf(&b, "<url><loc>http://%s/p%d</loc><lastmod>%s</lastmod></url>", h, i, date)
			}
			b.WriteString(`</urlset>`)
			return "application/xml", []byte(b.String())
		}
	}
	for _, s := range []*discoSite{news, blog} {
		s.pages["/"] = `<html><body><p>front page</p></body></html>`
		for i := 1; i <= 6; i++ {
			s.pages[fmt.Sprintf("/p%d", i)] = versionText(i)
		}
	}
	news.raw["/sitemap.xml"] = sitemap(nh, false)
	blog.raw["/sitemap.xml"] = sitemap(bh, true)
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
	check("after a restart", e2.fr.SitesView(time.Now(), e2.disc.View()).Sites)
}
