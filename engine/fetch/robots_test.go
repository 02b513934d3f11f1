package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// RFC 9309 §2.3.1 over real loopback servers: what a robots.txt answer, redirect or
// failure means for the crawl.
func TestFetchRobotsPolicy(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/www/robots.txt": // one more hop on this host
			http.Redirect(w, r, "/robots.txt", http.StatusFound)
		}
	}))
	defer other.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	for _, c := range []struct {
		name            string
		handler         http.HandlerFunc
		private, public bool
		unreachable     bool
	}{
		{"plain", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		}, false, true, false},
		// The common layout: http://example.com/robots.txt -> https://www.example.com/robots.txt.
		{"redirect to another host is obeyed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/www/robots.txt", http.StatusMovedPermanently)
		}, false, true, false},
		{"five hops are followed", chain(5, other.URL+"/robots.txt"), false, true, false},
		{"more than five hops: unavailable, allow all", chain(6, other.URL+"/robots.txt"), true, true, false},
		{"redirect loop: unavailable, allow all", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/robots.txt", http.StatusFound)
		}, true, true, false},
		{"404: allow all", http.NotFound, true, true, false},
		{"429: disallow all for now", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, false, false, true},
		{"503: disallow all for now", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "down", http.StatusServiceUnavailable)
		}, false, false, true},
		{"HTML served as robots.txt", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body><h1>Welcome</h1><p>Disallow: /</p></body></html>")
		}, true, true, false},
		{"5 MB robots.txt: the first 512 KiB count", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			line := strings.Repeat("#", 1023) + "\n"
			for i := 0; i < 5<<10; i++ {
				fmt.Fprint(w, line)
			}
			fmt.Fprint(w, "Disallow: /\n")
		}, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := httptest.NewServer(c.handler)
			defer s.Close()
			r := f.FetchRobots(t.Context(), s.URL, "crawlconsole")
			if r.Allowed("/private/a") != c.private || r.Allowed("/a") != c.public || r.Unreachable != c.unreachable {
				t.Fatalf("private %v public %v unreachable %v (%s), want %v %v %v",
					r.Allowed("/private/a"), r.Allowed("/a"), r.Unreachable, r.Note, c.private, c.public, c.unreachable)
			}
		})
	}
	t.Run("429 with Retry-After: the wait is kept", func(t *testing.T) {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "120")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}))
		defer s.Close()
		if r := f.FetchRobots(t.Context(), s.URL, "crawlconsole"); !r.Unreachable || r.RetryAfter != 2*time.Minute {
			t.Fatalf("unreachable %v retry-after %v, want true and 2m", r.Unreachable, r.RetryAfter)
		}
	})
	t.Run("redirect to a host the operator holds: not followed, disallow all for now", func(t *testing.T) {
		var asked atomic.Int32
		held := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		}))
		defer held.Close()
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://held.example:"+held.URL[strings.LastIndex(held.URL, ":")+1:]+"/robots.txt", http.StatusMovedPermanently)
		}))
		defer s.Close()
		cfg := Config{UserAgent: "crawlconsole-test", RequestTimeout: 5 * time.Second, MaxBodyBytes: 1 << 20, MaxRedirects: 3,
			Held: func(host string) bool { return host == "held.example" }}
		hf, _ := testFetcher(t, mapResolver{"held.example": {netip.MustParseAddr("127.0.0.1")}}, []string{"127.0.0.0/8"}, cfg)
		r := hf.FetchRobots(t.Context(), s.URL, "crawlconsole")
		if _, ok := errors.AsType[*HeldError](r.Err); !ok || !r.Unreachable || r.Allowed("/") || asked.Load() != 0 {
			t.Fatalf("unreachable %v (%v), held host asked %d times; want unreachable for a HeldError, the held host not asked", r.Unreachable, r.Err, asked.Load())
		}
	})
	t.Run("network error: disallow all for now", func(t *testing.T) {
		r := f.FetchRobots(t.Context(), "http://127.0.0.1:1", "crawlconsole")
		if !r.Unreachable || r.Allowed("/") {
			t.Fatalf("an unreachable robots.txt must disallow everything: %v", r)
		}
	})
}

// chain redirects /robots.txt?n=N through n hops on the same host, then to target.
func chain(n int, target string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var i int
		fmt.Sscan(r.URL.Query().Get("n"), &i)
		if i+1 >= n {
			http.Redirect(w, r, target, http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/robots.txt?n=%d", i+1), http.StatusFound)
	}
}

// Page-level directives and rel=nofollow come back with the page.
func TestFetchReadsPageDirectives(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/meta":
			fmt.Fprint(w, `<html><head><meta name="ROBOTS" content="noindex"></head><a href="/a">a</a><a rel="external nofollow" href="/b">b</a></html>`)
		case "/ours":
			fmt.Fprint(w, `<meta name="crawlconsole-test" content="nofollow"><meta name="otherbot" content="noindex">`)
		case "/header":
			w.Header().Add("X-Robots-Tag", "otherbot: nofollow")
			w.Header().Add("X-Robots-Tag", "crawlconsole-test: noindex")
			fmt.Fprint(w, `<p>hi</p>`)
		}
	}))
	defer srv.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	for _, c := range []struct {
		path, want string
		links      int
		nofollow   int
	}{
		{"/meta", "noindex", 1, 1},
		{"/ours", "nofollow", 0, 0},
		{"/header", "noindex", 0, 0},
	} {
		res, err := f.Fetch(srv.URL+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Robots.String() != c.want || len(res.Links) != c.links || len(res.NofollowLinks) != c.nofollow {
			t.Errorf("%s: directives %q links %q nofollow %q; want %q, %d and %d", c.path, res.Robots, res.Links, res.NofollowLinks, c.want, c.links, c.nofollow)
		}
	}
}
