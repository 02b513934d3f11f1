package robots

import (
	"strings"
	"testing"
)

// The cases of Google's reference parser, robots_test.cc
// (github.com/google/robotstxt, Apache-2.0), ported as tables. Each block keeps the
// C++ test's name. Where we decide differently, the case says so ("ours:") and why;
// the two differences are both decided by RFC 9309 §2.2.2 or by the site's evident
// intent, never in the direction of fetching what a site forbade.

// check is one EXPECT_TRUE/EXPECT_FALSE(IsUserAgentAllowed(robots, agent, url)).
type check struct {
	agent, url string
	want       bool
}

type googleCase struct {
	name   string
	robots string
	checks []check
}

// allowed is Google's IsUserAgentAllowed: robots.txt body, our product token, a URL.
func allowed(body, agent, url string) bool {
	return Parse([]byte(body)).For(agent).Allowed(pathOf(url))
}

// pathOf is Google's GetPathParamsQuery for the URLs of these tests: path, params
// and query, without scheme, authority and fragment (the engine passes
// url.URL.RequestURI instead).
func pathOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		j := strings.IndexAny(u, "/?")
		if j < 0 {
			return "/"
		}
		u = u[j:]
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	if u == "" {
		return "/"
	}
	if u[0] != '/' {
		u = "/" + u
	}
	return u
}

func runGoogle(t *testing.T, cases []googleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range c.checks {
				if got := allowed(c.robots, k.agent, k.url); got != k.want {
					t.Errorf("agent %q url %q: allowed=%v, want %v\nrobots.txt:\n%s", k.agent, k.url, got, k.want, c.robots)
				}
			}
		})
	}
}

const fooDisallowAll = "user-agent: FooBot\ndisallow: /\n"

func TestGoogleSystemAndLineSyntax(t *testing.T) {
	runGoogle(t, []googleCase{
		{"GoogleOnly_SystemTest/empty robots.txt", "", []check{{"FooBot", "", true}, {"", "", true}}},
		{"GoogleOnly_SystemTest/empty agent", fooDisallowAll, []check{{"", "", true}}},
		// Google: an empty URL is "/" and so disallowed here.
		{"GoogleOnly_SystemTest/empty url", fooDisallowAll, []check{{"FooBot", "", false}}},
		{"ID_LineSyntax_Line/correct", fooDisallowAll, []check{{"FooBot", "http://foo.bar/x/y", false}}},
		{"ID_LineSyntax_Line/incorrect", "foo: FooBot\nbar: /\n", []check{{"FooBot", "http://foo.bar/x/y", true}}},
		// Google: a missing colon is accepted when the line is two words.
		{"ID_LineSyntax_Line/incorrect accepted", "user-agent FooBot\ndisallow /\n", []check{{"FooBot", "http://foo.bar/x/y", false}}},
		{"ID_LineSyntax_Groups", "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n", []check{
			{"FooBot", "http://foo.bar/x/b", true},
			{"FooBot", "http://foo.bar/z/d", true},
			{"FooBot", "http://foo.bar/y/c", false},
			{"BarBot", "http://foo.bar/y/c", true},
			{"BarBot", "http://foo.bar/w/a", true},
			{"BarBot", "http://foo.bar/z/d", false},
			{"BazBot", "http://foo.bar/z/d", true},
			// Lines with rules outside groups are ignored.
			{"FooBot", "http://foo.bar/foo/bar/", false},
			{"BarBot", "http://foo.bar/foo/bar/", false},
			{"BazBot", "http://foo.bar/foo/bar/", false},
		}},
		{"ID_LineSyntax_Groups_OtherRules/sitemap", "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", []check{
			{"FooBot", "http://foo.bar/", false}, {"BarBot", "http://foo.bar/", false},
		}},
		{"ID_LineSyntax_Groups_OtherRules/unknown", "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", []check{
			{"FooBot", "http://foo.bar/", false}, {"BarBot", "http://foo.bar/", false},
		}},
	})
}

func TestGoogleCaseAndAgents(t *testing.T) {
	var cases []googleCase
	for _, r := range []string{
		"USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
		"user-agent: FooBot\nallow: /x/\ndisallow: /\n",
		"uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
	} {
		cases = append(cases, googleCase{"ID_REPLineNamesCaseInsensitive/" + strings.Fields(r)[0], r, []check{
			{"FooBot", "http://foo.bar/x/y", true}, {"FooBot", "http://foo.bar/a/b", false},
		}})
	}
	for _, ua := range []string{"FOO BAR", "foo bar", "FoO bAr"} {
		r := "User-Agent: " + ua + "\nAllow: /x/\nDisallow: /\n"
		cases = append(cases, googleCase{"ID_UserAgentValueCaseInsensitive/" + ua, r, []check{
			{"Foo", "http://foo.bar/x/y", true}, {"Foo", "http://foo.bar/a/b", false},
			{"foo", "http://foo.bar/x/y", true}, {"foo", "http://foo.bar/a/b", false},
		}})
	}
	cases = append(cases,
		// Google: a user-agent value is read up to the first character outside
		// [A-Za-z_-]; "Foo Bar" names Foo.
		googleCase{"GoogleOnly_AcceptUserAgentUpToFirstSpace", "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", []check{
			{"Foo", "http://foo.bar/x/y", true}, {"Foo Bar", "http://foo.bar/x/y", false},
		}},
		googleCase{"ID_GlobalGroups_Secondary/empty", "", []check{{"FooBot", "http://foo.bar/x/y", true}}},
		googleCase{"ID_GlobalGroups_Secondary/global", "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n", []check{
			{"FooBot", "http://foo.bar/x/y", false}, {"BarBot", "http://foo.bar/x/y", true},
		}},
		googleCase{"ID_GlobalGroups_Secondary/only specific", "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n", []check{
			{"QuxBot", "http://foo.bar/x/y", true},
		}},
		googleCase{"ID_AllowDisallow_Value_CaseSensitive/lower", "user-agent: FooBot\ndisallow: /x/\n", []check{{"FooBot", "http://foo.bar/x/y", false}}},
		googleCase{"ID_AllowDisallow_Value_CaseSensitive/upper", "user-agent: FooBot\ndisallow: /X/\n", []check{{"FooBot", "http://foo.bar/x/y", true}}},
	)
	runGoogle(t, cases)
}

// ID_VerifyValidUserAgentsToObey: a product token is [A-Za-z_-]+.
func TestGoogleValidUserAgents(t *testing.T) {
	for _, c := range []struct {
		ua    string
		valid bool
	}{
		{"Foobot", true}, {"Foobot-Bar", true}, {"Foo_Bar", true},
		{"", false}, {"ツ", false}, {"Foobot*", false}, {" Foobot ", false}, {"Foobot/2.1", false}, {"Foobot Bar", false},
	} {
		if got := c.ua != "" && ProductToken(c.ua) == c.ua; got != c.valid {
			t.Errorf("%q valid=%v, want %v", c.ua, got, c.valid)
		}
	}
}

func TestGoogleLongestMatch(t *testing.T) {
	const url = "http://foo.bar/x/page.html"
	runGoogle(t, []googleCase{
		{"disallow longer", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", []check{{"FooBot", url, false}}},
		{"allow longer", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", []check{{"FooBot", url, true}, {"FooBot", "http://foo.bar/x/", false}}},
		{"empty both", "user-agent: FooBot\ndisallow: \nallow: \n", []check{{"FooBot", url, true}}},
		{"equal root", "user-agent: FooBot\ndisallow: /\nallow: /\n", []check{{"FooBot", url, true}}},
		{"x vs x/", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", []check{{"FooBot", "http://foo.bar/x", false}, {"FooBot", "http://foo.bar/x/", true}}},
		{"equal page", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", []check{{"FooBot", url, true}}},
		{"wildcard longer", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", []check{{"FooBot", "http://foo.bar/page.html", false}, {"FooBot", "http://foo.bar/page", true}}},
		{"allow prefix longer", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", []check{{"FooBot", url, true}, {"FooBot", "http://foo.bar/x/y.html", false}}},
		{"specific group", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", []check{{"FooBot", "http://foo.bar/x/page", true}, {"FooBot", "http://foo.bar/y/page", false}}},
	})
}

func TestGoogleEncoding(t *testing.T) {
	runGoogle(t, []googleCase{
		{"query stays unencoded", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", []check{
			{"FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
		}},
		// Google leaves a raw "ツ" in the URL unencoded and so does not match it
		// (false). Ours: true — RFC 9309 §2.2.2 says octets outside US-ASCII MUST be
		// percent-encoded on both sides before comparing, and the site allowed it.
		{"3-byte character in rule", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", []check{
			{"FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
			{"FooBot", "http://foo.bar/foo/bar/ツ", true},
		}},
		{"percent-encoded 3-byte character", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", []check{
			{"FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
			{"FooBot", "http://foo.bar/foo/bar/ツ", true}, // Google: false, as above
		}},
		// Google: "/foo/bar/%62%61%7A" matches only itself, and says not to rely on
		// it. Ours: escapes of unreserved characters are decoded on both sides (RFC
		// 3986 §6.2.2.2), as our frontier does to every URL, so the rule also
		// matches "/foo/bar/baz". The other way round, "Disallow: /%7Euser/" catches
		// "/~user/": what the site meant.
		{"percent-encoded unreserved", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", []check{
			{"FooBot", "http://foo.bar/foo/bar/baz", true}, // Google: false
			{"FooBot", "http://foo.bar/foo/bar/%62%61%7A", true},
		}},
	})
}

func TestGoogleSpecialCharacters(t *testing.T) {
	runGoogle(t, []googleCase{
		{"star", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", []check{
			{"FooBot", "http://foo.bar/foo/bar/quz", false},
			{"FooBot", "http://foo.bar/foo/quz", true},
			{"FooBot", "http://foo.bar/foo//quz", true},
			{"FooBot", "http://foo.bar/foo/bax/quz", true},
		}},
		{"dollar", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", []check{
			{"FooBot", "http://foo.bar/foo/bar", false},
			{"FooBot", "http://foo.bar/foo/bar/qux", true},
			{"FooBot", "http://foo.bar/foo/bar/", true},
			{"FooBot", "http://foo.bar/foo/bar/baz", true},
		}},
		{"comment", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", []check{
			{"FooBot", "http://foo.bar/foo/bar", true},
			{"FooBot", "http://foo.bar/foo/quz", false},
		}},
		// Google: "Allow: .../index.html" also allows its directory.
		{"GoogleOnly_IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", []check{
			{"foobot", "http://foo.com/allowed-slash/", true},
			{"foobot", "http://foo.com/allowed-slash/index.htm", false},
			{"foobot", "http://foo.com/allowed-slash/index.html", true},
			{"foobot", "http://foo.com/anyother-url", false},
		}},
	})
}

// GoogleOnly_LineTooLong: a line is cut after 8 × 2083 - 1 bytes; the cut rule is
// matched as cut.
func TestGoogleLineTooLong(t *testing.T) {
	const maxLine = 2083 * 8
	long := func(prefix, fill string) string {
		s := "/x/"
		for len(s) < maxLine-len("/x/")-len(prefix)+1 {
			s += fill
		}
		return s
	}
	dl := long("disallow: ", "a")
	a, b := long("allow: ", "a"), long("allow: ", "b")
	runGoogle(t, []googleCase{
		{"cut disallow", "user-agent: FooBot\ndisallow: " + dl + "/qux\n", []check{
			{"FooBot", "http://foo.bar/fux", true},
			{"FooBot", "http://foo.bar" + dl + "/fux", false},
		}},
		{"cut allows", "user-agent: FooBot\ndisallow: /\nallow: " + a + "/qux\nallow: " + b + "/qux\n", []check{
			{"FooBot", "http://foo.bar/", false},
			{"FooBot", "http://foo.bar" + a + "/qux", true},
			{"FooBot", "http://foo.bar" + b + "/fux", true},
		}},
	})
}

func TestGoogleDocumentationChecks(t *testing.T) {
	const fish = "http://foo.bar/fish"
	runGoogle(t, []googleCase{
		{"/fish", "user-agent: FooBot\ndisallow: /\nallow: /fish\n", []check{
			{"FooBot", "http://foo.bar/bar", false},
			{"FooBot", fish, true}, {"FooBot", fish + ".html", true}, {"FooBot", fish + "/salmon.html", true},
			{"FooBot", fish + "heads", true}, {"FooBot", fish + "heads/yummy.html", true}, {"FooBot", fish + ".html?id=anything", true},
			{"FooBot", "http://foo.bar/Fish.asp", false}, {"FooBot", "http://foo.bar/catfish", false}, {"FooBot", "http://foo.bar/?id=fish", false},
		}},
		{"/fish*", "user-agent: FooBot\ndisallow: /\nallow: /fish*\n", []check{
			{"FooBot", "http://foo.bar/bar", false},
			{"FooBot", fish, true}, {"FooBot", fish + ".html", true}, {"FooBot", fish + "/salmon.html", true},
			{"FooBot", fish + "heads", true}, {"FooBot", fish + "heads/yummy.html", true}, {"FooBot", fish + ".html?id=anything", true},
			{"FooBot", "http://foo.bar/Fish.bar", false}, {"FooBot", "http://foo.bar/catfish", false}, {"FooBot", "http://foo.bar/?id=fish", false},
		}},
		{"/fish/", "user-agent: FooBot\ndisallow: /\nallow: /fish/\n", []check{
			{"FooBot", "http://foo.bar/bar", false},
			{"FooBot", fish + "/", true}, {"FooBot", fish + "/salmon", true}, {"FooBot", fish + "/?salmon", true},
			{"FooBot", fish + "/salmon.html", true}, {"FooBot", fish + "/?id=anything", true},
			{"FooBot", fish, false}, {"FooBot", fish + ".html", false}, {"FooBot", "http://foo.bar/Fish/Salmon.html", false},
		}},
		{"/*.php", "user-agent: FooBot\ndisallow: /\nallow: /*.php\n", []check{
			{"FooBot", "http://foo.bar/bar", false},
			{"FooBot", "http://foo.bar/filename.php", true}, {"FooBot", "http://foo.bar/folder/filename.php", true},
			{"FooBot", "http://foo.bar/folder/filename.php?parameters", true}, {"FooBot", "http://foo.bar//folder/any.php.file.html", true},
			{"FooBot", "http://foo.bar/filename.php/", true}, {"FooBot", "http://foo.bar/index?f=filename.php/", true},
			{"FooBot", "http://foo.bar/php/", false}, {"FooBot", "http://foo.bar/index?php", false}, {"FooBot", "http://foo.bar/windows.PHP", false},
		}},
		{"/*.php$", "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n", []check{
			{"FooBot", "http://foo.bar/bar", false},
			{"FooBot", "http://foo.bar/filename.php", true}, {"FooBot", "http://foo.bar/folder/filename.php", true},
			{"FooBot", "http://foo.bar/filename.php?parameters", false}, {"FooBot", "http://foo.bar/filename.php/", false},
			{"FooBot", "http://foo.bar/filename.php5", false}, {"FooBot", "http://foo.bar/php/", false},
			{"FooBot", "http://foo.bar/filename?php", false}, {"FooBot", "http://foo.bar/aaaphpaaa", false},
			{"FooBot", "http://foo.bar//windows.PHP", false},
		}},
		{"/fish*.php", "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n", []check{
			{"FooBot", "http://foo.bar/bar", false},
			{"FooBot", "http://foo.bar/fish.php", true}, {"FooBot", "http://foo.bar/fishheads/catfish.php?parameters", true},
			{"FooBot", "http://foo.bar/Fish.PHP", false},
		}},
		{"precedence /p", "user-agent: FooBot\nallow: /p\ndisallow: /\n", []check{{"FooBot", "http://example.com/page", true}}},
		{"precedence /folder", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", []check{{"FooBot", "http://example.com/folder/page", true}}},
		{"precedence /*.htm", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", []check{{"FooBot", "http://example.com/page.htm", false}}},
		{"precedence /$", "user-agent: FooBot\nallow: /$\ndisallow: /\n", []check{{"FooBot", "http://example.com/", true}, {"FooBot", "http://example.com/page.html", false}}},
	})
}

// ID_LinesNumbersAreCountedCorrectly: every line ending (LF, CRLF, CR, none at the
// end, mixed) parses the same four directives.
func TestGoogleLineEndings(t *testing.T) {
	for name, body := range map[string]string{
		"unix":             "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":              "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":              "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final newline": "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":            "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
	} {
		t.Run(name, func(t *testing.T) {
			f := Parse([]byte(body))
			if len(f.groups) != 2 || len(f.groups[0].rules) != 1 || len(f.groups[1].rules) != 1 {
				t.Fatalf("groups %+v, want foo (allow) and bar (disallow)", f.groups)
			}
			if allowed(body, "bar", "http://x/some/path") || !allowed(body, "foo", "http://x/a") {
				t.Fatal("bar must be disallowed everywhere, foo allowed")
			}
		})
	}
}

// ID_UTF8ByteOrderMarkIsSkipped: a full or partial BOM at the start is skipped; a
// broken one, or one in the middle, spoils only its own line.
func TestGoogleByteOrderMark(t *testing.T) {
	for _, c := range []struct {
		name, body string
		disallowed bool
	}{
		{"full", "\xEF\xBB\xBFUser-Agent: foo\nDisallow: /AnyValue\n", true},
		{"partial 2", "\xEF\xBBUser-Agent: foo\nDisallow: /AnyValue\n", true},
		{"partial 1", "\xEFUser-Agent: foo\nDisallow: /AnyValue\n", true},
		{"broken", "\xEF\x11\xBFUser-Agent: foo\nDisallow: /AnyValue\n", false},
		{"in the middle", "User-Agent: foo\n\xEF\xBB\xBFDisallow: /AnyValue\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := !allowed(c.body, "foo", "http://x/AnyValue"); got != c.disallowed {
				t.Fatalf("disallowed=%v, want %v", got, c.disallowed)
			}
		})
	}
}

// ID_NonStandardLineExample_Sitemap: Sitemap lines are kept, wherever they are.
func TestGoogleSitemap(t *testing.T) {
	const loc = "http://foo.bar/sitemap.xml"
	groups := "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
	for name, body := range map[string]string{"after": groups + "Sitemap: " + loc + "\n", "before": "Sitemap: " + loc + "\n" + groups} {
		if got := Parse([]byte(body)).Sitemaps; len(got) != 1 || got[0] != loc {
			t.Errorf("%s: sitemaps %q, want [%s]", name, got, loc)
		}
	}
}

// TestMaybeEscapePattern: rule paths are percent-encoded and escapes upper-cased.
func TestGoogleEscapePattern(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.example.com": "http://www.example.com",
		"/a/b/c":                 "/a/b/c",
		"á":                      "%C3%A1",
		"%aa":                    "%AA",
	} {
		if got := normalisePattern(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
}
