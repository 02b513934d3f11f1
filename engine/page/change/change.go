// Package change says how a page's stored main text changed between two fetches,
// for `crawlconsole show URL`.
package change

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Summarize describes, in a few lines for `crawlconsole show URL`, how a page's
// main text changed between two fetches. Both texts are as stored (PageText's form:
// the headline on the first line, then one paragraph a line); before is empty when
// no change was seen yet (store.RevisitChange: PrevText, MainText). Paragraphs are matched
// with a longest common subsequence, so a paragraph edited in place reads as
// "replaced" and an update at the end as "added".
func Summarize(before, after string) string {
	if before == "" {
		return "no change seen yet"
	}
	if before == after {
		return "main text unchanged"
	}
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	var out []string
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		out = append(out, fmt.Sprintf("headline: %q -> %q", clip(a[0], 80), clip(b[0], 80)))
	}
	if len(a) > 0 {
		a = a[1:]
	}
	if len(b) > 0 {
		b = b[1:]
	}
	removed, added := paragraphDiff(a, b)
	replaced := min(len(removed), len(added))
	if replaced+len(removed)+len(added) > 0 {
		out = append(out, fmt.Sprintf("paragraphs: %d replaced, %d added, %d removed (of %d before, %d after)",
			replaced, len(added)-replaced, len(removed)-replaced, len(a), len(b)))
	}
	for i, p := range removed {
		if i == 3 {
			out = append(out, fmt.Sprintf("  … %d more removed", len(removed)-3))
			break
		}
		out = append(out, "  - "+clip(p, 100))
	}
	for i, p := range added {
		if i == 3 {
			out = append(out, fmt.Sprintf("  … %d more added", len(added)-3))
			break
		}
		out = append(out, "  + "+clip(p, 100))
	}
	if len(out) == 0 {
		return "main text unchanged but for spacing"
	}
	return strings.Join(out, "\n")
}

// maxDiffParagraphs bounds the quadratic paragraph match; longer texts are compared
// as sets.
const maxDiffParagraphs = 2000

// paragraphDiff returns the paragraphs of a not in b's common subsequence with it,
// and those of b not in a's.
func paragraphDiff(a, b []string) (removed, added []string) {
	if len(a) > maxDiffParagraphs || len(b) > maxDiffParagraphs {
		inA, inB := map[string]bool{}, map[string]bool{}
		for _, p := range a {
			inA[p] = true
		}
		for _, p := range b {
			inB[p] = true
		}
		for _, p := range a {
			if !inB[p] {
				removed = append(removed, p)
			}
		}
		for _, p := range b {
			if !inA[p] {
				added = append(added, p)
			}
		}
		return removed, added
	}
	// lcs[i][j]: common subsequence length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			removed = append(removed, a[i])
			i++
		default:
			added = append(added, b[j])
			j++
		}
	}
	removed = append(removed, a[i:]...)
	added = append(added, b[j:]...)
	return removed, added
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
