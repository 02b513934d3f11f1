package discover

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testcpu"
)

// FuzzParse: any body, gzip or not, under any Content-Type, parses with bounded
// work and without a panic; whatever comes out is an http(s) URL within the limits.
func FuzzParse(f *testing.F) {
	f.Add([]byte(urlsetHead + `<url><loc>http://a.test/1</loc><lastmod>2026-11-20</lastmod></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://a.test/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte(`<rss version="2.0"><channel><item><link>http://a.test/x</link><pubDate>Fri, 20 Nov 2026 08:00:00 GMT</pubDate></item></channel></rss>`))
	f.Add([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="http://a.test/a"/></entry></feed>`))
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>http://a.test/&a;</loc></url></urlset>`))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00})
	f.Add([]byte("http://a.test/1\nhttp://a.test/2\n/3\n"))
	f.Add([]byte(`<?xml version="1.0" encoding="gb2312"?><rss><channel><item><link>/a</link></item></channel></rss>`))
	f.Add([]byte(`<html xmlns="http://www.w3.org/1999/xhtml"><body><feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="b"/></entry></feed></body></html>`))
	f.Add([]byte(urlsetHead + `<url><loc>/p</loc><image:image><image:loc>http://a.test/i.jpg</image:loc></image:image><xhtml:link rel="alternate" hreflang="de" href="/de/p"/></url></urlset>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		lim := Limits{MaxBytes: 1 << 20, MaxURLs: 100, MaxFeedItems: 100}
		ct := []string{"", "text/plain; charset=windows-1251", "text/html", "application/octet-stream; charset=utf-16"}[len(body)%4]
		var doc Doc
		// Bounded work: at most 1 MiB decoded (the cap) costs far under 2 s of CPU;
		// the parse's own thread's CPU time, not the wall's, which load stretches.
		cpu := testcpu.Thread(func() { doc, _ = ParseFrom(body, Source{URL: "http://a.test/dir/doc.xml", ContentType: ct}, lim) })
		if cpu > 2*time.Second {
			t.Fatalf("parse took %v of CPU", cpu)
		}
		if len(doc.Entries) > 100 {
			t.Fatalf("%d entries past the limit of 100", len(doc.Entries))
		}
		for _, e := range doc.Entries {
			for _, v := range append([]string{e.URL}, e.Alternates...) {
				u := strings.ToLower(v)
				if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
					t.Fatalf("entry %q is not an http(s) URL", v)
				}
			}
		}
	})
}

// FuzzCoverageImport: whatever a damaged store holds as coverage state, Import
// takes it or leaves it out without a panic, and the crawl's next reads of the
// site (Observe, Forget, Export) work on what it took.
func FuzzCoverageImport(f *testing.F) {
	c := &Coverage{}
	w := &coverWeb{n: 30}
	for range 30 {
		w.n++
		c.Observe("example.com", "front", w.latest(20, nil))
		c.Observe("example.com", "sitemap", w.latest(100, ownHost))
	}
	good, _ := json.Marshal(c.Export())
	f.Add(good)
	f.Add([]byte(`{"example.com":{"sources":[{"url":"a","ring":"AAAA"},{"url":"b"}]}}`))
	f.Add([]byte(`{"x":{"sources":[{"url":"a","size":-1},{"url":"a"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var states map[string]CoverState
		if json.Unmarshal(data, &states) != nil {
			return
		}
		c := &Coverage{}
		c.Import(states)
		for site, st := range states {
			for _, s := range st.Sources {
				c.Observe(site, s.URL, []uint64{1, 2, 3})
				c.Observe(site, s.URL, nil)
			}
			c.Shadowed(site)
			if len(st.Sources) > 0 {
				c.Forget(site, st.Sources[0].URL)
			}
		}
		if _, err := json.Marshal(c.Export()); err != nil {
			t.Fatal(err)
		}
	})
}
