package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A restarted crawl keeps what discovery learned: each feed's and sitemap's poll
// interval, rate and next poll, and the verdict on a site whose lastmod lies (always
// the serving time), are the same after the restart as before it, before anything
// is fetched again. Before, the restarted crawl polled every source at the prior's
// pace and trusted the lying site afresh.
func TestDiscoveryStateSurvivesRestart(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.raw["/busy"] = busyFeed(h)
	s.raw["/sitemap.xml"] = func(int) (string, []byte) { // lastmod always now: a lie
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		now := time.Now().UTC().Format(time.RFC3339Nano)
		for i := 1; i <= 6; i++ {
			fmt.Fprintf(&b, "<url><loc>http://%s/p%d</loc><lastmod>%s</lastmod></url>", h, i, now)
		}
		b.WriteString(`</urlset>`)
		return "application/xml", []byte(b.String())
	}
	for i := 1; i <= 6; i++ {
		s.pages[fmt.Sprintf("/p%d", i)] = versionText(i)
	}
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/busy"></head><body>front</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.MinPoll, o.Discovery.MaxPoll = 50*time.Millisecond, 600*time.Millisecond
	e := startEngine(t, o)
	waitFor(t, "the sitemap read 4 times and the feed 8", func() bool {
		return s.requested("/sitemap.xml") >= 4 && s.requested("/busy") >= 8
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	before := discoveryLearned(e)
	if !strings.Contains(before, "trusted=false") || !strings.Contains(before, "/busy") || !strings.Contains(before, "/sitemap.xml") {
		t.Fatalf("the first run learned too little to show anything:\n%s", before)
	}

	e2, err := New(o) // built, not started: nothing is fetched again
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if after := discoveryLearned(e2); after != before {
		t.Errorf("after the restart:\n%s\nbefore:\n%s", after, before)
	}
}

// discoveryLearned lists, per feed and sitemap, its poll interval, rate and next poll,
// and per site its feeds, sitemaps and date-trust verdict.
func discoveryLearned(e *Engine) string {
	views := e.disc.View()
	var srcs []string
	for _, v := range views {
		for _, u := range v.Feeds {
			srcs = append(srcs, u+" feed")
		}
		for _, u := range v.Sitemaps {
			srcs = append(srcs, u+" sitemap")
		}
	}
	slices.Sort(srcs)
	p := e.disc.Poller()
	var b strings.Builder
	for _, line := range srcs {
		u := strings.Fields(line)[0]
		fmt.Fprintf(&b, "%s interval=%v rate=%.9f next=%s\n", line, p.Interval(u), p.Rate(u), p.Next(u).Format(time.RFC3339Nano))
	}
	for _, v := range views {
		fmt.Fprintf(&b, "site %s feeds=%v sitemaps=%v trusted=%v (%s)\n", v.Site, v.Feeds, v.Sitemaps, v.DatesTrusted, v.Why)
	}
	return b.String()
}
