package pane

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

func TestFigures(t *testing.T) {
	tests := []struct{ got, want string }{
		{Thousands(0), "0"}, {Thousands(999), "999"}, {Thousands(1000), "1,000"},
		{Thousands(1234567), "1,234,567"}, {Thousands(-4567), "-4,567"},
		{BytesHuman(999), "999 B"}, {BytesHuman(1500), "1.5 kB"}, {BytesHuman(4_321_000_000), "4.3 GB"},
		{ShortDuration(3 * time.Second), "3s"}, {ShortDuration(2*time.Minute + 3*time.Second), "2m03s"},
		{ShortDuration(time.Hour + 2*time.Minute + 3*time.Second), "1h02m03s"},
		{Countdown(time.Time{}, fake.Epoch), "-"},
		{Countdown(fake.Epoch.Add(-time.Second), fake.Epoch), "now"},
		{Countdown(fake.Epoch.Add(1234*time.Millisecond), fake.Epoch), "1.2s"},
		{Countdown(fake.Epoch.Add(75*time.Second), fake.Epoch), "1m15s"},
		{Fit("abcdef", 4), "abc…"}, {Fit("ab", 4), "ab  "}, {FitRight("ab", 4), "  ab"},
		{Fit("新闻网站", 5), "新闻…"}, {Fit("", 0), ""},
		{Sparkline([]float64{0, 1, 2, 4}, 6), "   ▂▄█"},
		{Sparkline([]float64{5, 5, 5}, 2), "██"},
		{Sparkline(nil, 3), "   "},
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
