package frontier

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// normalizeCases are absolute URLs and their canonical forms. The RFC 3986 §6.2 cases
// say which rule of the RFC they exercise.
var normalizeCases = []struct {
	name, in, want string
}{
	// RFC 3986 §6.2.2.1 case normalisation.
	{"rfc6.2.2.1 scheme and host lower-case", "HTTP://www.Example.COM/", "http://www.example.com/"},
	{"rfc6.2.2.1 hex digits upper-case", "http://example.com/a%3ab%2f", "http://example.com/a%3Ab%2F"},
	{"path case kept", "http://example.com/CaseMatters", "http://example.com/CaseMatters"},
	// RFC 3986 §6.2.2 example: eXAMPLE://a/./b/../b/%63/%7bfoo%7d ~ example://a/b/c/%7Bfoo%7D.
	{"rfc6.2.2 combined example", "HTTP://a/./b/../b/%63/%7bfoo%7d", "http://a/b/c/%7Bfoo%7D"},
	// RFC 3986 §6.2.2.2 percent-encoding normalisation.
	{"rfc6.2.2.2 unreserved decoded", "http://example.com/%7Euser/%41%2D%5F%2E%30", "http://example.com/~user/A-_.0"},
	{"reserved escape kept", "http://example.com/a%2Fb%3Fc%23d", "http://example.com/a%2Fb%3Fc%23d"},
	{"lone percent encoded", "http://example.com/100%/x%zz", "http://example.com/100%25/x%25zz"},
	{"raw characters RFC 3986 forbids encoded", "http://example.com/a b|c^d[e]{f}`g", "http://example.com/a%20b%7Cc%5Ed%5Be%5D%7Bf%7D%60g"},
	{"sub-delims left raw", "http://example.com/a;b=c,d!$&'()*+:@", "http://example.com/a;b=c,d!$&'()*+:@"},
	{"non-ASCII path as UTF-8 escapes", "http://example.com/ä/日本", "http://example.com/%C3%A4/%E6%97%A5%E6%9C%AC"},
	{"lower-case UTF-8 escapes equal raw", "http://example.com/%c3%a4", "http://example.com/%C3%A4"},
	// RFC 3986 §6.2.2.3 dot segments.
	{"rfc6.2.2.3 dot segments", "http://example.com/a/b/c/./../../g", "http://example.com/a/g"},
	{"dot segments above root", "http://example.com/../../a/..", "http://example.com/"},
	{"escaped dot segments", "http://example.com/x/%2e%2E/a/.%2e/b/%2E/c", "http://example.com/b/c"},
	{"dots inside names kept", "http://example.com/a../..b/.c", "http://example.com/a../..b/.c"},
	// RFC 3986 §6.2.3 scheme-based normalisation: these four are one resource.
	{"rfc6.2.3 no path", "http://example.com", "http://example.com/"},
	{"rfc6.2.3 empty port", "http://example.com:/", "http://example.com/"},
	{"rfc6.2.3 default port", "http://example.com:80/", "http://example.com/"},
	{"https default port", "https://example.com:443/x", "https://example.com/x"},
	{"port of the other scheme kept", "http://example.com:443/", "http://example.com:443/"},
	{"port leading zeros", "http://example.com:0080/", "http://example.com/"},
	{"non-default port kept", "https://example.com:8443/", "https://example.com:8443/"},
	// Hosts.
	{"IDN to punycode", "http://Bücher.example/", "http://xn--bcher-kva.example/"},
	{"IDN UTS46 mapping", "http://FAß.de/", "http://xn--fa-hia.de/"},
	{"punycode kept", "http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"},
	{"trailing dot of host removed", "http://example.com./a", "http://example.com/a"},
	{"several trailing dots removed", "http://example.com../a", "http://example.com/a"},
	{"host read again after trimming", "http://0../", "http://0.0.0.0/"},
	{"underscore in host kept", "http://my_host.example/", "http://my_host.example/"},
	{"percent-encoded host decoded", "http://ex%41mple.com/", "http://example.com/"},
	{"IPv4 shorthand", "http://0x7f.1/", "http://127.0.0.1/"},
	{"IPv6 compressed, port kept", "http://[0:0:0:0:0:0:0:1]:8080/", "http://[::1]:8080/"},
	// Fragments and userinfo.
	{"fragment dropped", "http://example.com/a#section-2", "http://example.com/a"},
	{"empty fragment dropped", "http://example.com/a#", "http://example.com/a"},
	{"userinfo stripped", "http://user:secret@example.com/x", "http://example.com/x"},
	// Query.
	{"empty query dropped", "http://example.com/a?", "http://example.com/a"},
	{"empty query and fragment dropped", "http://example.com/a?#top", "http://example.com/a"},
	{"query order kept", "http://example.com/s?z=1&a=2&z=0", "http://example.com/s?z=1&a=2&z=0"},
	{"query plus and %20 kept distinct", "http://example.com/s?q=a+b&r=a%20b", "http://example.com/s?q=a+b&r=a%20b"},
	{"query slash and question mark raw", "http://example.com/s?next=/a?b", "http://example.com/s?next=/a?b"},
	{"query escapes normalised", "http://example.com/s?q=%7e%2f%3D", "http://example.com/s?q=~%2F%3D"},
	{"query non-ASCII encoded", "http://example.com/s?q=ü", "http://example.com/s?q=%C3%BC"},
	{"query empty params kept", "http://example.com/s?&&a=&", "http://example.com/s?&&a=&"},
	// What browsers do with sloppy hrefs.
	{"surrounding spaces, tabs and newlines", "  http://example.com/a\t\nb  ", "http://example.com/ab"},
	{"backslashes are slashes", `http:\\example.com\a\b`, "http://example.com/a/b"},
	{"scheme case", "HtTpS://example.com", "https://example.com/"},
}

func TestNormalize(t *testing.T) {
	for _, tc := range normalizeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.in)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestNormalizeIsCanonical checks what the frontier relies on for every output: feeding
// it back changes nothing (one key per page), and net/url, which the fetcher uses,
// parses it and prints the very same string.
func TestNormalizeIsCanonical(t *testing.T) {
	for _, tc := range normalizeCases {
		t.Run(tc.name, func(t *testing.T) {
			again, err := Normalize(tc.want)
			if err != nil || again != tc.want {
				t.Errorf("Normalize(%q) = %q, %v; want it unchanged", tc.want, again, err)
			}
			u, err := url.Parse(tc.want)
			if err != nil {
				t.Fatalf("net/url cannot parse %q: %v", tc.want, err)
			}
			if u.String() != tc.want {
				t.Errorf("net/url prints %q as %q", tc.want, u.String())
			}
		})
	}
}

func TestNormalizeRejects(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", MaxURLLength)
	cases := []struct {
		name, in, kind, reason string
	}{
		{"mailto", "mailto:bob@example.com", KindScheme, `"mailto" is not http or https`},
		{"javascript", "javascript:alert(1)", KindScheme, `"javascript"`},
		{"data", "data:text/html,<b>hi</b>", KindScheme, `"data"`},
		{"ftp", "ftp://example.com/file", KindScheme, `"ftp"`},
		{"file", "file:///etc/passwd", KindScheme, `"file"`},
		{"scheme hidden by tab", "java\tscript:alert(1)", KindScheme, `"javascript"`},
		{"relative path", "/just/a/path", KindMalformed, "no scheme"},
		{"bare word", "example.com", KindMalformed, "no scheme"},
		{"empty", "", KindMalformed, "no scheme"},
		{"no host", "http://", KindMalformed, "host"},
		{"space in host", "http://exa mple.com/", KindMalformed, "forbidden domain code point"},
		{"port out of range", "http://example.com:99999/", KindMalformed, "port"},
		{"port not a number", "http://example.com:8o/", KindMalformed, "port"},
		{"unclosed IPv6", "http://[::1/", KindMalformed, "ipv6"},
		{"only a dot as host", "http://./", KindMalformed, "empty host"},
		{"character no DNS name has", "http://exa{mple.com/", KindMalformed, "no DNS name"},
		{"too long", long, KindTooLong, "bytes, limit 2048"},
		// 700 "ä" are 1,400 bytes raw and 4,200 once percent-encoded.
		{"too long once encoded", "http://example.com/" + strings.Repeat("ä", 700), KindTooLong, "normalized form"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.in)
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Normalize(%q) = %q, %v; want a *URLError", tc.in, got, err)
			}
			if ue.Kind != tc.kind {
				t.Errorf("kind = %q, want %q (%v)", ue.Kind, tc.kind, err)
			}
			if !strings.Contains(strings.ToLower(ue.Reason), strings.ToLower(tc.reason)) {
				t.Errorf("reason %q does not say %q", ue.Reason, tc.reason)
			}
			if !strings.Contains(err.Error(), strconv.Quote(ue.URL)) || !strings.HasPrefix(err.Error(), tc.kind+":") {
				t.Errorf("error %q does not name the URL and kind", err)
			}
			if len(ue.URL) > errorURLLength+len("…") {
				t.Errorf("error keeps %d bytes of the URL, want at most %d", len(ue.URL), errorURLLength)
			}
		})
	}
}

func TestURLErrorHidesCredentialsAndTruncates(t *testing.T) {
	_, err := Normalize("ftp://admin:hunter2@example.com/" + strings.Repeat("é", 200))
	var ue *URLError
	if !errors.As(err, &ue) {
		t.Fatalf("want *URLError, got %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "admin") {
		t.Errorf("error shows the credentials: %v", err)
	}
	if !strings.HasPrefix(ue.URL, "ftp://***@example.com/") || !strings.HasSuffix(ue.URL, "…") {
		t.Errorf("URL in error = %q, want credentials hidden and an ellipsis", ue.URL)
	}
	if !strings.HasSuffix(strings.TrimSuffix(ue.URL, "…"), "é") {
		t.Errorf("truncation split a character: %q", ue.URL)
	}
}

// rfc3986Base is the base URI of RFC 3986 §5.4.
const rfc3986Base = "http://a/b/c/d;p?q"

func TestResolve(t *testing.T) {
	cases := []struct {
		name, base, ref, want string
	}{
		// RFC 3986 §5.4.1 normal examples (fragments dropped, as Normalize does).
		{"rfc5.4.1 g", rfc3986Base, "g", "http://a/b/c/g"},
		{"rfc5.4.1 ./g", rfc3986Base, "./g", "http://a/b/c/g"},
		{"rfc5.4.1 g/", rfc3986Base, "g/", "http://a/b/c/g/"},
		{"rfc5.4.1 /g", rfc3986Base, "/g", "http://a/g"},
		{"rfc5.4.1 //g", rfc3986Base, "//g", "http://g/"},
		{"rfc5.4.1 ?y", rfc3986Base, "?y", "http://a/b/c/d;p?y"},
		{"rfc5.4.1 g?y", rfc3986Base, "g?y", "http://a/b/c/g?y"},
		{"rfc5.4.1 #s", rfc3986Base, "#s", "http://a/b/c/d;p?q"},
		{"rfc5.4.1 g#s", rfc3986Base, "g#s", "http://a/b/c/g"},
		{"rfc5.4.1 ;x", rfc3986Base, ";x", "http://a/b/c/;x"},
		{"rfc5.4.1 g;x?y#s", rfc3986Base, "g;x?y#s", "http://a/b/c/g;x?y"},
		{"rfc5.4.1 empty", rfc3986Base, "", "http://a/b/c/d;p?q"},
		{"rfc5.4.1 .", rfc3986Base, ".", "http://a/b/c/"},
		{"rfc5.4.1 ..", rfc3986Base, "..", "http://a/b/"},
		{"rfc5.4.1 ../g", rfc3986Base, "../g", "http://a/b/g"},
		{"rfc5.4.1 ../..", rfc3986Base, "../..", "http://a/"},
		{"rfc5.4.1 ../../g", rfc3986Base, "../../g", "http://a/g"},
		// RFC 3986 §5.4.2 abnormal examples.
		{"rfc5.4.2 ../../../g", rfc3986Base, "../../../g", "http://a/g"},
		{"rfc5.4.2 ../../../../g", rfc3986Base, "../../../../g", "http://a/g"},
		{"rfc5.4.2 /./g", rfc3986Base, "/./g", "http://a/g"},
		{"rfc5.4.2 /../g", rfc3986Base, "/../g", "http://a/g"},
		{"rfc5.4.2 g.", rfc3986Base, "g.", "http://a/b/c/g."},
		{"rfc5.4.2 ..g", rfc3986Base, "..g", "http://a/b/c/..g"},
		{"rfc5.4.2 ./../g", rfc3986Base, "./../g", "http://a/b/g"},
		{"rfc5.4.2 ./g/.", rfc3986Base, "./g/.", "http://a/b/c/g/"},
		{"rfc5.4.2 g/../h", rfc3986Base, "g/../h", "http://a/b/c/h"},
		{"rfc5.4.2 g;x=1/../y", rfc3986Base, "g;x=1/../y", "http://a/b/c/y"},
		{"rfc5.4.2 dots in query kept", rfc3986Base, "g?y/../x", "http://a/b/c/g?y/../x"},
		{"rfc5.4.2 dots in fragment dropped", rfc3986Base, "g#s/../x", "http://a/b/c/g"},
		// RFC 3986 says "http:g" is "http:g" for strict parsers; browsers (and WHATWG)
		// read it as relative when the base has the same special scheme.
		{"http:g as a browser reads it", rfc3986Base, "http:g", "http://a/b/c/g"},
		// A directory page with and without its trailing slash.
		{"base with trailing slash", "http://example.com/docs/", "intro.html", "http://example.com/docs/intro.html"},
		{"base without trailing slash", "http://example.com/docs", "intro.html", "http://example.com/intro.html"},
		{"parent from base with slash", "http://example.com/docs/", "../img/a.png", "http://example.com/img/a.png"},
		{"base host only", "http://example.com", "a/b", "http://example.com/a/b"},
		// Query edge cases.
		{"query-only ref replaces query", "http://example.com/p?a=1", "?b=2", "http://example.com/p?b=2"},
		{"empty query ref", "http://example.com/p?a=1", "?", "http://example.com/p"},
		{"fragment-only ref keeps query", "http://example.com/p?a=1", "#x", "http://example.com/p?a=1"},
		{"query with encoded amp", "http://example.com/", "s?q=a%26b&c", "http://example.com/s?q=a%26b&c"},
		// Absolute, scheme-relative and sloppy links.
		{"absolute link", "http://example.com/", "HTTPS://Other.Example:443/x#y", "https://other.example/x"},
		{"scheme-relative link takes base scheme", "https://example.com/", "//cdn.example/x", "https://cdn.example/x"},
		{"link with spaces and newline", "http://example.com/a/", " b\n/c ", "http://example.com/a/b/c"},
		{"backslash link", "http://example.com/a/", `\b\c`, "http://example.com/b/c"},
		{"IDN link", "http://example.com/", "//bücher.example/ä", "http://xn--bcher-kva.example/%C3%A4"},
		{"base with userinfo", "http://u:p@example.com/a/", "b", "http://example.com/a/b"},
		{"IPv6 base, plain link", "http://[::1]:8080/a/", "b?x=1", "http://[::1]:8080/a/b?x=1"},
		{"IPv6 base, link needing the full parser", "http://[::1]:8080/a/", "./b%7e", "http://[::1]:8080/a/b~"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, err := url.Parse(tc.base)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Resolve(base, tc.ref)
			if err != nil {
				t.Fatalf("Resolve(%q, %q): %v", tc.base, tc.ref, err)
			}
			if got != tc.want {
				t.Errorf("Resolve(%q, %q) = %q, want %q", tc.base, tc.ref, got, tc.want)
			}
			b, err := ParseBase(tc.base)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := b.Resolve(tc.ref); again != got {
				t.Errorf("Base.Resolve = %q, Resolve = %q", again, got)
			}
		})
	}
}

func TestResolveRejects(t *testing.T) {
	base, _ := url.Parse("http://example.com/a/")
	cases := []struct{ name, ref, kind string }{
		{"mailto link", "mailto:someone@example.com", KindScheme},
		{"javascript link", "javascript:void(0)", KindScheme},
		{"javascript link with spaces", "  JavaScript:void(0)", KindScheme},
		{"tel link", "tel:+15555550100", KindScheme},
		{"data link", "data:image/png;base64,AAAA", KindScheme},
		{"ftp link", "ftp://example.com/f", KindScheme},
		{"bad host", "//exa mple.com/", KindMalformed},
		{"bad port", "http://example.com:70000/", KindMalformed},
		{"too long", "/" + strings.Repeat("x", MaxURLLength+1), KindTooLong},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(base, tc.ref)
			var ue *URLError
			if !errors.As(err, &ue) || ue.Kind != tc.kind {
				t.Fatalf("Resolve(%q) = %q, %v; want a %s error", tc.ref, got, err, tc.kind)
			}
		})
	}
}

func TestResolveResultsAreCanonical(t *testing.T) {
	// Links written differently but leading to one page must come out identical, or the
	// dedupe would fetch the page once per spelling.
	b, err := ParseBase("http://example.com/news/today/")
	if err != nil {
		t.Fatal(err)
	}
	spellings := []string{
		"../archive/%7Eold?id=1#c", "/news/archive/~old?id=1", "../../news/./archive/%7eold?id=1",
		"HTTP://EXAMPLE.COM:80/news/archive/~old?id=1", "//example.com./news/archive/%7Eold?id=1",
		"\t/news/archive/~old?id=1\n",
	}
	want := "http://example.com/news/archive/~old?id=1"
	for _, s := range spellings {
		t.Run(s, func(t *testing.T) {
			got, err := b.Resolve(s)
			if err != nil || got != want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", s, got, err, want)
			}
		})
	}
}

func TestHash(t *testing.T) {
	// Hashes are stored (parent_hash, dedupe key), so they must never change: these are
	// the published XXH64 (seed 0) test vectors.
	vectors := []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
	}
	for _, v := range vectors {
		if got := Hash(v.in); got != v.want {
			t.Errorf("Hash(%q) = %#x, want %#x", v.in, got, v.want)
		}
	}
	a, _ := Normalize("HTTP://Example.com:80/a/../b#x")
	b, _ := Normalize("http://example.com/b")
	if Hash(a) != Hash(b) {
		t.Errorf("equivalent URLs hash differently: %q %q", a, b)
	}
	if Hash(a) == Hash("http://example.com/c") {
		t.Errorf("different URLs hash alike")
	}
	if got := (Task{URL: b}).Hash(); got != Hash(b) {
		t.Errorf("Task.Hash = %#x, want Hash(URL) %#x", got, Hash(b))
	}
}

// FuzzNormalize checks the properties the frontier relies on for any input: no panic;
// on success a canonical, fetchable http(s) URL; on failure a *URLError of a known kind.
func FuzzNormalize(f *testing.F) {
	for _, tc := range normalizeCases {
		f.Add(tc.in)
	}
	for _, s := range []string{"http://example.com../", "http://a..b/", "http://1.2.3.4.5/", "http://256.1.1.1/",
		"http://[fe80::1%25eth0]/", "http://xn--/", "http://%zz/", "http://@/", "http://a:b@/", "https://[::]:0/",
		"http://ex\u00adample.com/", "http://\u3002/", "http://a/%", "http://a/?%", "http://a/\x00", "http://a#\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := Normalize(raw)
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Normalize(%q) error %v is not a *URLError", raw, err)
			}
			switch ue.Kind {
			case KindScheme, KindMalformed, KindTooLong:
			default:
				t.Fatalf("unknown kind %q", ue.Kind)
			}
			return
		}
		if !strings.HasPrefix(n, "http://") && !strings.HasPrefix(n, "https://") {
			t.Fatalf("Normalize(%q) = %q: not http(s)", raw, n)
		}
		if len(n) > MaxURLLength || strings.ContainsAny(n, "# \t\n") {
			t.Fatalf("Normalize(%q) = %q: too long, or a fragment or space survived", raw, n)
		}
		again, err := Normalize(n)
		if err != nil || again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, n, again, err)
		}
		u, err := url.Parse(n)
		if err != nil {
			t.Fatalf("net/url cannot parse %q (from %q): %v", n, raw, err)
		}
		if u.User != nil || u.String() != n {
			t.Fatalf("net/url reads %q as %q (user %v)", n, u.String(), u.User)
		}
	})
}

// FuzzResolve checks that any link on a page resolves to a canonical URL or a *URLError.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"g", "../g", "//g", "?y", "#s", "", "http:g", "mailto:x", " \\x\t", "//[::1]:80/a", "%zz", "/a/../../b/.%2e/c"} {
		f.Add(s)
	}
	b, err := ParseBase(rfc3986Base)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		n, err := b.Resolve(ref)
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Resolve(%q) error %v is not a *URLError", ref, err)
			}
			return
		}
		if again, err := Normalize(n); err != nil || again != n {
			t.Fatalf("Resolve(%q) = %q, not canonical: %q, %v", ref, n, again, err)
		}
	})
}

// FuzzFastPath checks that the fast path of Normalize and Resolve, wherever it applies,
// gives exactly what the full WHATWG path gives.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{"/news/a.html", "page2?id=3", "#top", "?q=1", "", "//cdn.example/x", "https://a.example:8443/x?y",
		"g:h", "a:b/c", "./g", "g/..", "http://a/b?", "http://A/", "http://a_b.example/", "http://1a.example/", "http://a.1/",
		"http://a.example:080/", "http://a.example:80/", "http://-a-.example/", "http://xn--a.example/", "x?'", "/a//b", "?"} {
		f.Add(rfc3986Base, s)
		f.Add("https://www.example.com/dir/", s)
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		if canonicalAbsolute(ref) {
			if full, err := normalizeFull(ref); err != nil || full != ref {
				t.Fatalf("fast path says %q is canonical; full path gives %q, %v", ref, full, err)
			}
		}
		b, err := ParseBase(base)
		if err != nil {
			return
		}
		fast, ok := b.resolveSimple(ref)
		if !ok {
			return
		}
		full, err := b.resolveFull(ref)
		if err != nil || full != fast {
			t.Fatalf("base %q ref %q: fast path %q, full path %q, %v", base, ref, fast, full, err)
		}
	})
}

// TestFastPathAgreesWithFullPath runs the FuzzFastPath property over links built from a
// grammar of troublesome pieces, so every run covers the fast path's edges.
func TestFastPathAgreesWithFullPath(t *testing.T) {
	pieces := []string{"", "/", "//", "a", "B", "..", ".", "%41", "%2e", "?", "#", "x=1", "&", "'", ":", "@", `\`, " ", "\t",
		"ä", "g:h", "http:", "http://", "https://", "HTTP://", "a.example", "1.2", "xn--", ":80", ":443", ":8080", ":0", ":08",
		"_", "-", "~", "!", "$", "(", "*", "+", ",", ";", "=", "[", "]", "|", "^", "{", "`", `"`, "0x7f", "%zz"}
	bases := []string{rfc3986Base, "https://www.example.com/dir/", "http://example.com", "http://example.com:8080/a/b.html?x=1",
		"https://example.com/%7Euser/p?q#f", "http://[::1]/a/"}
	n := 30000
	if testing.Short() {
		n = 5000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for i := 0; i < n; i++ {
		var sb strings.Builder
		for k := rng.IntN(6) + 1; k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		ref := sb.String()
		if canonicalAbsolute(ref) {
			fast++
			if full, err := normalizeFull(ref); err != nil || full != ref {
				t.Fatalf("fast path says %q is canonical; full path gives %q, %v", ref, full, err)
			}
		}
		b, err := ParseBase(bases[i%len(bases)])
		if err != nil {
			t.Fatal(err)
		}
		if out, ok := b.resolveSimple(ref); ok {
			fast++
			if full, err := b.resolveFull(ref); err != nil || full != out {
				t.Fatalf("base %q ref %q: fast path %q, full path %q, %v", bases[i%len(bases)], ref, out, full, err)
			}
		}
	}
	if fast < n/20 {
		t.Errorf("only %d of %d links took the fast path: the test covers little", fast, n)
	}
}

// A canonical page URL skips the WHATWG parser in ParseBase; links that need the
// parser still resolve against it exactly as against the same page written
// otherwise (upper-case scheme, default port: the parser's path from the start).
func TestCanonicalBaseResolvesAsTheParsedOne(t *testing.T) {
	pages := [][2]string{
		{"https://www.example.com/news/2025/05/index.html", "HTTPS://www.example.com:443/news/2025/05/index.html"},
		{"http://example.com/a/b?x=1", "HTTP://EXAMPLE.com:80/a/b?x=1"},
		{"http://example.com:8080/", "http://example.com:8080"},
	}
	refs := append([]string{"../up/./x.html", "%7euser/", "https://Other.Example.com:443/a/./b/../c#top",
		"HTTP://x.example/", "javascript:void(0)", "http://[::1]/", "\\back\\slash", " spaced one ",
		"//cdn.example.net/%41", "?q=a b", "", "#only"}, benchLinks...)
	for _, p := range pages {
		fast, err := ParseBase(p[0])
		if err != nil {
			t.Fatal(err)
		}
		full, err := ParseBase(p[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			got, gotErr := fast.Resolve(ref)
			want, wantErr := full.Resolve(ref)
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("base %s, link %q: %q, %v; the parsed base gives %q, %v", p[0], ref, got, gotErr, want, wantErr)
			}
		}
	}
}
