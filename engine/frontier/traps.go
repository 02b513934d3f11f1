package frontier

import (
	"net/url"
	"strings"
	"time"
)

// Crawler traps are URL spaces a server generates without end: a relative link that
// repeats its own path (/a/b/a/b/a/b/...), a page that links to itself with one more
// query parameter each time (filters, session ids), a calendar whose "next month"
// link never runs out. Heritrix guards with PathologicalPathDecideRule and
// TooManyPathSegmentsDecideRule, Nutch with its regex URL filter; TrapGuard holds the
// same three, each configurable, on the link as it is found (before the dedupe), so
// it must stay cheap: no regexp, no allocation on the common path.

// Trap kinds: the reason a link was held back, counted as a skip under this name.
const (
	TrapPathRepeat  = "trap_path_repeat"  // one path segment repeated more than MaxSegmentRepeats times
	TrapQueryGrowth = "trap_query_growth" // the link extends its own page's query string, or its query is over MaxQueryBytes
	TrapCalendar    = "trap_calendar"     // a date in the URL farther than CalendarYears from now
)

// TrapOptions configures the trap guards (YAML "traps"); each is off at 0/false.
type TrapOptions struct {
	// MaxSegmentRepeats: a link whose path holds one segment more than this many
	// times is a trap (/a/b/a/b/a/b with 2). Default 2, as Heritrix's
	// PathologicalPathDecideRule; 0 turns the guard off.
	MaxSegmentRepeats int `yaml:"max_segment_repeats"`
	// QueryGrowth: a link to its own page's path whose query string starts with the
	// page's non-empty query and adds to it is a trap (each step appends one more
	// parameter). The first step from a page without a query is let through.
	// Default true.
	QueryGrowth bool `yaml:"query_growth"`
	// MaxQueryBytes caps a link's query string (default 1024; 0 = no cap).
	MaxQueryBytes int `yaml:"max_query_bytes"`
	// CalendarYears: a link whose path or query carries a year (1900..2199, as
	// /2031/05/ or 2031-05-01 or year=2031) farther than this many years from now,
	// either way, is a calendar series running off (default 10; 0 = off). A news
	// archive inside the window is crawled.
	CalendarYears int `yaml:"calendar_years"`
}

// DefaultTrapOptions are the guards' defaults.
func DefaultTrapOptions() TrapOptions {
	return TrapOptions{MaxSegmentRepeats: 2, QueryGrowth: true, MaxQueryBytes: 1024, CalendarYears: 10}
}

// TrapGuard checks links against the trap options.
type TrapGuard struct {
	o   TrapOptions
	now func() time.Time
}

// NewTrapGuard returns a guard for o, reading the current year from now.
func NewTrapGuard(o TrapOptions, now func() time.Time) *TrapGuard {
	if now == nil {
		now = time.Now
	}
	return &TrapGuard{o: o, now: now}
}

// Check returns the trap kind link falls in, or "" when it is none. parent is the
// URL of the page it was found on (nil for a seed).
func (g *TrapGuard) Check(link, parent *url.URL) string {
	if g == nil {
		return ""
	}
	if g.o.MaxSegmentRepeats > 0 && repeatsSegment(link.Path, g.o.MaxSegmentRepeats) {
		return TrapPathRepeat
	}
	q := link.RawQuery
	if g.o.MaxQueryBytes > 0 && len(q) > g.o.MaxQueryBytes {
		return TrapQueryGrowth
	}
	if g.o.QueryGrowth && parent != nil && q != "" && parent.RawQuery != "" && len(q) > len(parent.RawQuery) &&
		strings.HasPrefix(q, parent.RawQuery) && link.Path == parent.Path && link.Host == parent.Host {
		return TrapQueryGrowth
	}
	if g.o.CalendarYears > 0 {
		if y, ok := yearIn(link.Path); ok && g.offCalendar(y) {
			return TrapCalendar
		}
		if y, ok := yearIn(q); ok && g.offCalendar(y) {
			return TrapCalendar
		}
	}
	return ""
}

func (g *TrapGuard) offCalendar(year int) bool {
	now := g.now().Year()
	return year > now+g.o.CalendarYears || year < now-g.o.CalendarYears
}

// repeatsSegment reports whether one non-empty segment of path occurs more than max
// times. Paths are short: the quadratic scan beats building a map.
func repeatsSegment(path string, max int) bool {
	if strings.Count(path, "/") <= max {
		return false // too few segments to repeat one max+1 times
	}
	var segs [32]string
	n := 0
	for s := range strings.SplitSeq(strings.Trim(path, "/"), "/") {
		if n == len(segs) {
			break
		}
		segs[n] = s
		n++
	}
	for i := 0; i < n; i++ {
		if segs[i] == "" {
			continue
		}
		c := 1
		for j := i + 1; j < n; j++ {
			if segs[j] == segs[i] {
				c++
			}
		}
		if c > max {
			return true
		}
	}
	return false
}

// yearIn finds a calendar year in s: four digits 1900..2199 standing alone (not part
// of a longer number, such as an article id) and followed by a date separator or the
// end, as in /2031/05/, 2031-05-01, year=2031 or /2031.
func yearIn(s string) (int, bool) {
	for i := 0; i+4 <= len(s); i++ {
		if !isDigit(s[i]) || i > 0 && isDigit(s[i-1]) {
			continue
		}
		if !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
			continue
		}
		if j := i + 4; j < len(s) && (isDigit(s[j]) || !strings.ContainsRune("/-_.&", rune(s[j]))) {
			i += 3
			continue
		}
		y := int(s[i]-'0')*1000 + int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
		if y >= 1900 && y < 2200 {
			return y, true
		}
		i += 3
	}
	return 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
