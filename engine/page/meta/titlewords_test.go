package meta

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// refTitleWords is appendTitleWords(nil, s) as first written, with strings.ToLower
// and the Unicode tables.
func refTitleWords(s string) []string {
	s = strings.ToLower(s)
	var out []string
	field := -1
	add := func(f string) {
		for _, r := range f {
			if textutil.UnspacedScript(r) {
				for i, c := range f {
					out = append(out, f[i:i+utf8.RuneLen(c)])
				}
				return
			}
		}
		out = append(out, f)
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if field < 0 {
				field = i
			}
			continue
		}
		if field >= 0 {
			if len(out) >= 64 {
				return out
			}
			add(s[field:i])
			field = -1
		}
	}
	if field >= 0 && len(out) < 64 {
		add(s[field:])
	}
	return out
}

var titleSeeds = []string{
	"", "The Council Met On Tuesday | City Herald", "Zürich: ÉTÉ À PARIS — Le Monde",
	"Москва: ВЛАСТИ ОБЪЯВИЛИ", "東京都、新たな計画を発表 - 日本経済", "서울시 새 계획 발표", "ΑΘΗΝΑ ΣΗΜΕΡΑ",
	"\xff Bad \xe2\x82 bytes \ufffd", "İstanbul KELVIN \u212A ẞ", "١٢٣ عربي ٤٥", "𝐁𝐨𝐥𝐝 𝟏𝟐𝟑 😀", "x²y³ ½",
	strings.Repeat("Word ", 80),
}

func checkTitleWords(t *testing.T, s string) {
	t.Helper()
	if got, want := toLower(s, letterTable()), strings.ToLower(s); got != want {
		t.Fatalf("toLower(%q) = %q, want %q", s, got, want)
	}
	if got, want := appendTitleWords(nil, s), refTitleWords(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("appendTitleWords(%q) = %q, want %q", s, got, want)
	}
}

func TestTitleWordsSameAsReference(t *testing.T) {
	for _, s := range titleSeeds {
		checkTitleWords(t, s)
	}
	for _, s := range scriptTexts(t) {
		if len(s) > 2000 {
			s = s[:2000]
		}
		checkTitleWords(t, s)
	}
	if got := titleWords("Le Monde: ÉTÉ 2024"); !reflect.DeepEqual(got, []string{"le", "monde", "été", "2024"}) {
		t.Errorf("titleWords = %q", got)
	}
}

func FuzzTitleWords(f *testing.F) {
	for _, s := range titleSeeds {
		f.Add(s)
	}
	f.Fuzz(checkTitleWords)
}

// TestLetterTable: every rune of the Basic Multilingual Plane has the bits of what
// the Unicode tables say of it.
func TestLetterTable(t *testing.T) {
	table := letterTable()
	for r := range rune(len(table)) {
		k := table[r]
		if got, want := k&scriptBits, letterScript(r); got != want {
			t.Fatalf("%U: script %d, want %d", r, got, want)
		}
		if got, want := k&unspacedRune != 0, textutil.UnspacedScript(r); got != want {
			t.Fatalf("%U: unspaced %v, want %v", r, got, want)
		}
		if got, want := k&digitRune != 0, unicode.IsDigit(r); got != want {
			t.Fatalf("%U: digit %v, want %v", r, got, want)
		}
		if got, want := k&changesLower != 0, unicode.ToLower(r) != r; got != want {
			t.Fatalf("%U: changes in lower case %v, want %v", r, got, want)
		}
		if got, want := k&lowerInWords != 0, int(r) >= len(lowerRunes) && int(unicode.ToLower(r)) < len(lowerRunes); got != want {
			t.Fatalf("%U: lower case in lowerRunes %v, want %v", r, got, want)
		}
	}
}
