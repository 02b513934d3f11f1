package discover

import (
	"strings"
	"testing"
	"time"
)

func TestTrust(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	nowDoc := make([]Entry, 10)
	oldDoc := make([]Entry, 10)
	for i := range nowDoc {
		nowDoc[i] = Entry{URL: "u", Modified: now.Add(-time.Duration(i) * time.Second)}
		oldDoc[i] = Entry{URL: "u", Modified: now.Add(-time.Duration(i+1) * 7 * time.Hour)}
	}
	tests := []struct {
		name    string
		feed    func(*Trust)
		trusted bool
		why     string
	}{
		{"no evidence yet: trusted", func(*Trust) {}, true, ""},
		{"hints confirmed by SimHash", func(tr *Trust) {
			for i := 0; i < 10; i++ {
				tr.ObserveHint(i%4 != 0)
			}
		}, true, ""},
		{"hints never followed by a change", func(tr *Trust) {
			for i := 0; i < 6; i++ {
				tr.ObserveHint(false)
			}
		}, false, "only 0 of its last 6"},
		{"too few hints to judge", func(tr *Trust) {
			for i := 0; i < MinHintEvidence-1; i++ {
				tr.ObserveHint(false)
			}
		}, true, ""},
		{"lastmod is always the serving time", func(tr *Trust) {
			tr.ObserveDocument(nowDoc, now)
			tr.ObserveDocument(nowDoc, now)
		}, false, "serving time in 2 of its last 2"},
		{"honest dates in the past", func(tr *Trust) {
			tr.ObserveDocument(oldDoc, now)
			tr.ObserveDocument(oldDoc, now)
		}, true, ""},
		{"a site that fixes its dates earns trust back", func(tr *Trust) {
			for i := 0; i < 6; i++ {
				tr.ObserveHint(false)
			}
			for i := 0; i < TrustWindow; i++ {
				tr.ObserveHint(true)
			}
		}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tr Trust
			tc.feed(&tr)
			ok, why := tr.Trusted()
			if ok != tc.trusted || !strings.Contains(why, tc.why) {
				t.Errorf("Trusted() = %v %q, want %v %q", ok, why, tc.trusted, tc.why)
			}
		})
	}
}

func TestTreeBoundsIndexes(t *testing.T) {
	tr := NewTree()
	if !tr.Root("a.test", "http://a.test/index.xml") {
		t.Fatal("root not admitted")
	}
	if got := tr.Child("a.test", "http://a.test/index.xml", "http://a.test/index.xml"); got != "sitemap_loop" {
		t.Errorf("an index listing itself: %q, want sitemap_loop", got)
	}
	// Ten levels of indexes, each listing the next.
	parent, admitted, refused := "http://a.test/index.xml", 0, ""
	for level := 1; level <= 10; level++ {
		u := "http://a.test/level" + string(rune('0'+level%10)) + ".xml"
		if level == 10 {
			u = "http://a.test/level10.xml"
		}
		if r := tr.Child("a.test", parent, u); r != "" {
			refused = r
			break
		}
		admitted++
		parent = u
	}
	if admitted != MaxIndexDepth || refused != "sitemap_depth" {
		t.Errorf("10 nested indexes: %d admitted, then %q; want %d, sitemap_depth", admitted, refused, MaxIndexDepth)
	}
	for i := 0; i < MaxSitemapsPerSite+5; i++ {
		tr.Child("b.test", "http://b.test/i.xml", "http://b.test/s"+time.Duration(i).String())
	}
	if r := tr.Child("b.test", "http://b.test/i.xml", "http://b.test/one-more"); r != "sitemap_count" {
		t.Errorf("past %d sitemaps for a site: %q, want sitemap_count", MaxSitemapsPerSite, r)
	}
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name  string
		kind  Kind
		src   string
		page  string
		cross []string
		want  bool
	}{
		{"sitemap, same host", KindSitemap, "http://www.a.test/sitemap.xml", "http://www.a.test/news/1", nil, true},
		{"sitemap, other host of the site", KindSitemap, "http://www.a.test/sitemap.xml", "http://sport.a.test/1", nil, false},
		{"sitemap, another site", KindSitemap, "http://www.a.test/sitemap.xml", "http://evil.test/1", nil, false},
		{"sitemap, scheme differs", KindSitemap, "https://www.a.test/sitemap.xml", "http://www.a.test/1", nil, false},
		{"sitemap cross-submitted by the page host's robots.txt", KindSitemap, "http://cdn.b.test/s.xml", "http://sport.a.test/1", []string{"sport.a.test"}, true},
		{"feed, host of the same site", KindFeed, "http://www.a.test/feed", "http://sport.a.test/1", nil, true},
		{"feed, another site", KindFeed, "http://www.a.test/feed", "http://evil.test/1", nil, false},
		{"not http", KindFeed, "http://www.a.test/feed", "ftp://www.a.test/1", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Allowed(tc.kind, tc.src, tc.page, tc.cross); got != tc.want {
				t.Errorf("Allowed = %v, want %v", got, tc.want)
			}
		})
	}
}
