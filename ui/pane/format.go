package pane

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Countdown formats the time left until t ("-" when t is zero or past).
func Countdown(t, now time.Time) string {
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
	return ShortDuration(d)
}

// ShortDelay formats a delay under ten seconds as it is, not rounded to a whole
// second: 40ms, 400ms, 2.5s; ok is false from ten seconds on, where whole seconds
// say it (each caller has its own format there). A feed read every minute stores
// its articles well under a second after they appear: rounded, that read 0s or "-".
func ShortDelay(d time.Duration) (s string, ok bool) {
	switch {
	case d <= 0 || d >= 10*time.Second:
		return "", false
	case d < time.Millisecond:
		return "<1ms", true
	case d < time.Second:
		return strconv.Itoa(int(d.Round(time.Millisecond)/time.Millisecond)) + "ms", true
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s", true
}

// ShortDuration formats d as 1h02m03s / 2m03s / 3s.
func ShortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return strconv.Itoa(h) + "h" + Pad2(m) + "m" + Pad2(s) + "s"
	case m > 0:
		return strconv.Itoa(m) + "m" + Pad2(s) + "s"
	default:
		return strconv.Itoa(s) + "s"
	}
}

// Pad2 formats n in at least two digits: 07.
func Pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// Thousands formats n with thin separators: 123,456.
func Thousands(n int64) string {
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

// BytesHuman formats a byte count: 4.3 GB.
func BytesHuman(n int64) string {
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

// SparkRunes are the eight heights of a sparkline bar, and blank.
var SparkRunes = []rune(" ▁▂▃▄▅▆▇█")

// Sparkline draws the newest w samples of h, scaled to their maximum.
func Sparkline(h []float64, w int) string {
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
			i = min(max(int(math.Ceil(v/peak*8)), 1), len(SparkRunes)-1)
		}
		out = append(out, SparkRunes[i])
	}
	return string(out)
}

// Percent formats a share as 93.5%.
func Percent(share float64) string {
	if math.IsNaN(share) {
		return "-"
	}
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

// Rate formats a fetch rate with the precision polite rates need: two decimals
// under 10 pages/s (0.25 is not rounded to 0.2 or 0.3, nor 0.04 to 0.0), one above,
// and under one page a second also per minute, the figure that reads at a polite
// crawl's pace. The header, the progress lines and ctl all print it, so one rate
// reads the same everywhere (0 pages/s, not 0.00 in one place and 0 in another).
func Rate(perS float64) string {
	switch {
	case perS == 0:
		return "0 pages/s"
	case perS < 1:
		return fmt.Sprintf("%.2f pages/s (%.0f/min)", perS, perS*60)
	case perS < 10:
		return fmt.Sprintf("%.2f pages/s", perS)
	}
	return fmt.Sprintf("%.1f pages/s", perS)
}
