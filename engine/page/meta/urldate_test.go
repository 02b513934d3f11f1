package meta

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

// urlDatePattern is the regular expression pathDate reads by hand.
var urlDatePattern = regexp.MustCompile(`(?:^|[^0-9])((?:19|20)[0-9]{2})(?:[/_.-]?(0[1-9]|1[0-2])[/_.-]?(0[1-9]|[12][0-9]|3[01])|/([1-9]|1[0-2])/([1-9]|[12][0-9]|3[01]))(?:$|[^0-9])`)

// refPathDate is pathDate by the regular expression.
func refPathDate(p string) (y, mo, d int, ok bool) {
	mm := urlDatePattern.FindStringSubmatch(p)
	if mm == nil {
		return 0, 0, 0, false
	}
	if mm[2] == "" {
		mm[2], mm[3] = mm[4], mm[5]
	}
	y, _ = strconv.Atoi(mm[1])
	mo, _ = strconv.Atoi(mm[2])
	d, _ = strconv.Atoi(mm[3])
	return y, mo, d, true
}

var pathDateSeeds = []string{
	"", "/", "/2024/03/05/story", "/2024-03-05-title", "/20240305", "/2024/3/5/", "/2017/10/12/x",
	"/2017/10/5/", "/2017/7/31", "/2017/7/32", "/2017/13/1/", "/2017/0/1/", "/2017/07/1/",
	"/news/a-2024_03_05.html", "2024.03.05", "/12024/03/05", "/2024/03/051", "/2024/03/05",
	"/1999/12/31/", "/1899/12/31/", "/2100/01/01/", "/2024/0305", "/2024-0305", "/202403-05",
	"/2024//03/05", "/2024/03//05", "/a1/2024/3/5", "/x2020/1/1y", "/2020/1/10/", "/2020/10/1",
	"/2020/1/100/", "/2020/001/1/", "/é2024/02/30/", "/\xff2024/02/29", "/2023/02/29/",
	"/2019/2020/03/04/", "/1/2/2019-11-20/", "/2024/1/2024/05/06", "/%32024/01/02",
}

func TestPathDateSameAsPattern(t *testing.T) {
	for _, p := range pathDateSeeds {
		y, mo, d, ok := pathDate(p)
		wy, wmo, wd, wok := refPathDate(p)
		if y != wy || mo != wmo || d != wd || ok != wok {
			t.Errorf("pathDate(%q) = %d %d %d %v, want %d %d %d %v", p, y, mo, d, ok, wy, wmo, wd, wok)
		}
	}
}

func TestURLDate(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://example.org/2024/03/05/a-story", "2024-03-05"},
		{"https://example.org/news/2017/7/12/x", "2017-07-12"},
		{"https://example.org/a/20240305-title.html", "2024-03-05"},
		{"https://example.org/2023/02/29/", ""}, // no such day
		{"https://example.org/2024/02/29/", "2024-02-29"},
		{"https://example.org/item/120240305", ""},
		{"https://example.org/?d=2024/03/05", ""}, // the query is not the path
		{"https://example.org/a/b", ""},
		{"", ""},
	} {
		got := ""
		if d, ok := urlDate(tc.url); ok {
			got = d.Format(time.DateOnly)
		}
		if got != tc.want {
			t.Errorf("urlDate(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

func FuzzPathDate(f *testing.F) {
	for _, p := range pathDateSeeds {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		y, mo, d, ok := pathDate(p)
		wy, wmo, wd, wok := refPathDate(p)
		if y != wy || mo != wmo || d != wd || ok != wok {
			t.Errorf("pathDate(%q) = %d %d %d %v, want %d %d %d %v", p, y, mo, d, ok, wy, wmo, wd, wok)
		}
	})
}
