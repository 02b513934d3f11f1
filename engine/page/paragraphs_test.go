package page

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// refCommas counts the clause separators textCounts counts, a rune at a time.
func refCommas(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch r {
		case ',', ';', '，', '、', '،', '；':
			n++
		}
	}
	return n
}

func checkTextCounts(t *testing.T, b []byte) {
	t.Helper()
	letters, commas := textCounts(b)
	if want := letterCount(b); letters != want {
		t.Fatalf("textCounts(%.60q) letters = %d, letterCount %d", b, letters, want)
	}
	if want := refCommas(b); commas != want {
		t.Fatalf("textCounts(%.60q) commas = %d, want %d", b, commas, want)
	}
}

func TestTextCounts(t *testing.T) {
	if l, c := textCounts([]byte("Hello, world; 42 — 你好，世界、é\xff")); l != 17 || c != 4 {
		t.Errorf("textCounts = %d letters, %d commas; want 17, 4", l, c)
	}
	for _, p := range readSandboxSnapshot(t) {
		checkTextCounts(t, p.Body)
	}
}

// TestASCIIWordCounts: eight ASCII bytes counted at once count as each byte does
// (asciiCounts), every byte value in every place among random neighbours.
func TestASCIIWordCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var w [8]byte
	for c := range byte(utf8.RuneSelf) {
		for at := range w {
			for range 16 {
				for i := range w {
					w[i] = byte(rng.IntN(utf8.RuneSelf))
				}
				w[at] = c
				var sum uint64
				for _, b := range w {
					sum += asciiCounts[b]
				}
				letters, commas := asciiWordCounts(binary.LittleEndian.Uint64(w[:]))
				if letters != int(uint32(sum)) || commas != int(sum>>32) {
					t.Fatalf("asciiWordCounts(%q) = %d, %d; a byte at a time %d, %d", w, letters, commas, uint32(sum), sum>>32)
				}
			}
		}
	}
}

func FuzzTextCounts(f *testing.F) {
	for _, s := range []string{"", "a, b; c", "你好，世界、", "\xff,\xe4\xb8", "مرحبا، عالم"} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkTextCounts)
}
