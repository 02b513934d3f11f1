package frontier

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestTrapGuard(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) }
	g := NewTrapGuard(DefaultTrapOptions(), now)
	cases := []struct {
		name, link, parent, want string
	}{
		{"plain article", "http://a.test/news/2026/11/story.html", "http://a.test/", ""},
		{"segment twice is fine", "http://a.test/a/b/a/b/", "http://a.test/a/b/", ""},
		{"segment three times", "http://a.test/a/b/a/b/a/b/", "http://a.test/a/b/a/b/", TrapPathRepeat},
		{"relative link loop", "http://a.test/x/page/page/page/index.html", "http://a.test/x/page/page/", TrapPathRepeat},
		{"first query from a bare page", "http://a.test/list?f=1", "http://a.test/list", ""},
		{"query grows on its own page", "http://a.test/list?f=1&g=2", "http://a.test/list?f=1", TrapQueryGrowth},
		{"other page with a longer query", "http://a.test/other?f=1&g=2", "http://a.test/list?f=1", ""},
		{"next page replaces the query", "http://a.test/list?page=3", "http://a.test/list?page=2", ""},
		{"huge query", "http://a.test/s?q=" + strings.Repeat("a", 1100), "http://a.test/", TrapQueryGrowth},
		{"calendar far ahead", "http://a.test/cal/2041/01/", "http://a.test/cal/2040/12/", TrapCalendar},
		{"calendar query far back", "http://a.test/cal?year=1990&month=1", "http://a.test/cal", TrapCalendar},
		{"archive inside window", "http://a.test/archive/2019-05-01.html", "http://a.test/archive/", ""},
		{"article id is not a year", "http://a.test/p/12345678", "http://a.test/", ""},
		{"year-like id inside a longer number", "http://a.test/p/a20411", "http://a.test/", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, _ := url.Parse(c.link)
			p, _ := url.Parse(c.parent)
			if got := g.Check(l, p); got != c.want {
				t.Errorf("Check(%s <- %s) = %q, want %q", c.link, c.parent, got, c.want)
			}
		})
	}
	t.Run("each guard off", func(t *testing.T) {
		off := NewTrapGuard(TrapOptions{}, now)
		for _, c := range cases {
			l, _ := url.Parse(c.link)
			p, _ := url.Parse(c.parent)
			if got := off.Check(l, p); got != "" {
				t.Errorf("guards off: Check(%s) = %q, want none", c.link, got)
			}
		}
	})
}

func BenchmarkTrapGuard(b *testing.B) {
	g := NewTrapGuard(DefaultTrapOptions(), nil)
	l, _ := url.Parse("http://news-01.sandbox.test/section/3/articles/2026/11/page-1234.html?ref=home")
	p, _ := url.Parse("http://news-01.sandbox.test/section/3/")
	for b.Loop() {
		g.Check(l, p)
	}
}
