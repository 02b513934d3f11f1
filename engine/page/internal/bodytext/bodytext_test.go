package bodytext

import (
	"bytes"
	"strings"
	"testing"
)

// TestDecodeCommonHeaderShortcut: the commonest Content-Type decodes as the same
// header spelled otherwise (which goes through charset.DetermineEncoding), byte
// order marks and invalid bytes included.
func TestDecodeCommonHeaderShortcut(t *testing.T) {
	bodies := [][]byte{[]byte("<p>plain</p>"), []byte("\xef\xbb\xbf<p>bom</p>"), []byte("\xff\xfe<\x00p\x00>\x00"),
		[]byte("\xfe\xff\x00<\x00p\x00>"), []byte("<p>caf\xe9</p>"), []byte("<p>本市</p>"), {0xFE}}
	for _, b := range bodies {
		for _, ct := range []string{"text/html; charset=utf-8", "text/html; charset=UTF-8"} {
			got, gotGuess := ToUTF8(b, ct)
			want, wantGuess := ToUTF8(b, strings.ReplaceAll(ct, "; ", ";"))
			if !bytes.Equal(got, want) || gotGuess != wantGuess {
				t.Fatalf("%q as %q: %q %v, want %q %v", b, ct, got, gotGuess, want, wantGuess)
			}
		}
	}
}
