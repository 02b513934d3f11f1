package ui

import (
	"testing"
	"time"
)

func TestFigures(t *testing.T) {
	tests := []struct{ got, want string }{
		{thousands(0), "0"}, {thousands(999), "999"}, {thousands(1000), "1,000"},
		{thousands(1234567), "1,234,567"}, {thousands(-4567), "-4,567"},
		{bytesHuman(999), "999 B"}, {bytesHuman(1500), "1.5 kB"}, {bytesHuman(4_321_000_000), "4.3 GB"},
		{shortDuration(3 * time.Second), "3s"}, {shortDuration(2*time.Minute + 3*time.Second), "2m03s"},
		{shortDuration(time.Hour + 2*time.Minute + 3*time.Second), "1h02m03s"},
		{countdown(time.Time{}, fixedClock()), "-"},
		{countdown(fixedClock().Add(-time.Second), fixedClock()), "now"},
		{countdown(fixedClock().Add(1234*time.Millisecond), fixedClock()), "1.2s"},
		{countdown(fixedClock().Add(75*time.Second), fixedClock()), "1m15s"},
		{fit("abcdef", 4), "abc…"}, {fit("ab", 4), "ab  "}, {fitRight("ab", 4), "  ab"},
		{fit("新闻网站", 5), "新闻…"}, {fit("", 0), ""},
		{sparkline([]float64{0, 1, 2, 4}, 6), "   ▂▄█"},
		{sparkline([]float64{5, 5, 5}, 2), "██"},
		{sparkline(nil, 3), "   "},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("case %d: got %q, want %q", i, tc.got, tc.want)
		}
	}
}

func TestFilterMatch(t *testing.T) {
	tests := []struct {
		typed  string
		fields []string
		want   bool
	}{
		{"", []string{"x"}, true},
		{"news", []string{"egress-a", "http://NEWS-01.test/"}, true},
		{"News", []string{"news-01.test"}, true},
		{"blog", []string{"news-01.test"}, false},
		{"!blog", []string{"news-01.test"}, true},
		{"!news", []string{"news-01.test"}, false},
		{"!", []string{"anything"}, true},
	}
	for _, tc := range tests {
		if got := ParseFilter(tc.typed).Match(tc.fields...); got != tc.want {
			t.Errorf("filter %q on %q = %v, want %v", tc.typed, tc.fields, got, tc.want)
		}
	}
}
