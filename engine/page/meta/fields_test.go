package meta

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// What a byline writes around its names — titles, degrees, the outlet, an agency,
// the day — is not a name; names themselves, desks and user names stay.
func TestCleanAuthors(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		site string
		want string
	}{
		{[]string{"By TOM KRISHER, AP Auto Writer"}, "", "TOM KRISHER"},
		{[]string{"Rachael Link, MS, RD"}, "", "Rachael Link"},
		{[]string{"Victor Tangermann, Futurism"}, "", "Victor Tangermann"},
		{[]string{"Troy L. Smith, Cleveland.com"}, "", "Troy L. Smith"},
		{[]string{"Jill Disis, CNN Business"}, "CNN", "Jill Disis"},
		{[]string{"Tanza Loudenback, Business Insider"}, "Business Insider", "Tanza Loudenback"},
		{[]string{"Analysis by Chris Cillizza, CNN Editor-at-large"}, "CNN", "Chris Cillizza"},
		{[]string{"By LISA MASCARO, MARY CLARE JALONICK and ERIC TUCKER Associated Press"}, "", "LISA MASCARO;MARY CLARE JALONICK;ERIC TUCKER"},
		{[]string{"by Jeff Foust Monday, November 18, 2019"}, "", "Jeff Foust"},
		{[]string{"kevin-r"}, "", ""},
		{[]string{"Trevor Daugherty", "he’s specialized in product reviews", "exclusive discounts"}, "", "Trevor Daugherty"},
		// Kept as they are.
		{[]string{"Lisa Kaczke, Trevor J. Mitchell"}, "", "Lisa Kaczke;Trevor J. Mitchell"},
		{[]string{"Meg Kinnard and Errin Haines"}, "", "Meg Kinnard;Errin Haines"},
		{[]string{"Staff Reports"}, "", "Staff Reports"},
		{[]string{"Regan, Stephanie"}, "", "Regan;Stephanie"},
		{[]string{"admin"}, "", "admin"},
		{[]string{"Ludwig van Beethoven"}, "", "Ludwig van Beethoven"},
		{[]string{"van der Merwe"}, "", "van der Merwe"},
	} {
		if got := strings.Join(cleanAuthors(tc.in, tc.site), ";"); got != tc.want {
			t.Errorf("%q (site %q): %q, want %q", tc.in, tc.site, got, tc.want)
		}
	}
}

// TestTitleWordsCharacters: an unspaced script's characters are the words they
// were as strings of their own, invalid bytes among them.
func TestTitleWordsCharacters(t *testing.T) {
	old := func(s string) []string {
		var out []string
		for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(out) >= 64 {
				break
			}
			for _, r := range f {
				if textutil.UnspacedScript(r) {
					for _, c := range f {
						out = append(out, string(c))
					}
					f = ""
					break
				}
			}
			if f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	long := strings.Repeat("Word 本市 ", 40)
	for _, s := range []string{"", "本市地铁 线路 Opens", "台风\xff来袭\xfe", "\xff本", "ＡＢ本市", "ไทย 한국어 ok", "X\xc3本\xe4\xb8",
		long, long + "tail", "  lead, trail!  ", "a-b_c d’e ½ Ⅻ 3.5"} {
		if got, want := titleWords(s), old(s); !slices.Equal(got, want) {
			t.Fatalf("titleWords(%q) = %q, want %q", s, got, want)
		}
	}
}
