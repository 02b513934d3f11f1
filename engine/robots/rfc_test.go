package robots

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testcpu"
)

// Cases that RFC 9309 decides and that a looser parser (temoto/robotstxt, see the
// package doc) gets wrong, for our product
// token "crawlconsole".
func TestRFC9309Cases(t *testing.T) {
	const us = "crawlconsole"
	for _, c := range []struct {
		name, robots string
		path         string
		want         bool
	}{
		// §2.2: an unparseable line is skipped, the rest stands (before: allow-all).
		{"allow before first user-agent", "Allow: /x\nUser-agent: *\nDisallow: /private/\n", "/private/a", false},
		{"crawl-delay at the top", "Crawl-delay: 2\nUser-agent: *\nDisallow: /private/\n", "/private/a", false},
		{"crawl-delay with a decimal comma", "User-agent: *\nCrawl-delay: 0,5\nDisallow: /private/\n", "/private/a", false},
		{"partial byte-order mark", "\xEF\xBBUser-agent: *\nDisallow: /private/\n", "/private/a", false},
		{"garbage line in a group", "User-agent: *\n<<<>>> ::: \x00\xff\nDisallow: /private/\n", "/private/a", false},
		// §2.2.1: groups are chosen by product token, case-insensitively.
		{"user agent written with a space", "User agent: crawlconsole\nDisallow: /\n", "/a", false},
		{"group for a shorter token does not capture us", "User-agent: crawl\nDisallow: /\n", "/a", true},
		{"group with a version names us", "User-agent: crawlconsole/1.0\nDisallow: /\n", "/a", false},
		{"token upper case", "User-agent: CRAWLCONSOLE\nDisallow: /\n", "/a", false},
		{"our group hides *", "User-agent: *\nDisallow: /x\nUser-agent: crawlconsole\nDisallow: /y\n", "/x", true},
		{"our group allows where * forbids", "User-agent: *\nDisallow: /\nUser-agent: crawlconsole\nAllow: /\n", "/a", true},
		{"our groups merge (first)", "User-agent: crawlconsole\nDisallow: /a\nUser-agent: other\nDisallow: /\nUser-agent: crawlconsole\nDisallow: /b\n", "/a", false},
		{"our groups merge (second)", "User-agent: crawlconsole\nDisallow: /a\nUser-agent: other\nDisallow: /\nUser-agent: crawlconsole\nDisallow: /b\n", "/b", false},
		{"our groups merge (neither)", "User-agent: crawlconsole\nDisallow: /a\nUser-agent: other\nDisallow: /\nUser-agent: crawlconsole\nDisallow: /b\n", "/c", true},
		{"a group naming * and us merges with our other group", "User-agent: *\nUser-agent: crawlconsole\nDisallow: /a\nUser-agent: crawlconsole\nDisallow: /b\n", "/a", false},
		{"* groups merge", "User-agent: *\nDisallow: /a\nUser-agent: other\nAllow: /\nUser-agent: *\nDisallow: /b\n", "/b", false},
		{"crawl-delay does not end the group", "User-agent: crawlconsole\nCrawl-delay: 3\nDisallow: /a\n", "/a", false},
		{"crawl-delay between user-agent lines", "User-agent: other\nCrawl-delay: 5\nUser-agent: crawlconsole\nDisallow: /\n", "/a", false},
		{"sitemap inside a group", "User-agent: crawlconsole\nSitemap: http://x/s.xml\nDisallow: /a\n", "/a", false},
		// §2.2.2: longest match by pattern octets, Allow wins ties.
		{"equal length: allow wins", "User-agent: *\nDisallow: /page\nAllow: /page\n", "/page", true},
		{"equal length, allow first", "User-agent: *\nAllow: /page\nDisallow: /page\n", "/page", true},
		{"longer wildcard pattern wins", "User-agent: *\nAllow: /shop/item\nDisallow: /*/*/*.html\n", "/shop/item/x.html", false},
		{"shorter wildcard pattern loses", "User-agent: *\nDisallow: /*d\nAllow: /a/b/c/d\n", "/a/b/c/d", true},
		{"rule anchored at the start", "User-agent: *\nDisallow: /search*q=\n", "/x/search?q=1", true},
		{"rule anchored match", "User-agent: *\nDisallow: /search*q=\n", "/search?q=1", false},
		// §2.2.2: percent-encoding normalised on both sides.
		{"lower-case escape in the rule", "User-agent: *\nDisallow: /caf%c3%a9\n", "/caf%C3%A9", false},
		{"lower-case escape in the path", "User-agent: *\nDisallow: /caf%C3%A9\n", "/caf%c3%a9", false},
		{"UTF-8 in the rule", "User-agent: *\nDisallow: /café\n", "/caf%C3%A9", false},
		{"escaped tilde", "User-agent: *\nDisallow: /%7Euser/\n", "/~user/x", false},
		// §2.2.3 comments start at '#' anywhere.
		{"# in a path token", "User-agent: *\nDisallow: /a#b\n", "/a", false},
		{"# comment after the key", "User-agent: * # everyone\nDisallow: /a\n", "/a", false},
		{"$ in the middle is literal", "User-agent: *\nDisallow: /a$b\n", "/a$b", false},
		{"$ at the end anchors", "User-agent: *\nDisallow: /a$\n", "/ab", true},
		{"empty disallow allows", "User-agent: *\nDisallow:\n", "/a", true},
		// Google's typos: a misspelt Disallow still forbids.
		{"Disalow typo", "User-agent: *\nDisalow: /a\n", "/a", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Parse([]byte(c.robots)).For(us).Allowed(c.path); got != c.want {
				t.Fatalf("%q allowed=%v, want %v\n%s", c.path, got, c.want, c.robots)
			}
		})
	}
}

// The examples of RFC 9309 itself: §2.2.2's and §2.2.3's encoding tables and §5.
func TestRFC9309Examples(t *testing.T) {
	const simple = "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n" +
		"User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\n" +
		"User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\nUser-Agent: quxbot\n\nEOF\n"
	for _, c := range []struct {
		name, robots, agent, path string
		want                      bool
	}{
		{"§2.2.2 query kept", "User-agent: *\nDisallow: /foo/bar?baz=quz\n", "x", "/foo/bar?baz=quz", false},
		{"§2.2.2 UTF-8 rule", "User-agent: *\nDisallow: /foo/bar/ツ\n", "x", "/foo/bar/%E3%83%84", false},
		{"§2.2.2 encoded rule", "User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "x", "/foo/bar/%E3%83%84", false},
		{"§2.2.2 encoded unreserved", "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "x", "/foo/bar/%62%61%7A", false},
		{"§2.2.3 encoded star", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "x", "/path/file-with-a-*.html", false},
		{"§2.2.3 encoded star is no wildcard", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "x", "/path/file-with-a-b.html", true},
		{"§2.2.3 encoded dollar", "User-agent: *\nDisallow: /path/foo-%24\n", "x", "/path/foo-$", false},
		{"§2.2.3 star wildcard over a literal star", "User-agent: *\nDisallow: /a*c\n", "x", "/a*b*c", false},
		{"§2.2.2 /robots.txt implicitly allowed", "User-agent: *\nDisallow: /\n", "x", "/robots.txt", true},
		{"§5.1 foobot page", simple, "foobot", "/example/page.html", true},
		{"§5.1 foobot gif", simple, "foobot", "/example/allowed.gif", true},
		{"§5.1 foobot other", simple, "foobot", "/example/other.html", false},
		{"§5.1 foobot root", simple, "foobot", "/", false},
		{"§5.1 barbot page", simple, "barbot", "/example/page.html", false},
		{"§5.1 bazbot page", simple, "bazbot", "/example/page.html", false},
		{"§5.1 barbot gif (not the * group)", simple, "barbot", "/x.gif", true},
		{"§5.1 barbot example", simple, "barbot", "/example/other.html", true},
		{"§5.1 quxbot: empty group allows", simple, "quxbot", "/example/page.html", true},
		{"§5.1 others: gif", simple, "otherbot", "/a/b.gif", false},
		{"§5.1 others: gif with query", simple, "otherbot", "/a/b.gif?x", true},
		{"§5.1 others: example", simple, "otherbot", "/example/x", false},
		{"§5.1 others: publications", simple, "otherbot", "/publications/x", true},
		{"§5.2 longest match allow", "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", "foobot", "/example/page/", true},
		{"§5.2 longest match disallow", "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", "foobot", "/example/page/disallowed.gif", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Parse([]byte(c.robots)).For(c.agent).Allowed(c.path); got != c.want {
				t.Fatalf("%s %q allowed=%v, want %v", c.agent, c.path, got, c.want)
			}
		})
	}
}

func TestCrawlDelay(t *testing.T) {
	for _, c := range []struct {
		robots string
		want   time.Duration
	}{
		{"User-agent: *\nCrawl-delay: 1.5\n", 1500 * time.Millisecond},
		{"User-agent: *\nCrawl-delay: 0,5\n", 500 * time.Millisecond},
		{"User-agent: *\nCrawl-delay: 1000000000\n", 1e9 * time.Second}, // 10^9 s: read as asked (the engine caps it)
		{"User-agent: *\nCrawl-delay: 1e300\n", 1e9 * time.Second},      // bounded, no overflow
		{"User-agent: *\nCrawl-delay: -3\n", 0},
		{"User-agent: *\nCrawl-delay: NaN\n", 0},
		{"User-agent: *\nCrawl-delay: soon\n", 0},
		{"User-agent: crawlconsole\nCrawl-delay: 2\nDisallow: /x\nUser-agent: *\nCrawl-delay: 9\n", 2 * time.Second},
		// Crawl-delay does not split a group: both agents share it, the longest counts.
		{"User-agent: crawlconsole\nCrawl-delay: 2\nUser-agent: *\nCrawl-delay: 9\n", 9 * time.Second},
		{"User-agent: crawlconsole\nCrawl-delay: 2\nDisallow: /x\nUser-agent: crawlconsole\nCrawl-delay: 4\n", 4 * time.Second},
		{"Crawl-delay: 7\nUser-agent: *\nDisallow: /x\n", 0}, // outside any group
	} {
		if got := Parse([]byte(c.robots)).For("crawlconsole").CrawlDelay; got != c.want {
			t.Errorf("%q: crawl-delay %v, want %v", c.robots, got, c.want)
		}
	}
}

// Bad input: bounded work, a sane result, never a crash.
func TestBadRobotsInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	// 5 MB: rules in the first 512 KiB count, the rest is not read.
	var big bytes.Buffer
	big.WriteString("User-agent: *\nDisallow: /early\n")
	for big.Len() < 5<<20 {
		big.WriteString("# padding padding padding padding padding padding padding\n")
		if big.Len() > MaxBytes-100 && big.Len() < MaxBytes {
			big.WriteString("Disallow: /cut-off-at-the-limit-and-dropped\n")
		}
	}
	big.WriteString("Disallow: /late\n")
	longRule := "User-agent: *\nDisallow: /x" + strings.Repeat("*a", 50<<10) + "\n" // a 100 KB rule
	html := "<!doctype html><html><head><title>Not found</title></head><body><p>User-agent: * Disallow: /</p><a href=\"/\">home</a></body></html>"

	for _, c := range []struct {
		name  string
		body  []byte
		path  string
		want  bool
		delay time.Duration
	}{
		{"5 MB, rule early", big.Bytes(), "/early", false, 0},
		{"5 MB, rule after the limit ignored", big.Bytes(), "/late", true, 0},
		{"binary garbage", garbage, "/a", true, 0},
		{"HTML as robots.txt", []byte(html), "/a", true, 0},
		{"100 KB rule, matching path", []byte(longRule), "/x" + strings.Repeat("a", 9000), false, 0},
		{"100 KB rule, other path", []byte(longRule), "/y" + strings.Repeat("a", 3000), true, 0},
		{"Crawl-delay 10^9", []byte("User-agent: *\nCrawl-delay: 1000000000\nDisallow: /p\n"), "/p", false, 1e9 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r *Rules
			var got bool
			// Bounded work: the parse's and the checks' own CPU time, which a loaded
			// box does not stretch as it does the wall's.
			cpu := testcpu.Thread(func() {
				r = FromResponse(200, c.body, "crawlconsole")
				got = r.Allowed(c.path)
				for i := 0; i < 100; i++ { // many URLs against the same rules stay cheap
					r.Allowed(c.path + "/more")
				}
			})
			if cpu > 2*time.Second {
				t.Errorf("took %v of CPU", cpu)
			}
			if got != c.want || r.CrawlDelay != c.delay || r.Unreachable {
				t.Fatalf("allowed=%v delay=%v unreachable=%v, want allowed=%v delay=%v", got, r.CrawlDelay, r.Unreachable, c.want, c.delay)
			}
		})
	}
}

// RFC 9309 §2.3.1: what each answer to robots.txt means.
func TestFromResponseStatus(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\n")
	for _, c := range []struct {
		status          int
		private, public bool
		unreachable     bool
	}{
		{200, false, true, false},
		{301, true, true, false}, // redirects exhausted: unavailable, allow all
		{404, true, true, false},
		{403, true, true, false},
		{410, true, true, false},
		{429, false, false, true},
		{500, false, false, true},
		{503, false, false, true},
	} {
		r := FromResponse(c.status, body, "crawlconsole")
		if r.Allowed("/private/a") != c.private || r.Allowed("/a") != c.public || r.Unreachable != c.unreachable {
			t.Errorf("%d: private %v public %v unreachable %v, want %v %v %v", c.status,
				r.Allowed("/private/a"), r.Allowed("/a"), r.Unreachable, c.private, c.public, c.unreachable)
		}
	}
}

func TestProductToken(t *testing.T) {
	for ua, want := range map[string]string{
		"crawlconsole/0.1 (+https://github.com/crawlconsole/crawlconsole)": "crawlconsole",
		"My_Bot-2": "My_Bot-",
		"":         "",
		"/x":       "",
	} {
		if got := ProductToken(ua); got != want {
			t.Errorf("%q -> %q, want %q", ua, got, want)
		}
	}
}
