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

// BenchmarkHeadText is the response head an exchange keeps for the archive, for a
// page's usual header fields.
func BenchmarkHeadText(b *testing.B) {
	h := http.Header{
		"Content-Type":   {"text/html; charset=utf-8"},
		"Content-Length": {"3438"},
		"Date":           {"Mon, 30 Nov 2026 09:00:00 GMT"},
		"Last-Modified":  {"Mon, 30 Nov 2026 02:00:00 GMT"},
		"Etag":           {`"5f1c-3438"`},
		"Cache-Control":  {"max-age=60"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if HeadText(h) == "" || keptHeader(h) == nil {
			b.Fatal("no head")
		}
	}
}

// TestRedactHeaderIsTheCanonicalNames: RedactHeader says yes exactly for the names
// http.CanonicalHeaderKey turns into one of the five, over every case of them and
// each with one byte changed (letters, dashes, spaces, underscores, a byte of a
// character that folds to an ASCII letter).
func TestRedactHeaderIsTheCanonicalNames(t *testing.T) {
	want := func(name string) bool {
		switch http.CanonicalHeaderKey(name) {
		case "Cookie", "Set-Cookie", "Set-Cookie2", "Authorization", "Proxy-Authorization":
			return true
		}
		return false
	}
	names := []string{"", "Content-Type", "Last-Modified", "Cache-Control", "X-Robots-Tag", "Cookie2", "Cookies", "ſet-cookie", "Set-Coo\u212aie", "Proxy-Authenticate", "Www-Authenticate"}
	for _, base := range []string{"Cookie", "Set-Cookie", "Set-Cookie2", "Authorization", "Proxy-Authorization"} {
		names = append(names, base, strings.ToLower(base), strings.ToUpper(base))
		for i := range len(base) {
			for _, c := range []byte{'a', 'Z', 'e', 'E', '-', ' ', '_', '2', 0xc5, 0x7f} {
				b := []byte(strings.ToLower(base))
				b[i] = c
				names = append(names, string(b), strings.ToUpper(string(b)))
			}
		}
	}
	yes := 0
	for _, n := range names {
		if got := RedactHeader(n); got != want(n) {
			t.Errorf("RedactHeader(%q) = %v, want %v", n, got, want(n))
		} else if got {
			yes++
		}
	}
	if yes < 15 {
		t.Fatalf("only %d names redacted: the cases were not tried", yes)
	}
}

// TestHeadTextSortsEveryField: the head lists every field once per value, sorted
// by name, however many fields a response has.
func TestHeadTextSortsEveryField(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 80} {
		h := http.Header{}
		var want []string
		for i := n - 1; i >= 0; i-- {
			k := fmt.Sprintf("X-Field-%03d", i)
			h[k] = []string{"v"}
			want = append([]string{k + ": v\r\n"}, want...)
		}
		if got := HeadText(h); got != strings.Join(want, "") {
			t.Errorf("%d fields: %q", n, got)
		}
	}
}
