package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// countdown formats the time left until t ("-" when t is zero or past).
func countdown(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := t.Sub(now)
	if d <= 0 {
		return "now"
	}
	if d < 10*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return shortDuration(d)
}

// shortDuration formats d as 1h02m03s / 2m03s / 3s.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return strconv.Itoa(h) + "h" + pad2(m) + "m" + pad2(s) + "s"
	case m > 0:
		return strconv.Itoa(m) + "m" + pad2(s) + "s"
	default:
		return strconv.Itoa(s) + "s"
	}
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// thousands formats n with thin separators: 123,456.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// bytesHuman formats a byte count: 4.3 GB.
func bytesHuman(n int64) string {
	const unit = 1000
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("kMGTPE"[exp]) + "B"
}

// plural is "1 word" or "n words".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// sparkRunes are the eight heights of a sparkline bar, and blank.
var sparkRunes = []rune(" ▁▂▃▄▅▆▇█")

// sparkline draws the newest w samples of h, scaled to their maximum.
func sparkline(h []float64, w int) string {
	if len(h) > w {
		h = h[len(h)-w:]
	}
	peak := 0.0
	for _, v := range h {
		peak = max(peak, v)
	}
	out := make([]rune, 0, w)
	for range w - len(h) {
		out = append(out, ' ')
	}
	for _, v := range h {
		i := 0
		if peak > 0 && v > 0 {
			// Eighths of the peak, rounded up: any activity shows.
			i = min(max(int(math.Ceil(v/peak*8)), 1), len(sparkRunes)-1)
		}
		out = append(out, sparkRunes[i])
	}
	return string(out)
}

// percent formats a share as 93.5%.
func percent(share float64) string {
	if math.IsNaN(share) {
		return "-"
	}
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}
