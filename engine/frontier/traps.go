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
	// CalendarYears: a link whose path or query carries a calendar year (1900..2199
	// where a date stands: a path segment /2031/ or /2031-05-01/, a query value
	// 2031-05-01 or year=2031; not any four digits, see offCalendarIn) farther than
	// this many years from now, either way, is a calendar series running off
	// (default 10; 0 = off). A news archive inside the window is crawled.
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
		if g.offCalendarIn(link.Path, q) {
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

// Calendar years. A calendar that runs off generates dates, and dates stand in a URL
// in few shapes; an id, a price, a DOI or a model number that happens to hold four
// digits is not one of them. So a year counts only where a date stands:
//
//   - a whole path segment that is a year or a date, with or without a file
//     extension: /2150/, /2150, /2150.html, /2150-01/, /2150-01-31/, /2150_01_31.html.
//     Not /product-1999.html, /p/a20411, /10.1002/abc.2012.34 (a DOI), /v2150/.
//     Compact dates in a path (/21500131/) are not read: eight-digit article ids are
//     common, one in thirty of them would parse as a date, and calendars write their
//     dates with separators or in their own segments.
//   - a query value shaped as a date: 2150-01, 2150-01-31, 2150/01/31 (also
//     %2F-escaped), 2150_01_31, or a time after the date (2150-01-31T10:00); under a
//     key naming a date (date, day, *date*, *year*, y, yr, ymd) also a bare year or a
//     compact date: year=2150, date=21500131. Not m=1952, id=2012, page=2100.
//
// A month must be 1..12 and a day 1..31, so 2012.34 or 1999-77 are no dates.

// offCalendarIn says whether a calendar year in path or query (see above) lies
// outside the window.
func (g *TrapGuard) offCalendarIn(path, query string) bool {
	// A plain loop: most segments are words, rejected at their first byte, and
	// a call per segment (IndexByte, SplitSeq) would cost more than the check.
	for start, i := 0, 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		if seg := path[start:i]; len(seg) >= 4 && isDigit(seg[0]) {
			if y, ok := segmentYear(seg); ok && g.offCalendar(y) {
				return true
			}
		}
		start = i + 1
	}
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		key, val, _ := strings.Cut(pair, "=")
		if y, ok := queryYear(key, val); ok && g.offCalendar(y) {
			return true
		}
	}
	return false
}

// segmentYear reads a path segment that is a year or a date, with or without a file
// extension (letters and digits after the last dot).
func segmentYear(seg string) (int, bool) {
	if len(seg) < 4 || !isDigit(seg[0]) {
		return 0, false
	}
	if i := strings.LastIndexByte(seg, '.'); i >= 4 && isExtension(seg[i+1:]) {
		seg = seg[:i]
	}
	y, ok := year4(seg)
	if !ok {
		return 0, false
	}
	if len(seg) == 4 {
		return y, true
	}
	if rest, ok := monthDay(seg[4:], "-_"); ok && rest == "" {
		return y, true
	}
	return 0, false
}

// queryYear reads a query value that is a date, or a bare year or compact date under
// a key that names a date.
func queryYear(key, val string) (int, bool) {
	y, ok := year4(val)
	if !ok {
		return 0, false
	}
	rest := val[4:]
	if rest == "" {
		return y, dateKey(key)
	}
	if len(rest) == 4 && isDigit(rest[0]) { // compact YYYYMMDD
		if dateKey(key) && validMonthDay(int(rest[0]-'0')*10+int(rest[1]-'0'), int(rest[2]-'0')*10+int(rest[3]-'0')) {
			return y, true
		}
		return 0, false
	}
	rest, ok = monthDay(rest, "-_/%")
	if !ok {
		return 0, false
	}
	return y, rest == "" || !isDigit(rest[0]) // a time may follow the date
}

// monthDay reads what follows a year: a separator (one of seps; '%' stands for %2F)
// and a month of one or two digits, and optionally the same separator and a day. It
// returns what is left after them.
func monthDay(s, seps string) (rest string, ok bool) {
	sep, s, ok := separator(s, seps)
	if !ok {
		return "", false
	}
	m, s, ok := number2(s)
	if !ok || m < 1 || m > 12 {
		return "", false
	}
	if s == "" {
		return "", true
	}
	if !strings.HasPrefix(s, sep) {
		return s, true
	}
	d, s, ok := number2(s[len(sep):])
	if !ok || !validMonthDay(m, d) {
		return "", false
	}
	return s, true
}

func validMonthDay(m, d int) bool { return m >= 1 && m <= 12 && d >= 1 && d <= 31 }

// separator takes one date separator off s: a byte of seps, or %2F when seps holds '%'.
func separator(s, seps string) (sep, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] == '%' {
		if strings.IndexByte(seps, '%') >= 0 && len(s) >= 3 && s[1] == '2' && (s[2] == 'F' || s[2] == 'f') {
			return s[:3], s[3:], true
		}
		return "", "", false
	}
	if strings.IndexByte(seps, s[0]) < 0 {
		return "", "", false
	}
	return s[:1], s[1:], true
}

// number2 reads one or two digits.
func number2(s string) (n int, rest string, ok bool) {
	if s == "" || !isDigit(s[0]) {
		return 0, s, false
	}
	n, s = int(s[0]-'0'), s[1:]
	if s != "" && isDigit(s[0]) {
		n, s = n*10+int(s[0]-'0'), s[1:]
	}
	if s != "" && isDigit(s[0]) {
		return 0, s, false // three digits: no month or day
	}
	return n, s, true
}

// year4 reads a year 1900..2199 from the first four bytes of s, which must not be
// followed by a fifth digit unless s is a compact date (handled by the caller).
func year4(s string) (int, bool) {
	if len(s) < 4 || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return 0, false
	}
	y := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	return y, y >= 1900 && y < 2200
}

// dateKey says whether a query key names a date or a year (case-insensitively).
func dateKey(key string) bool {
	switch {
	case equalFold(key, "y"), equalFold(key, "yr"), equalFold(key, "day"), equalFold(key, "ymd"):
		return true
	}
	return containsFold(key, "year") || containsFold(key, "date")
}

// isExtension says whether s looks like a file extension: 1..5 letters or digits,
// at least one a letter (html, php, xml, mp4).
func isExtension(s string) bool {
	if len(s) == 0 || len(s) > 5 {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch {
		case 'a' <= c && c <= 'z':
			letter = true
		case isDigit(s[i]):
		default:
			return false
		}
	}
	return letter
}

func equalFold(s, lower string) bool { return len(s) == len(lower) && containsFold(s, lower) }

// containsFold is strings.Contains ignoring ASCII case, for a lower-case sub, without
// allocating.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
