package frontier

import (
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestParseCanonicalIsURLParse: where ParseCanonical reads a URL, it reads what
// url.Parse reads, field for field, and it reads the links of a crawl's pages.
func TestParseCanonicalIsURLParse(t *testing.T) {
	pieces := []string{"a", "b", "z9", "-", "_", ".", "..", "~", "/", "//", "?", "=", "&", "+", ",", ";", ":",
		"@", "$", "!", "'", "(", "*", "%41", "%", "#", " ", "é", "A", "?q=1", "/x", "%2F"}
	heads := []string{"http://a.test", "https://www.a.test", "http://a.test:8080", "http://a.test:80",
		"http://1.2.3.4", "http://A.test", "ftp://a.test", "http://a.test/", "https://b.c.test/p"}
	r := rand.New(rand.NewPCG(7, 8))
	read := 0
	for range 200_000 {
		raw := heads[r.IntN(len(heads))]
		for range r.IntN(8) {
			raw += pieces[r.IntN(len(pieces))]
		}
		var got url.URL
		if !ParseCanonical(raw, &got) {
			continue
		}
		read++
		want, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q: read, but url.Parse fails: %v", raw, err)
		}
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("%q: %#v, url.Parse %#v", raw, got, *want)
		}
	}
	if read < 10_000 {
		t.Fatalf("only %d URLs read", read)
	}
	for _, raw := range []string{"http://www.site1.test/", "http://science.site1.test/list?p=1",
		"https://a.test/top/0-zoning-railway-solar.html", "http://a.test:8080/x/y?a=1&b=2"} {
		var u url.URL
		if !ParseCanonical(raw, &u) {
			t.Fatalf("%q not read", raw)
		}
	}
}

// TestResolveCanonicalIsResolve: ResolveCanonical resolves every link as Resolve
// does, and what it reports checked is canonical and read by ParseCanonicalChecked
// as ParseCanonical reads it.
func TestResolveCanonicalIsResolve(t *testing.T) {
	pieces := []string{"", "/", "//", "a", "B", "..", ".", "%41", "?", "#", "#f", "x=1", "&", "'", ":", "@", " ", "ä",
		"http:", "http://", "https://", "HTTP://", "a.example", "1.2", "xn--", ":80", ":443", ":8080", "_", "-", "~", "$", "*"}
	bases := []string{"http://www.a.test/dir/p.html", "https://www.example.com/dir/", "http://example.com:8080/a/b.html?x=1",
		"https://example.com/%7Euser/p?q#f", "http://[::1]/a/", "http://A.test/"}
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for i := range 60_000 {
		var sb strings.Builder
		if i%2 == 0 {
			sb.WriteString([]string{"http://", "https://", "http://a.test", "https://b.test/"}[rng.IntN(4)])
		}
		for k := rng.IntN(6) + 1; k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		ref := sb.String()
		b, err := ParseBase(bases[i%len(bases)])
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := b.Resolve(ref)
		got, ok, err := b.ResolveCanonical(ref)
		if got != want || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("base %q ref %q: %q, %v; Resolve %q, %v", bases[i%len(bases)], ref, got, err, want, wantErr)
		}
		if !ok {
			continue
		}
		checked++
		if !canonicalAbsolute(got) {
			t.Fatalf("ref %q: %q reported checked, not canonical", ref, got)
		}
		var u, v url.URL
		if ParseCanonicalChecked(got, &u) != ParseCanonical(got, &v) || u != v {
			t.Fatalf("%q: ParseCanonicalChecked %#v, ParseCanonical %#v", got, u, v)
		}
	}
	if checked < 2_000 {
		t.Fatalf("only %d links checked on the way", checked)
	}
}

// simpleHostByRules is simpleHost as its rules read, a check at a time.
func simpleHostByRules(h string) bool {
	if h == "" || h[0] == '.' || h[len(h)-1] == '.' || strings.Contains(h, "..") || strings.Contains(h, "xn--") {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	return !('0' <= last[0] && last[0] <= '9')
}

// TestSimpleHostByRules: the one-pass simpleHost takes the hosts its rules take.
func TestSimpleHostByRules(t *testing.T) {
	pieces := []string{"a", "z", "x", "n", "xn", "-", "--", "xn--", "x-n--", ".", "..", "0", "9", "1a", "_", "A", "é", ":", "%", "www", "test"}
	rng := rand.New(rand.NewPCG(9, 10))
	took := 0
	for range 200_000 {
		var sb strings.Builder
		for k := rng.IntN(7); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		h := sb.String()
		if got, want := simpleHost(h), simpleHostByRules(h); got != want {
			t.Fatalf("simpleHost(%q) = %v, by its rules %v", h, got, want)
		} else if got {
			took++
		}
	}
	if took < 10_000 {
		t.Fatalf("only %d hosts taken", took)
	}
}

// FuzzSimpleHost: simpleHost against its rules on any host.
func FuzzSimpleHost(f *testing.F) {
	for _, h := range []string{"a.test", "xn--a.test", "a..b", "1.2.3.4", "a.1b", "a-b_c.d9", "axn--b.c", ".a", "a."} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if got, want := simpleHost(h), simpleHostByRules(h); got != want {
			t.Fatalf("simpleHost(%q) = %v, by its rules %v", h, got, want)
		}
	})
}

// TestHostnameIsURLParse: Hostname answers what url.Parse's Hostname does (""
// where url.Parse fails), for canonical URLs read in place and for the rest, and
// reads a canonical URL without allocating.
func TestHostnameIsURLParse(t *testing.T) {
	pieces := []string{"a", "B", "/", "?", "#", ":", "@", "%41", "%", " ", "é", "[", "]", ":8080", "?q=1", "\x7f"}
	heads := []string{"http://a.test", "https://www.a.test", "http://a.test:8080", "http://A.test", "http://[::1]:80",
		"http://u@h.test", "ftp://a.test", "http://1.2.3.4", "a.test/x", "http://", "//h.test", ""}
	r := rand.New(rand.NewPCG(9, 10))
	for range 50_000 {
		raw := heads[r.IntN(len(heads))]
		for range r.IntN(6) {
			raw += pieces[r.IntN(len(pieces))]
		}
		want := ""
		if u, err := url.Parse(raw); err == nil {
			want = u.Hostname()
		}
		if got := Hostname(raw); got != want {
			t.Fatalf("Hostname(%q) = %q, url.Parse's %q", raw, got, want)
		}
	}
	raw := "http://www.site1.test:8080/top/0-zoning.html?p=2"
	if got := Hostname(raw); got != "www.site1.test" {
		t.Fatalf("Hostname(%q) = %q", raw, got)
	}
	if n := testing.AllocsPerRun(100, func() { Hostname(raw) }); n != 0 {
		t.Fatalf("Hostname of a canonical URL: %v allocations, want 0", n)
	}
}
