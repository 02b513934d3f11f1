package meta

import (
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// urlDate is the date a URL's path gives, if any.
func urlDate(raw string) (time.Time, bool) {
	if raw == "" {
		return time.Time{}, false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return time.Time{}, false
	}
	y, mo, d, ok := pathDate(textutil.ClipBytes(u.EscapedPath(), 1024))
	if !ok || d > daysIn(y, mo) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC), true
}

// pathDate finds a date in a URL's path: /2024/03/05/, /2024-03-05-, /20240305,
// /2024/3/5/. It is the first match of the regular expression
//
//	(?:^|[^0-9])((?:19|20)[0-9]{2})(?:[/_.-]?(0[1-9]|1[0-2])[/_.-]?(0[1-9]|[12][0-9]|3[01])|/([1-9]|1[0-2])/([1-9]|[12][0-9]|3[01]))(?:$|[^0-9])
//
// read by hand, as each page's addresses are: a year from 1900 to 2099 after no
// digit, then a two-digit month and day, each perhaps after one of "/_.-", or a
// month and day without leading zeros between slashes, and no digit after. A month
// of 1 to 12 and a day of 1 to 31; the day is not checked against its month.
func pathDate(p string) (y, mo, d int, ok bool) {
	for i := 0; i+4 <= len(p); i++ {
		if c := p[i]; c != '1' && c != '2' || i > 0 && isDigitByte(p[i-1]) {
			continue
		}
		if c0, c1 := p[i], p[i+1]; !(c0 == '1' && c1 == '9' || c0 == '2' && c1 == '0') || !isDigitByte(p[i+2]) || !isDigitByte(p[i+3]) {
			continue
		}
		y = int(p[i]-'0')*1000 + int(p[i+1]-'0')*100 + int(p[i+2]-'0')*10 + int(p[i+3]-'0')
		// 2024-03-05, 2024/0305, 20240305: two digits each, a separator or none.
		j := i + 4
		if j < len(p) && urlDateSep(p[j]) {
			j++
		}
		if mo, ok = twoDigits(p, j); ok && mo >= 1 && mo <= 12 {
			j += 2
			if j < len(p) && urlDateSep(p[j]) {
				j++
			}
			if d, ok = twoDigits(p, j); ok && d >= 1 && d <= 31 && !digitAt(p, j+2) {
				return y, mo, d, true
			}
		}
		// 2024/3/5, 2017/10/12: no leading zero, between slashes.
		j = i + 4
		if j < len(p) && p[j] == '/' {
			if mo, j, ok = shortNumber(p, j+1); ok && mo <= 12 && j < len(p) && p[j] == '/' {
				if d, j, ok = shortNumber(p, j+1); ok && d <= 31 && !digitAt(p, j) {
					return y, mo, d, true
				}
			}
		}
	}
	return 0, 0, 0, false
}

// urlDateSep reports a character that may stand between a URL date's numbers.
func urlDateSep(c byte) bool { return c == '/' || c == '_' || c == '.' || c == '-' }

// digitAt reports whether p has an ASCII digit at i.
func digitAt(p string, i int) bool { return i < len(p) && isDigitByte(p[i]) }

// twoDigits is the number of the two digits at p[i:i+2], if both are digits.
func twoDigits(p string, i int) (int, bool) {
	if i+2 > len(p) || !isDigitByte(p[i]) || !isDigitByte(p[i+1]) {
		return 0, false
	}
	return int(p[i]-'0')*10 + int(p[i+1]-'0'), true
}

// shortNumber is the number of one or two digits at i with no leading zero, and
// where it ends: the number of all the digits there, so that a longer run is none.
func shortNumber(p string, i int) (n, end int, ok bool) {
	end = i
	for end < len(p) && isDigitByte(p[end]) {
		if end-i == 2 {
			return 0, 0, false
		}
		n = n*10 + int(p[end]-'0')
		end++
	}
	return n, end, end > i && p[i] != '0'
}
