package main

import (
	"math/rand/v2"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

func TestBansBoundFromRules(t *testing.T) {
	base := sandbox.DefaultConfig()
	base.Scale = 20 // G = 2 s / 20 = 100 ms
	cases := []struct {
		name              string
		perHost           map[string]int
		listings, article int
		hostCap           float64
		serve             time.Duration
		want              time.Duration
	}{
		// 312 pages + robots.txt = 313 requests over 4 addresses: one makes 79, 78 gaps.
		{"host throughput binds", map[string]int{"a.example": 312, "b.example": 10}, 6, 50, 0, 0, 78 * 100 * time.Millisecond},
		{"service time counts per request", map[string]int{"a.example": 312}, 6, 50, 0, time.Millisecond, 79*time.Millisecond + 78*100*time.Millisecond},
		// A small host but a long listing chain: 21 fetches, then 100 articles (25 per address).
		{"link depth binds", map[string]int{"a.example": 3}, 20, 100, 0, 0, 24 * 100 * time.Millisecond},
		// 1 request per web second at scale 20 = one start per 50 ms: 312 intervals.
		{"crawler's own host cap binds when on", map[string]int{"a.example": 312}, 6, 50, 1, 0, 312 * 50 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = c.listings, c.article
			s := bansSetup{cfg: cfg, gap: 100 * time.Millisecond, hostCap: c.hostCap}
			lb := bansBound(s, bansReach{perHost: c.perHost, maxChildren: 9}, c.serve)
			if lb.total != c.want {
				t.Errorf("bound = %v, want %v\n%v", lb.total, c.want, lb.lines)
			}
		})
	}
}

func TestBansReachableExcludesPrivateAndSearch(t *testing.T) {
	cfg := crawlSandboxConfig(15, 1)
	cfg.Layout.SectionsMin, cfg.Layout.SectionsMax = 2, 2 // 5 sites of www + 2 sections
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing, cfg.Layout.TopStories = 2, 3, 1
	w := sandbox.NewWeb(cfg)
	sites := w.Sites()
	social := 0
	for _, s := range sites {
		if s.Class == "soc" {
			social++
		}
	}
	if len(sites) != 5 || social == 0 {
		t.Fatalf("want 5 sites with a social one (its search pages are roots nobody links to), got %d sites, %d social", len(sites), social)
	}
	// Per site: the entry, per section host 2 listings + 6 articles, and 1 top story.
	want := 5 * (1 + 2*(2+2*3) + 1)
	r := bansReachable(w)
	if r.total != want {
		t.Errorf("reachable pages = %d, want %d", r.total, want)
	}
	if r.maxChildren != 2+1 {
		t.Errorf("most children of an entry = %d, want 3 (2 listings p=1 and 1 top story)", r.maxChildren)
	}
}

func TestPriorListOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l priorList
	var items []priorItem
	for i := 0; i < 200; i++ {
		items = append(items, priorItem{url: "u", depth: rng.IntN(6), seq: i})
	}
	for _, i := range rng.Perm(len(items)) {
		l.push(items[i])
	}
	prev := priorItem{depth: -1}
	for len(l) > 0 {
		it := l.pop()
		if it.depth < prev.depth || (it.depth == prev.depth && it.seq < prev.seq) {
			t.Fatalf("popped (depth %d, seq %d) after (depth %d, seq %d): not lowest depth, then discovery order", it.depth, it.seq, prev.depth, prev.seq)
		}
		prev = it
	}
}

func TestCrawlPageLinks(t *testing.T) {
	base, _ := url.Parse("http://www.a.example:8080/list?p=1")
	body := []byte(`<html><body><a href="/article/1/x.html">x</a> <A HREF="list?p=2#top">next</A>
		<a name="anchor">no href</a><a href="mailto:x@a.example">mail</a><link href="/style.css">
		<a href="http://other.example/">other</a><a href=javascript:void(0)>js</a></body></html>`)
	got := crawlPageLinks(base, body)
	want := []string{"http://www.a.example:8080/article/1/x.html", "http://www.a.example:8080/list?p=2", "http://other.example/"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
}

func TestParsePause(t *testing.T) {
	cases := []struct {
		in   string
		a, b float64
		ok   bool
	}{
		{"1.02..1.10", 1.02, 1.10, true},
		{"1..1", 1, 1, true},
		{"0.9..1.1", 0, 0, false}, // below the human gap: the sandbox would count violations
		{"1.2..1.1", 0, 0, false},
		{"1.1", 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			a, b, err := parsePause(c.in)
			if (err == nil) != c.ok || (c.ok && (a != c.a || b != c.b)) {
				t.Errorf("parsePause(%q) = %v, %v, %v; want %v, %v, ok=%v", c.in, a, b, err, c.a, c.b, c.ok)
			}
		})
	}
}
