package frontier

import (
	"math/rand/v2"
	"net/url"
	"reflect"
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
