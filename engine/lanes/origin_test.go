package lanes

import (
	"net/url"
	"testing"
)

// TestOriginOf: a URL's origin is its scheme://host whether or not the text it was
// read from is at hand, or says something else.
func TestOriginOf(t *testing.T) {
	for _, raw := range []string{"http://a.test/p", "https://www.a.test:8443/x?y=1", "http://a.test",
		"HTTP://A.test/p", "http://u@a.test/p", "http://[::1]:80/"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		want := u.Scheme + "://" + u.Host
		for _, from := range []string{raw, "", "http://other.test/p", "http:/"} {
			if got := originOf(from, u); got != want {
				t.Errorf("originOf(%q, %q) = %q, want %q", from, raw, got, want)
			}
		}
	}
}
