package textutil

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestCollapseSpace: main text is trimmed and each run of white space (ASCII,
// Unicode spaces, NO-BREAK SPACE) reads as one space, so a page re-indented or
// re-wrapped by its CMS keeps its digest; invalid bytes read as U+FFFD.
func TestCollapseSpace(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"ascii", "  The  council\n\tmet  ", "The council met"},
		{"nbsp and unicode spaces", "\u00a0Zürich\u2003 \u00a0budget\u3000talks\u00a0", "Zürich budget talks"},
		{"cjk", " 访问 \n 频繁 ", "访问 频繁"},
		{"invalid byte", "a \xff b", "a \ufffd b"},
		{"only space", " \n\u00a0\t", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CollapseSpace(tc.in); got != tc.want {
				t.Fatalf("CollapseSpace(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestSpaceRune: the white space AppendCollapsed folds is Unicode's, for every rune.
func TestSpaceRune(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if SpaceRune(r) != unicode.IsSpace(r) {
			t.Fatalf("%U: SpaceRune %v, unicode.IsSpace %v", r, SpaceRune(r), unicode.IsSpace(r))
		}
	}
}
