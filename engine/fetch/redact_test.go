package fetch

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRedactHeaders(t *testing.T) {
	for _, c := range []struct {
		name, key string
		in, want  []string
	}{
		{"set-cookie keeps the name", "Set-Cookie", []string{"sid=s3cr3t; Path=/; HttpOnly", "incap_ses_1=abc"}, []string{"sid=[redacted]", "incap_ses_1=[redacted]"}},
		{"cookie list", "Cookie", []string{"a=1; b=2"}, []string{"a=[redacted]; b=[redacted]"}},
		{"other headers untouched", "Etag", []string{`"v1"`}, []string{`"v1"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{c.key: c.in}
			got := RedactHeaders(h)[c.key]
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("%s %q -> %q, want %q", c.key, c.in, got, c.want)
			}
			if h[c.key][0] != c.in[0] {
				t.Fatal("RedactHeaders changed its argument")
			}
		})
	}
	if RedactHeaders(nil) != nil {
		t.Fatal("nil must stay nil")
	}
}

// The session a site hands out stays in the jar: the fetcher returns it to the site
// but every header set it hands up (to the store, the log, an export) is redacted.
func TestFetcherReturnsCookiesButNeverHandsThemUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("sid"); err == nil {
			fmt.Fprintf(w, "<html>welcome back %s</html>", c.Value)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3cr3t", Path: "/"})
		fmt.Fprint(w, "<html>hello</html>")
	}))
	defer srv.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	jar, _ := cookiejar.New(nil)
	f.SetJar(jar)
	first, err := f.Fetch(srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Header.Get("Set-Cookie"); got != "sid="+Redacted {
		t.Fatalf("Result.Header Set-Cookie = %q, want it redacted", got)
	}
	second, err := f.Fetch(srv.URL+"/again", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(second.Body), "welcome back s3cr3t") {
		t.Fatalf("the cookie did not come back on the next request: %q", second.Body)
	}
}
