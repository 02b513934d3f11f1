package robots

import (
	"strings"
	"testing"
)

// FuzzRobots feeds arbitrary robots.txt bodies and paths to the parser and matcher:
// never a panic, and a few invariants that hold whatever the input.
func FuzzRobots(f *testing.F) {
	for _, s := range []string{
		"User-agent: *\nDisallow: /private/\n",
		"\xEF\xBBUser-agent: crawlconsole\nCrawl-delay: 0,5\nAllow: /a$\nDisallow: /*.php*q=\n",
		"user-agent FooBot\ndisallow /\nSitemap: http://x/s.xml\n",
		"User-agent: *\nDisallow: /caf%c3%a9#x\nAllow: /%7E*$\n",
	} {
		f.Add([]byte(s), "/private/x?q=1")
	}
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		file := Parse(body)
		r := file.For("crawlconsole")
		got := r.Allowed(path)
		if r.CrawlDelay < 0 || r.CrawlDelay > maxCrawlDelay {
			t.Fatalf("crawl-delay %v out of bounds", r.CrawlDelay)
		}
		// An empty file, or one without our group or "*", allows everything.
		if len(strings.TrimSpace(string(body))) == 0 && !got {
			t.Fatal("empty robots.txt disallowed a path")
		}
		// Allowed is a pure function of its input.
		if r.Allowed(path) != got {
			t.Fatal("Allowed is not deterministic")
		}
		// Normalising is idempotent: a path already in normal form compares as is.
		if n := normalisePath(path); normalisePath(n) != n {
			t.Fatalf("normalise(%q) = %q, not a fixed point", path, n)
		}
	})
}
