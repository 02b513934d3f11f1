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

// A calendar year is a year where a date stands in a URL: a path segment of its own
// or a date-shaped one, a date-shaped query value, a bare year under a key that names
// a date. Four digits anywhere else (a month index, an id, a DOI, a model year in a
// product slug) are no calendar. Before, any four digits from 1900 to 2199 followed by
// one of "/-_.&" counted, so ?m=1952, ?id=2012 and /10.1002/abc.2012.34 were held back.
func TestCalendarGuardReadsDatesNotNumbers(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) }
	g := NewTrapGuard(TrapOptions{CalendarYears: 10}, now)
	cases := []struct {
		link string
		trap bool
	}{
		// Calendars running off: still caught.
		{"https://www.example.org/calendar/2150/01/", true},
		{"https://www.example.org/calendar/2150", true},
		{"https://events.example.org/day/2150-01-31/", true},
		{"https://events.example.org/archive/2150-01.html", true},
		{"https://events.example.org/archive/2150_01_31.html", true},
		{"https://www.example.org/2150.html", true},
		{"https://www.example.org/events/?date=2150-01-01", true},
		{"https://www.example.org/events/?date=2150-01-01T09:00:00Z", true},
		{"https://www.example.org/index.php?option=com_events&task=month&ymd=2150%2F01%2F01", true},
		{"https://www.example.org/cal.php?view=month&year=2150&month=1", true},
		{"https://www.example.org/cal?tx_news_pi1%5Byear%5D=1850&m=2", false}, // 1850: no year the guard reads
		{"https://www.example.org/cal?tx_news_pi1%5Byear%5D=1901&tx_news_pi1%5Bmonth%5D=2", true},
		{"https://www.example.org/events?from=2150/03", true},
		{"https://www.example.org/events?d=21500131&date=21500131", true},
		{"https://www.example.org/cal/1990/12/", true},
		{"https://www.example.org/2026/11/ok/2150/01/", true}, // the far year further on counts too
		// Inside the window: crawled.
		{"https://www.example.org/news/2026/11/25/harbour-reopens.html", false},
		{"https://www.example.org/archive/2019-05-01.html", false},
		{"https://www.example.org/events?date=2031-05-01", false},
		// Numbers that are not years.
		{"https://www.blogger-like.example/2024/03/post.html?m=1952", false},
		{"https://www.example.org/?m=1", false},
		{"https://www.example.org/item?id=2012", false},
		{"https://www.example.org/list?page=2100&sort=new", false},
		{"https://onlinelibrary.example.com/doi/10.1002/abc.2012.34", false},
		{"https://onlinelibrary.example.com/doi/full/10.1002/2150.34", false},
		{"https://agupubs.example.com/doi/10.1029/2150JD017", false},
		{"https://shop.example.com/product-1999.html", false},
		{"https://shop.example.com/cameras/eos-2150d", false},
		{"https://shop.example.com/p/21500131", false}, // an eight-digit id, not a date in a path
		{"https://shop.example.com/p/2150-77", false},  // no month 77
		{"https://www.example.org/story/2150-01-31-a-title-with-a-date", false},
		{"https://www.example.org/v2150/", false},
		{"https://www.example.org/p/a20411", false},
		{"https://www.example.org/price?eur=1999.99", false},
		{"https://www.example.org/search?q=2150&page=2", false},
	}
	for _, c := range cases {
		l, err := url.Parse(c.link)
		if err != nil {
			t.Fatal(err)
		}
		got := g.Check(l, nil) == TrapCalendar
		if got != c.trap {
			t.Errorf("%s: calendar trap %v, want %v", c.link, got, c.trap)
		}
	}
}

func BenchmarkTrapGuard(b *testing.B) {
	g := NewTrapGuard(DefaultTrapOptions(), nil)
	l, _ := url.Parse("http://news-01.sandbox.test/section/3/articles/2026/11/page-1234.html?ref=home")
	p, _ := url.Parse("http://news-01.sandbox.test/section/3/")
	for b.Loop() {
		g.Check(l, p)
	}
}
