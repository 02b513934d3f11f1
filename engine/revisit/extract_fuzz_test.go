package revisit

import (
	"strings"
	"testing"
)

// FuzzFingerprint: the main-text extractor and fingerprint take any body in bounded
// work and never panic, and the same body always gives the same fingerprint.
func FuzzFingerprint(f *testing.F) {
	for _, s := range []string{"<html><body><article><p>台风来袭，沿海地区发布预警。</p></article></body></html>",
		"<body class=sidebar><div class=f_ads_x><p>text</p></div>", "<script>" + strings.Repeat("x", 1000) + "</script>",
		"\xff\xfe\x00", strings.Repeat("<table><tr><td>", 2000), "no html at all"} {
		f.Add([]byte(s), "text/html; charset=utf-8")
	}
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		h1, ok1 := Fingerprint(body, ctype)
		h2, ok2 := Fingerprint(body, ctype)
		if h1 != h2 || ok1 != ok2 {
			t.Fatalf("two fingerprints of one body: %x/%v vs %x/%v", h1, ok1, h2, ok2)
		}
	})
}
