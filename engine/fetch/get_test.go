package fetch

import (
	neturl "net/url"
	"testing"
)

// requestURLParsed is requestURL without the canonical shortcut: every URL read by
// the WHATWG parser and written back through net/url.
func requestURLParsed(raw string) (string, error) {
	u, err := urlParser.Parse(raw)
	if err != nil {
		return "", err
	}
	pu, err := neturl.Parse(u.Href(false))
	if err != nil {
		return "", err
	}
	return pu.String(), nil
}

// FuzzRequestURL: a URL taken as it is (canonical) is the one the parser would have
// sent the request to.
func FuzzRequestURL(f *testing.F) {
	for _, s := range []string{"http://a.example/", "https://www.example.com/news/2025/05/story-1.html?id=3&x=y",
		"http://example.com:8080/a/b/", "https://a.b.c.example/~user/x_y-z.html", "http://x.example/a;b=c/d@e",
		"http://x.example/a!$&'()*+,=:@/", "http://x.example/?a=/b?c", "http://EXAMPLE.com/", "http://x.example/%41",
		"http://x.example/a b", "http://x.example/a/../b", "http://x.example:80/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := requestURL(raw)
		want, wantErr := requestURLParsed(raw)
		if err != nil || wantErr != nil {
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("%q: %q, %v; parsed: %q, %v", raw, got, err, want, wantErr)
			}
			return
		}
		if got != want {
			t.Fatalf("%q: request to %q, the parser says %q", raw, got, want)
		}
	})
}
