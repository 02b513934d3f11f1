package engine

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
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

// Issue 18, cross-submission: a section host whose robots.txt names the www sitemap
// lets that sitemap list its pages, even when the crawl's first response from the
// section host was a 404 (on the publishing sandbox, a section host's "/" linked from
// the www entry page). Before, robots.txt's Sitemap lines rode on the origin's first
// response only and were taken in only when that response was a stored page, so after
// a 404 first the host's articles stayed refused as off-host for the whole crawl.
func TestCrossSubmissionAfterANotFoundFirstResponse(t *testing.T) {
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
	o.Discovery.Probe = ProbeOff
	startEngine(t, o)
	waitForLong(t, 10*time.Second, "the section host's story the www sitemap lists", func() bool {
		return sec.requested("/story/1") > 0
	})
	if got := sec.paths(); len(got) == 0 || got[0] != "/robots.txt" {
		t.Errorf("section host requests %v: want robots.txt first", got)
	}
}

// Issue 18, "no regression on sites with neither": a seed's page on a site with no
// feed or sitemap is polled like a feed, at the pace of the new links it shows. Here
// the entry page gains an article link every 100 ms while the page revisit policy
// would wait an hour (revisit.initial); before, the entry page was fetched once.
func TestEntryPageOfASiteWithNeitherIsPolled(t *testing.T) {
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
	o.Discovery.Probe = ProbeOff
	startEngine(t, o)
	waitForLong(t, 10*time.Second, "the entry page to be fetched 5 times", func() bool { return s.requested("/") >= 5 })
}
