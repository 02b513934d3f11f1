package textutil

import (
	"math/rand/v2"
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

// runeAtATime is AppendCollapsed a rune at a time.
func runeAtATime(dst, s []byte) []byte {
	start := len(dst)
	space := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		i += n
		if r < utf8.RuneSelf && ASCIISpace(byte(r)) || r >= utf8.RuneSelf && SpaceRune(r) {
			space = len(dst) > start
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, r)
		} else {
			dst = append(dst, s[i-n:i]...)
		}
	}
	return dst
}

// TestAppendCollapsedRandom: runs copied at once give what a rune at a time gave,
// on random mixes of spaces, words, unspaced and invalid bytes.
func TestAppendCollapsedRandom(t *testing.T) {
	pieces := []string{" ", "\n", "\t ", "\u00a0", "\u3000", "\u2009", "word", "本市", "é", "\xff", "\xe4\xb8", "\ufffd", "x", "\u0085", "a b", " c", "d ", "\x01", ". ", "\xed\xa0\x80", "\xe0\x80\x80", "\xe0\xa0\x80", "\xed\x9f\xbf", "\u1680", "「本」—ー", "\u2014\u205f\u2028", "平光港的居民說，",
		// runs of eight bytes and more, copied eight at a time (plainASCII8)
		"The council met on Tuesday", "council", " met  on", "a b c d e f g h", "abcdefgh ", "x\x7fy\x1fz"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := AppendCollapsed([]byte("k"), b), runeAtATime([]byte("k"), b); string(got) != string(want) {
			t.Fatalf("AppendCollapsed(%q) = %q, want %q", b, got, want)
		}
		collapsedStrings(t, b)
	}
}

// collapsedStrings checks that CollapseBytes and CollapseSpace of b are the text
// collapsed a rune at a time, and that b is left as it was.
func collapsedStrings(t *testing.T, b []byte) {
	t.Helper()
	in := string(b)
	want := string(runeAtATime(nil, b))
	if got := CollapseBytes(b); got != want {
		t.Fatalf("CollapseBytes(%q) = %q, want %q", b, got, want)
	}
	if got := CollapseSpace(in); got != want {
		t.Fatalf("CollapseSpace(%q) = %q, want %q", in, got, want)
	}
	if string(b) != in {
		t.Fatalf("CollapseBytes changed its input: %q, was %q", b, in)
	}
}

func FuzzAppendCollapsed(f *testing.F) {
	for _, s := range []string{"", " a b  c ", "The  council\n\tmet", "a \xff b", "x \u00a0y", "本 市 a é b",
		"The council met on Tuesday to vote.", " The council\tmet on  Tuesday\x01 "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := AppendCollapsed([]byte("k"), b), runeAtATime([]byte("k"), b); string(got) != string(want) {
			t.Fatalf("AppendCollapsed(%q) = %q, want %q", b, got, want)
		}
		collapsedStrings(t, b)
	})
}

// BenchmarkAppendCollapsed is the main text of an English page collapsed into its
// buffer, as joinParagraphs does for each paragraph.
func BenchmarkAppendCollapsed(b *testing.B) {
	para := []byte("The minister said the government remained committed to tuition. Community leaders asked for more funding for youth programs, and the company said it would hire 94 workers at its new plant.")
	b.SetBytes(int64(len(para)))
	dst := make([]byte, 0, len(para))
	for b.Loop() {
		dst = AppendCollapsed(dst[:0], para)
	}
}
