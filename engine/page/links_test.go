package page

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestLinksKeepDocumentOrder: a page's links and its rel=nofollow links come out in
// document order, trimmed, from both passes, page after page; a robots meta counts
// in any case and under our token's name, another meta does not.
func TestLinksKeepDocumentOrder(t *testing.T) {
	body := []byte(`<html><head><meta name="description" content="noindex">
<meta name=" ROBOTS " content="noindex"><meta name="crawlconsole" content="nofollow"></head><body>
<a href=" /one ">1</a><a rel="sponsored NOFOLLOW" href="/ad">ad</a><a href="">empty</a>
<area href="/map" rel=nofollow><a href="/two?x=1&amp;y=2">2</a><a name="anchor">no href</a></body></html>`)
	wantLinks, wantNofollow := []string{"/one", "", "/two?x=1&y=2"}, []string{"/ad", "/map"}
	for i := range 3 {
		read, _ := Read(body, "text/html", "crawlconsole")
		scanned := ScanLinks(body, "crawlconsole")
		for _, l := range []Links{read, scanned} {
			if !slices.Equal(l.Links, wantLinks) || !slices.Equal(l.Nofollow, wantNofollow) {
				t.Fatalf("read %d: links %q nofollow %q, want %q %q", i, l.Links, l.Nofollow, wantLinks, wantNofollow)
			}
			if !l.Robots.NoIndex || !l.Robots.NoFollow {
				t.Fatalf("read %d: directives %+v, want noindex and nofollow", i, l.Robots)
			}
		}
	}
	if l := ScanLinks([]byte(`<meta name="description" content="noindex, nofollow"><p>text`), ""); l.Robots.Any() || l.Links != nil {
		t.Fatalf("a page without robots metas or links: %+v", l)
	}
}

// A blog's home page announcing a feed per category keeps MaxFeedLinks of them
// (more than the 16 it kept before: a Hugo or WordPress site lists dozens) and
// counts the rest; a page of 10,000 feed links stays bounded.
func TestFeedLinksPastTheBoundAreCounted(t *testing.T) {
	for _, n := range []int{40, MaxFeedLinks, 10_000} {
		var b strings.Builder
		b.WriteString("<html><head>")
		for i := range n {
			fmt.Fprintf(&b, `<link rel="alternate" type="application/rss+xml" href="/category/%d/feed/">`, i)
		}
		b.WriteString("</head><body></body></html>")
		l := ScanLinks([]byte(b.String()), "")
		kept := min(n, MaxFeedLinks)
		if len(l.Feeds) != kept || l.FeedsDropped != n-kept {
			t.Errorf("%d feed links: %d kept, %d dropped; want %d and %d", n, len(l.Feeds), l.FeedsDropped, kept, n-kept)
		}
		if n == 40 && l.FeedsDropped != 0 {
			t.Errorf("a page of 40 category feeds lost %d of them", l.FeedsDropped)
		}
	}
}
