package engine

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// newDiscoSiteOn is newDiscoSite on another loopback address (127.0.0.2: another
// host name for the scope rules).
func newDiscoSiteOn(t *testing.T, ip string) *discoSite {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s (loopback aliases needed): %v", ip, err)
	}
	s := &discoSite{host: ln.Addr().String(), pages: map[string]string{}, raw: map[string]func(int) (string, []byte){}}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Cross-submission: a section host whose robots.txt names the www sitemap
// lets that sitemap list its pages, even when the crawl's first response from the
// section host was a 404 (on the publishing sandbox, a section host's "/" linked from
// the www entry page). Before, robots.txt's Sitemap lines rode on the origin's first
// response only and were taken in only when that response was a stored page, so after
// a 404 first the host's articles stayed refused as off-host for the whole crawl.
func TestCrossSubmissionAfterANotFoundFirstResponse(t *testing.T) {
	t.Parallel()
	www := newDiscoSite(t)
	sec := newDiscoSiteOn(t, "127.0.0.2")
	sitemap := "http://" + www.host + "/sitemap.xml"
	www.robots = "Sitemap: " + sitemap + "\n"
	sec.robots = "Sitemap: " + sitemap + "\n"
	www.pages["/"] = `<html><body><p>front page</p></body></html>`
	www.raw["/sitemap.xml"] = static("application/xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://`+sec.host+`/story/1</loc></url></urlset>`)
	sec.pages["/story/1"] = `<html><body><p>a story on the section host</p></body></html>`
	o := discoveryPollOptions(t, "http://"+www.host+"/")
	o.Seeds = append(o.Seeds, "http://"+sec.host+"/gone") // 404: the section host's first response
	o.Discovery.Probe = config.ProbeOff
	startEngine(t, o)
	waitFor(t, "the section host's story the www sitemap lists", func() bool {
		return sec.requested("/story/1") > 0
	})
	if got := sec.paths(); len(got) == 0 || got[0] != "/robots.txt" {
		t.Errorf("section host requests %v: want robots.txt first", got)
	}
}

// Sites with neither feed nor sitemap are still discovered: a seed's page on a site with no
// feed or sitemap is polled like a feed, at the pace of the new links it shows. Here
// the entry page gains an article link every 100 ms while the page revisit policy
// would wait an hour (revisit.initial); before, the entry page was fetched once.
func TestEntryPageOfASiteWithNeitherIsPolled(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	start := time.Now()
	s.raw["/"] = func(int) (string, []byte) {
		n := int(time.Since(start) / (100 * time.Millisecond))
		var b strings.Builder
		b.WriteString(`<html><body><ul>`)
		for i := n; i > n-5 && i >= 0; i-- {
			fmt.Fprintf(&b, `<li><a href="/story/%d">story %d</a></li>`, i, i)
		}
		b.WriteString(`</ul></body></html>`)
		return "text/html", []byte(b.String())
	}
	o := discoveryPollOptions(t, "http://"+s.host+"/")
	o.Discovery.Probe = config.ProbeOff
	startEngine(t, o)
	waitFor(t, "the entry page to be fetched 5 times", func() bool { return s.requested("/") >= 5 })
}

// Discovery with M2: a page a trusted sitemap lists with a date waits for that date
// to move instead of the blind refetch revisit.initial spends on every new page;
// a page listed without a date still gets its refetch. Refetching both would cost
// (on the live bench) 373 refetches of never-changing articles in 1.5 web days, the
// lane full and every new article queued behind them, against 116 this way.
func TestDatedSitemapPageWaitsForItsDate(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	s.robots = "Sitemap: http://" + s.host + "/sitemap.xml\n"
	s.raw["/sitemap.xml"] = func(read int) (string, []byte) {
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		fmt.Fprintf(&b, `<url><loc>http://%s/story/first</loc><lastmod>2026-01-01T00:00:00Z</lastmod></url>`, s.host)
		if read > 0 {
			// From the second read on, when the site's lastmod has had the chance to
			// show itself as "always now" and did not.
			fmt.Fprintf(&b, `<url><loc>http://%s/story/dated</loc><lastmod>2026-01-02T00:00:00Z</lastmod></url>`, s.host)
			fmt.Fprintf(&b, `<url><loc>http://%s/story/undated</loc></url>`, s.host)
		}
		b.WriteString(`</urlset>`)
		return "application/xml", []byte(b.String())
	}
	s.pages["/"] = `<html><body><p>front page</p></body></html>`
	for _, p := range []string{"first", "dated", "undated"} {
		s.pages["/story/"+p] = `<html><body><p>the ` + p + ` story</p></body></html>`
	}
	o := discoveryPollOptions(t, "http://"+s.host+"/")
	o.Revisit.Initial = 100 * time.Millisecond
	startEngine(t, o)
	// The dated story is listed before the undated one and fetched first on the
	// host's one lane, so its blind refetch would fall due first.
	waitFor(t, "the undated story's refetch", func() bool { return s.requested("/story/undated") >= 2 })
	if n := s.requested("/story/dated"); n != 1 {
		t.Errorf("the dated story was fetched %d times: want once (its date did not move)", n)
	}
	// The story of the first read got the blind refetch: one read cannot tell an
	// honest lastmod from one that is always "now".
	waitFor(t, "the first read's story refetched", func() bool { return s.requested("/story/first") >= 2 })
}
