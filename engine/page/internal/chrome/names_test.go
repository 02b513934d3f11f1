package chrome

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// nameByFields is Name with the list split by strings.FieldsFunc.
func nameByFields(names string) bool {
	for _, p := range contentParts {
		if strings.Contains(names, p) {
			return false
		}
	}
	for _, p := range chromeParts {
		if strings.Contains(names, p) {
			return true
		}
	}
	for _, tok := range strings.FieldsFunc(names, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if chromeTokens[tok] {
			return true
		}
	}
	return false
}

// TestNameReadsWords: Name reads a list's words in place as FieldsFunc splits them,
// on lists of chrome words, other words and separators (ASCII, other scripts,
// invalid bytes).
func TestNameReadsWords(t *testing.T) {
	pieces := []string{"ad", "ads", "nav", "gg", "x", "navx", "9", " ", "-", "_", "é", "广告", "\xff", "promo", "a", "d", "views", "login2",
		// parts, whole and in pieces that meet across a boundary
		"comment", "com", "ment", "content", "cont", "ent", "main", "ma", "in", "share", "sh", "are", "an", "-ad", "ad-",
		"cmp-", "most-read", "most", "-", "read", "header", "foot", "er", "body", "column", "rss", "c", "s", "m"}
	rng := rand.New(rand.NewPCG(1, 9))
	chrome := 0
	for range 200_000 {
		var sb strings.Builder
		for k := rng.IntN(8); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		got, want := Name(sb.String()), nameByFields(sb.String())
		if got != want {
			t.Fatalf("Name(%q) = %v, split by FieldsFunc %v", sb.String(), got, want)
		}
		if got {
			chrome++
		}
	}
	if chrome < 10_000 {
		t.Fatalf("only %d lists named chrome", chrome)
	}
	for _, names := range []string{"f_ads_x i-nav", "site-nav", "adv", "gg"} {
		if !Name(names) {
			t.Errorf("%q not chrome", names)
		}
	}
	for _, names := range []string{"header-content", "badge", "navy", ""} {
		if Name(names) {
			t.Errorf("%q named chrome", names)
		}
	}
}

// BenchmarkName is Name of the class lists of a page of the real web (utility
// classes, long BEM names), none of them chrome but the last.
func BenchmarkName(b *testing.B) {
	lists := []string{
		"flex items-center justify-between px-4 py-2 text-sm font-medium text-gray-700 hover:bg-gray-50",
		"c-article-listing__item c-article-listing__item--featured js-track-click",
		"wp-block-group is-layout-flow wp-block-group-is-layout-flow",
		"site-header__inner l-container l-container--wide",
	}
	for b.Loop() {
		for _, l := range lists {
			Name(l)
		}
	}
}
