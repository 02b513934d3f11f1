package frontier

import (
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestScopeAllows(t *testing.T) {
	seeds := []string{"https://www.example.co.uk/", "http://News.Example.COM/front", "http://127.0.0.1:8080/", "http://localhost/"}
	cases := []struct {
		name   string
		cfg    ScopeConfig
		url    string
		depth  int
		reason string // "" = allowed
	}{
		{"zero config allows anything", ScopeConfig{}, "http://elsewhere.org/x", 99, ""},
		{"same site: seed host", ScopeConfig{SameSite: true}, "http://news.example.com/a", 1, ""},
		{"same site: sibling subdomain", ScopeConfig{SameSite: true}, "http://shop.example.com/", 1, ""},
		{"same site: apex", ScopeConfig{SameSite: true}, "https://example.com/", 1, ""},
		{"same site: multi-part public suffix", ScopeConfig{SameSite: true}, "http://blog.example.co.uk/", 1, ""},
		{"same site: other domain on same suffix", ScopeConfig{SameSite: true}, "http://other.co.uk/", 1, ReasonOffSite},
		{"same site: lookalike suffix", ScopeConfig{SameSite: true}, "http://example.com.evil.net/", 1, ReasonOffSite},
		{"same site: other site", ScopeConfig{SameSite: true}, "http://elsewhere.org/", 1, ReasonOffSite},
		{"same site: IP seed matches itself", ScopeConfig{SameSite: true}, "http://127.0.0.1:9000/x", 1, ""},
		{"same site: other IP sharing last octets", ScopeConfig{SameSite: true}, "http://10.0.0.1/", 1, ReasonOffSite},
		{"same site: single-label host", ScopeConfig{SameSite: true}, "http://localhost:8080/", 1, ""},
		{"allowed host exact", ScopeConfig{AllowedHosts: []string{"cdn.example.net"}}, "http://cdn.example.net/a", 1, ""},
		{"allowed host exact, not subdomain", ScopeConfig{AllowedHosts: []string{"example.net"}}, "http://www.example.net/", 1, ReasonOffSite},
		{"allowed wildcard subdomain", ScopeConfig{AllowedHosts: []string{"*.example.net"}}, "http://a.b.example.net/", 1, ""},
		{"allowed wildcard excludes apex", ScopeConfig{AllowedHosts: []string{"*.example.net"}}, "http://example.net/", 1, ReasonOffSite},
		{"allowed wildcard not a bare suffix", ScopeConfig{AllowedHosts: []string{"*.example.net"}}, "http://badexample.net/", 1, ReasonOffSite},
		{"allowed host written in unicode", ScopeConfig{AllowedHosts: []string{"Bücher.Example."}}, "http://xn--bcher-kva.example/", 1, ""},
		{"allowed IPv6 host", ScopeConfig{AllowedHosts: []string{"[::1]"}}, "http://[::1]:8080/", 1, ""},
		{"allowed hosts or same site", ScopeConfig{SameSite: true, AllowedHosts: []string{"cdn.example.net"}}, "http://cdn.example.net/", 1, ""},
		{"allowed hosts or same site, neither", ScopeConfig{SameSite: true, AllowedHosts: []string{"cdn.example.net"}}, "http://img.example.net/", 1, ReasonOffSite},
		{"depth at limit", ScopeConfig{MaxDepth: 2}, "http://a.org/", 2, ""},
		{"depth over limit", ScopeConfig{MaxDepth: 2}, "http://a.org/", 3, ReasonTooDeep},
		{"depth unlimited", ScopeConfig{MaxDepth: 0}, "http://a.org/", 1000, ""},
		{"exclude", ScopeConfig{Exclude: []string{`/logout`, `\.pdf$`}}, "http://a.org/files/x.pdf", 1, ReasonExcluded},
		{"exclude misses", ScopeConfig{Exclude: []string{`\.pdf$`}}, "http://a.org/files/x.pdf.html", 1, ""},
		{"include matches", ScopeConfig{Include: []string{`/articles/\d+`, `/news/`}}, "http://a.org/news/today", 1, ""},
		{"include misses", ScopeConfig{Include: []string{`/articles/\d+`}}, "http://a.org/about", 1, ReasonNotIncluded},
		{"exclude wins over include", ScopeConfig{Include: []string{`/articles/`}, Exclude: []string{`print=1`}}, "http://a.org/articles/1?print=1", 1, ReasonExcluded},
		{"patterns see the query", ScopeConfig{Exclude: []string{`[?&]sessionid=`}}, "http://a.org/p?x=1&sessionid=9", 1, ReasonExcluded},
		{"too deep reported before off site", ScopeConfig{SameSite: true, MaxDepth: 1}, "http://elsewhere.org/", 5, ReasonTooDeep},
		{"off site reported before excluded", ScopeConfig{SameSite: true, Exclude: []string{`.`}}, "http://elsewhere.org/", 1, ReasonOffSite},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewScope(seeds, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			n, err := Normalize(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(n)
			if err != nil {
				t.Fatal(err)
			}
			ok, reason := s.Allows(u, tc.depth)
			if ok != (tc.reason == "") || reason != tc.reason {
				t.Errorf("Allows(%s, depth %d) = %v, %q; want reason %q", n, tc.depth, ok, reason, tc.reason)
			}
		})
	}
}

func TestNewScopeRejectsBadConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  ScopeConfig
		want []string // substrings of the error
	}{
		{"bad include", ScopeConfig{Include: []string{`ok`, `([a-z]`}}, []string{"include", `"([a-z]"`, "missing closing )"}},
		{"bad exclude", ScopeConfig{Exclude: []string{`*.pdf`}}, []string{"exclude", `"*.pdf"`}},
		{"host with path", ScopeConfig{AllowedHosts: []string{"example.com/x"}}, []string{"allowed host", `"example.com/x"`}},
		{"empty host", ScopeConfig{AllowedHosts: []string{""}}, []string{"allowed host", `""`}},
		{"wildcard in the middle", ScopeConfig{AllowedHosts: []string{"a.*.example.com"}}, []string{`"a.*.example.com"`}},
		{"negative depth", ScopeConfig{MaxDepth: -1}, []string{"max_depth", "-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewScope(nil, tc.cfg)
			if err == nil {
				t.Fatal("NewScope accepted a bad config")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestScopeAddSeedWhileCrawling(t *testing.T) {
	s, err := NewScope([]string{"http://a.example/"}, ScopeConfig{SameSite: true})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := url.Parse("http://www.b.example/")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ { // readers racing the writer (run with -race)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				s.Allows(other, 1)
			}
		}()
	}
	if ok := s.AddSeed("mailto:x@b.example"); ok {
		t.Error("AddSeed accepted a mailto: seed")
	}
	if ok := s.AddSeed("http://B.example/start"); !ok {
		t.Error("AddSeed refused a valid seed")
	}
	wg.Wait()
	if ok, reason := s.Allows(other, 1); !ok {
		t.Errorf("after AddSeed, a host of the new site is refused: %s", reason)
	}
}

func TestSite(t *testing.T) {
	cases := map[string]string{
		"www.example.com":   "example.com",
		"a.b.example.co.uk": "example.co.uk",
		"Example.COM.":      "example.com",
		"news1.test":        "news1.test", // unknown TLDs follow the "*" rule
		"localhost":         "localhost",
		"co.uk":             "co.uk",
		"192.168.1.20":      "192.168.1.20",
		"[::1]":             "::1",
	}
	for host, want := range cases {
		if got := Site(host); got != want {
			t.Errorf("Site(%q) = %q, want %q", host, got, want)
		}
	}
}
