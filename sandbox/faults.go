package sandbox

import (
	"bytes"
)

// Faults sit on articles and posts only, so the link tree above them stays crawlable.
// Each leaf page draws one uniform number from its own key; the configured shares cut
// [0,1) into kinds, so each kind's share of leaf pages matches its configuration (and is
// measurable from Pages).

type faultCut struct {
	upTo float64
	kind string
}

func makeFaultCuts(shares map[string]float64) []faultCut {
	var cuts []faultCut
	acc := 0.0
	for _, k := range FaultKinds() {
		if s := shares[k]; s > 0 {
			acc += s
			cuts = append(cuts, faultCut{upTo: acc, kind: k})
		}
	}
	return cuts
}

// faultOf returns the page's fault kind, "" for none.
func (w *Web) faultOf(p page) string {
	if !p.leaf() || len(w.faultCuts) == 0 {
		return ""
	}
	u := unit(p.key() ^ 0xfa17)
	for _, c := range w.faultCuts {
		if u < c.upTo {
			return c.kind
		}
	}
	return ""
}

// redirectLoopLen is the cycle length of a redirect loop: page → hop 1 → hop 2 → page.
const redirectLoopLen = 3

// status5xx picks the error a 5xx page answers with.
func status5xx(key uint64) int {
	return [...]int{500, 502, 503}[splitmix(key^0x5cc)%3]
}

// mangleHTML breaks a well-formed page the way sloppy sites do: unclosed and misnested
// tags, unquoted attributes, stray angle brackets, a truncated end. Links survive.
func mangleHTML(body []byte) []byte {
	out := bytes.ReplaceAll(body, []byte("</p>"), []byte("<p><b><i>"))
	out = bytes.Replace(out, []byte("<main>"), []byte("<main><div class=x <table><tr><td>< 3 && > 2 <<<"), 1)
	out = bytes.ReplaceAll(out, []byte(`" `), []byte(` `))
	out = bytes.Replace(out, []byte("</article>"), []byte("</div></span></article"), 1)
	if i := bytes.LastIndex(out, []byte("</body>")); i > 0 {
		out = append(out[:i], "<!-- unterminated comment <script>document.write('<a href=\"x"...)
	}
	return out
}

// breakUTF8 sprinkles invalid UTF-8 (lone continuation bytes, truncated sequences, an
// overlong encoding) into the text of a page labelled UTF-8.
func breakUTF8(body []byte) []byte {
	bad := [][]byte{{0xff}, {0xc3, 0x28}, {0xe2, 0x82}, {0xc0, 0xaf}, {0x80, 0x80}}
	out := make([]byte, 0, len(body)+64)
	n := 0
	for i := 0; i < len(body); i++ {
		out = append(out, body[i])
		if body[i] == ' ' || body[i] == '>' {
			if n%7 == 3 {
				out = append(out, bad[(n/7)%len(bad)]...)
			}
			n++
		}
	}
	return out
}

// binaryBody returns deterministic random bytes that are clearly not text.
func binaryBody(key uint64) []byte {
	rng := newPRNG(key ^ 0xb1a)
	n := 4096 + rng.intn(12288)
	out := make([]byte, n)
	copy(out, []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0})
	for i := 10; i < n; i += 8 {
		v := rng.next()
		for j := 0; j < 8 && i+j < n; j++ {
			out[i+j] = byte(v >> (8 * j))
		}
	}
	return out
}
