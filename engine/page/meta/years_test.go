package meta

import (
	"reflect"
	"strings"
	"testing"
)

// refScanYears is scanYears as first written, a byte at a time.
func (sc *dateScanner) refScanYears(s string, limit int, fn func(dateHit) bool) {
	const before, after = 40, 64
	if len(s) > maxScanText {
		s = s[:maxScanText]
	}
	found, done := 0, 0 // done: the text before it was read
	for i := 0; i < len(s) && found < limit; i++ {
		c := s[i]
		if c != '1' && c != '2' || i+4 > len(s) || i < done {
			continue
		}
		if i > 0 && isDigitByte(s[i-1]) || !isDigitByte(s[i+1]) || !isDigitByte(s[i+2]) || !isDigitByte(s[i+3]) ||
			i+4 < len(s) && isDigitByte(s[i+4]) {
			continue
		}
		if y := s[i : i+2]; y != "19" && y != "20" {
			i += 3
			continue
		}
		lo := max(done, i-before)
		for lo > 0 && lo < len(s) && s[lo]&0xC0 == 0x80 {
			lo++
		}
		hi := min(len(s), i+4+after)
		for hi < len(s) && s[hi]&0xC0 == 0x80 {
			hi++
		}
		sc.s = s[lo:hi]
		sc.toks = tokenize(sc.s, sc.toks[:0])
		year := i - lo
		next := i + 4
		for k := 0; k < len(sc.toks) && sc.toks[k].start <= year; k++ {
			h, _, ok := sc.matchAt(k)
			if !ok || h.end <= year {
				continue
			}
			h.start += lo
			h.end += lo
			found++
			next = h.end
			if !fn(h) {
				return
			}
			break
		}
		done = next
		i = next - 1
	}
}

// scanYearsNoRuns is scanYears of a text read as one run.
func scanYearsNoRuns(sc *dateScanner, s string, limit int, fn func(dateHit) bool) {
	sc.scanYears(s, nil, limit, fn)
}

// yearsOf is what scan (scanYears or refScanYears) finds in s, at most limit dates,
// its callback stopping it at the stop-th.
func yearsOf(s string, limit, stop int, scan func(*dateScanner, string, int, func(dateHit) bool)) []dateHit {
	sc := newScanner()
	defer sc.release()
	var out []dateHit
	scan(sc, s, limit, func(h dateHit) bool {
		out = append(out, h)
		return len(out) < stop
	})
	return out
}

func checkScanYears(t *testing.T, s string) {
	t.Helper()
	for _, c := range []struct{ limit, stop int }{{1, 9}, {3, 9}, {256, 2}, {256, 1000}} {
		got := yearsOf(s, c.limit, c.stop, scanYearsNoRuns)
		want := yearsOf(s, c.limit, c.stop, (*dateScanner).refScanYears)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanYears(%.60q, %d) stopped at %d = %v, want %v", s, c.limit, c.stop, got, want)
		}
	}
}

var yearSeeds = []string{
	"", "1", "2024", "19", "On 5 March 2024 at 10:00 and 2024-03-06, 12024 and 2124 and 1899.",
	"Updated 03/05/2019 — 5. März 2020 — 2021年3月5日 — ２０２２年 — 1/2/2023 2",
	strings.Repeat("12 21 1 2 ", 50) + "March 5, 2024",
	"Published: Tuesday, 11 June 2024 14:05 CET 2019/12/31 20201231 2020-12-31",
}

func TestScanYearsSameAsByteScan(t *testing.T) {
	for _, s := range yearSeeds {
		checkScanYears(t, s)
	}
	texts := scriptTexts(t)
	for _, s := range texts {
		checkScanYears(t, s)
	}
	if got := yearsOf("from 5 March 2024 to 2024-03-06", 10, 10, scanYearsNoRuns); len(got) != 2 {
		t.Errorf("dates of two: %v", got)
	}
}

func FuzzScanYears(f *testing.F) {
	for _, s := range yearSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkScanYears(t, s) })
}
