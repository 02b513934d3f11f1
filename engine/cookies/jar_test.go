package cookies

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSite(t *testing.T) {
	for host, want := range map[string]string{
		"www.example.com":    "example.com",
		"news.example.co.uk": "example.co.uk",
		"EXAMPLE.com.":       "example.com",
		"127.0.0.1":          "127.0.0.1",
		"localhost":          "localhost",
		"co.uk":              "co.uk",
		"www.harbor.test":    "harbor.test",
	} {
		if got := Site(host); got != want {
			t.Errorf("Site(%q) = %q, want %q", host, got, want)
		}
	}
}

// Cookies are scoped as a browser scopes them: a Domain cookie reaches the site's
// other hosts and never another site; sites are kept apart; Forget starts afresh.
func TestJarScopesBySite(t *testing.T) {
	j := New(Limits{}, nil)
	www, news, other := mustURL(t, "http://www.example.com/"), mustURL(t, "http://news.example.com/a"), mustURL(t, "http://www.other.com/")
	j.SetCookies(www, []*http.Cookie{{Name: "sid", Value: "1", Domain: "example.com", Path: "/"}, {Name: "hostonly", Value: "2", Path: "/"}})
	j.SetCookies(other, []*http.Cookie{{Name: "sid", Value: "other", Path: "/"}})
	for _, c := range []struct {
		u    *url.URL
		want string
	}{
		{www, "hostonly=2 sid=1"},
		{news, "sid=1"},
		{other, "sid=other"},
	} {
		var got []string
		for _, ck := range j.Cookies(c.u) {
			got = append(got, ck.Name+"="+ck.Value)
		}
		if g := strings.Join(sortStrings(got), " "); g != c.want {
			t.Errorf("cookies for %s = %q, want %q", c.u, g, c.want)
		}
	}
	// A cookie for a public suffix is refused (cookiejar with the public suffix list).
	j.SetCookies(www, []*http.Cookie{{Name: "evil", Value: "1", Domain: "com", Path: "/"}})
	for _, ck := range j.Cookies(other) {
		if ck.Name == "evil" {
			t.Fatal("a cookie for the public suffix com reached another site")
		}
	}
	j.Forget("news.example.com")
	if n := len(j.Cookies(www)); n != 0 {
		t.Fatalf("after Forget the site still sends %d cookies", n)
	}
	if j.Sites() != 1 {
		t.Fatalf("Sites = %d, want 1 (other.com)", j.Sites())
	}
}

func sortStrings(s []string) []string {
	for i := range s {
		for k := i + 1; k < len(s); k++ {
			if s[k] < s[i] {
				s[i], s[k] = s[k], s[i]
			}
		}
	}
	return s
}

// Bad input: a Set-Cookie flood, thousands of cookies with huge values,
// through a real HTTP exchange, is bounded and counted.
func TestJarBoundsASetCookieFlood(t *testing.T) {
	for _, c := range []struct {
		name     string
		n, size  int
		lim      Limits
		maxKept  int
		minDrops int64
	}{
		{"thousands of small cookies", 3000, 16, Limits{}, 50, 2950},
		{"huge values", 20, 100_000, Limits{}, 0, 20},
		{"byte bound before count bound", 40, 4000, Limits{BytesPerSite: 20_000}, 4, 36},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := strings.Repeat("x", c.size)
				for i := range c.n {
					w.Header().Add("Set-Cookie", fmt.Sprintf("c%d=%s; Path=/", i, v))
				}
			}))
			defer srv.Close()
			j := New(c.lim, nil)
			cl := &http.Client{Jar: j}
			resp, err := cl.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			kept := j.Cookies(mustURL(t, srv.URL))
			if len(kept) > c.maxKept {
				t.Fatalf("jar kept %d cookies, want at most %d", len(kept), c.maxKept)
			}
			bytes := 0
			for _, k := range kept {
				bytes += len(k.Name) + len(k.Value)
			}
			if lim := c.lim.withDefaults(); bytes > lim.BytesPerSite {
				t.Fatalf("jar kept %d bytes, over the %d bound", bytes, lim.BytesPerSite)
			}
			if j.Dropped() < c.minDrops {
				t.Fatalf("Dropped = %d, want >= %d", j.Dropped(), c.minDrops)
			}
		})
	}
}

// A deletion (Max-Age<0) frees its room for a new cookie.
func TestJarDeletionFreesRoom(t *testing.T) {
	j := New(Limits{PerSite: 2}, nil)
	u := mustURL(t, "http://a.example/")
	j.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1"}, {Name: "b", Value: "1"}, {Name: "c", Value: "1"}})
	if j.Dropped() != 1 {
		t.Fatalf("Dropped = %d, want 1", j.Dropped())
	}
	j.SetCookies(u, []*http.Cookie{{Name: "a", MaxAge: -1}})
	j.SetCookies(u, []*http.Cookie{{Name: "c", Value: "1"}})
	if n := len(j.Cookies(u)); n != 2 || j.Dropped() != 1 {
		t.Fatalf("after deleting a and setting c: %d cookies, %d dropped; want 2 and 1", n, j.Dropped())
	}
}

// TestJarScopesBySiteAcrossManyHosts: a jar asked for more hosts than it keeps
// sites for still sends each host its own site's cookies and no other's.
func TestJarScopesBySiteAcrossManyHosts(t *testing.T) {
	j := New(Limits{Sites: 3}, nil)
	j.SetCookies(mustURL(t, "http://www.example.com/"), []*http.Cookie{{Name: "sid", Value: "1", Domain: "example.com", Path: "/"}})
	for round := range 3 {
		for i := range 10 {
			u := mustURL(t, fmt.Sprintf("http://h%d.Other%d.org/", i, i%4))
			if n := len(j.Cookies(u)); n != 0 {
				t.Fatalf("round %d: %s got %d cookies of example.com", round, u, n)
			}
		}
		for _, h := range []string{"news.example.com", "NEWS.example.com", "example.com", "www.example.com"} {
			if ck := j.Cookies(mustURL(t, "http://"+h+"/a")); len(ck) != 1 || ck[0].Value != "1" {
				t.Fatalf("round %d: %s got %v, want sid=1", round, h, ck)
			}
		}
	}
}

// BenchmarkJarCookies is what each request asks of its egress's jar: the cookies
// for a page of a site that set none, on a jar that holds another site's.
func BenchmarkJarCookies(b *testing.B) {
	j := New(Limits{}, nil)
	j.SetCookies(&url.URL{Scheme: "http", Host: "www.example.com", Path: "/"}, []*http.Cookie{{Name: "sid", Value: "1", Path: "/"}})
	u := &url.URL{Scheme: "http", Host: "news.site-17.sandbox.test", Path: "/p/1"}
	b.ReportAllocs()
	for b.Loop() {
		if len(j.Cookies(u)) != 0 {
			b.Fatal("cookies from another site")
		}
	}
}
