package page

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mfonda/simhash"
)

// TestStoryWalkIsStoryFingerprint: the story fingerprint Sign's walk makes is the
// one storyFingerprint makes of the text read afresh, on random paragraphs mixing
// words, numbers in two scripts, unspaced characters, runes the story and the
// SimHash read differently (Ⅻ, ½, spacing and enclosing marks), invalid bytes,
// datelines and texts past MaxStoryFeatures.
func TestStoryWalkIsStoryFingerprint(t *testing.T) {
	tokens := []string{"the", "Council", "voted", "on", "Tuesday", "to", "approve", "budget", "harbor",
		"2024", "5", "1,204", "٣", "٢٠٢٤", "5m", "3rd", "本市", "地铁", "线路", "ＡＢＣ", "ﬁne", "Straße",
		"Ⅻ", "½", "क़ा", "नमस्ते", "e\u20dd", "a\u0301", "\xff", "\ufffd", "über", "—", ":", "-", "(AP)",
		"WASHINGTON", "Москва", "вторник", "ΑΘΗΝΑ", "ε", "ไทย", "한국어", "x.", "«quote»", "don't"}
	rng := rand.New(rand.NewPCG(7, 31))
	for round := range 400 {
		var paras []string
		nParas := 1 + rng.IntN(12)
		if round%50 == 0 {
			nParas = 300 // past MaxStoryFeatures
		}
		for range nParas {
			n := rng.IntN(40)
			var b strings.Builder
			if rng.IntN(5) == 0 {
				b.WriteString([]string{"WASHINGTON (AP) — ", "BEIJING: ", "SAN FRANCISCO - ", "МОСКВА — ", "北京 — "}[rng.IntN(5)])
			}
			for i := range n {
				if i > 0 {
					b.WriteString([]string{" ", " ", " ", ", ", "", "  "}[rng.IntN(6)])
				}
				b.WriteString(tokens[rng.IntN(len(tokens))])
			}
			paras = append(paras, b.String())
		}
		text := Text{Title: "A title 3", Body: strings.Join(paras, "\n")}
		recent = fingerprintCache{}
		s, ok := textSignature(text)
		want, wantOK := storyFingerprint(text.Body, "", MaxStoryFeatures)
		if !ok {
			continue
		}
		if !s.storyDone || s.story != want || s.storyOK != wantOK {
			t.Fatalf("round %d: walk %x %v (done %v), afresh %x %v\n%q", round, s.story, s.storyOK, s.storyDone, want, wantOK, text.Body)
		}
	}
}

// TestASCIIOnly: a byte past ASCII anywhere, in the eight-byte words or the tail,
// makes a line other than ASCII.
func TestASCIIOnly(t *testing.T) {
	for n := range 20 {
		s := []byte(strings.Repeat("a", n))
		if !asciiOnly(string(s)) {
			t.Fatalf("%d ASCII bytes read as other", n)
		}
		for i := range s {
			s[i] = 0x80
			if asciiOnly(string(s)) {
				t.Fatalf("%q read as ASCII", s)
			}
			s[i] = 'a'
		}
	}
}

// TestStoryWalkCountsProse: the weight the walk gives each line of prose, from
// the words and characters it counted on the folded text, is prose's of the line
// as extracted: the walk's vote is storyFingerprint's, vector for vector, on texts
// whose fold keeps every rune's class (the walk's count) and on texts with runes
// the fold gives another class (², ①) or marks inside words (the line read again).
func TestStoryWalkCountsProse(t *testing.T) {
	kept := []string{"the", "Council", "VOTED", "on", "Tuesday", "2024", "5", "1,204", "٣", "١٢", "本市", "地铁",
		"ＡＢＣ", "ｶﾀｶﾅ", "Москва", "ВТОРНИК", "ΑΘΗΝΑ", "ε", "ไทย", "한국어", "हिंदी", "किताब", "हँस",
		"x.", "«quote»", "don't", "—"}
	classed := append([]string{"²", "①"}, kept...)                       // the fold gives a digit
	long := append([]string{"Straße", "Ǆemal", "e\u0301", "Ⅻ"}, kept...) // the fold takes the long way
	rng := rand.New(rand.NewPCG(3, 9))
	fast, marks := 0, 0
	for round := range 600 {
		tokens := kept
		switch round % 4 {
		case 0:
			tokens = long
		case 1:
			tokens = classed
		}
		var paras []string
		for range 1 + rng.IntN(10) {
			var b strings.Builder
			for i := range rng.IntN(60) {
				if i > 0 {
					b.WriteString([]string{" ", " ", ", ", "", "  "}[rng.IntN(5)])
				}
				b.WriteString(tokens[rng.IntN(len(tokens))])
			}
			paras = append(paras, b.String())
		}
		body := strings.Join(paras, "\n")
		norm, same := appendNormalized(nil, body)
		if same {
			fast++
			if strings.Contains(body, "ँ") {
				marks++
			}
		}
		fs := getFeatureSet()
		if _, ok := fs.signWalk("title", string(norm), body, true, same); !ok {
			putFeatureSet(fs)
			continue
		}
		got := fs.st.v
		putFeatureSet(fs)
		var want simhash.Vector
		sf := new(storyFeatures)
		n := 0
		for _, para := range paras {
			if words := prose(para); words >= minParagraphWords {
				n = voteParagraph(&want, sf.paragraph(foldedProse(para, "")), words, n, MaxStoryFeatures)
			}
		}
		if got != want {
			t.Fatalf("round %d (fold keeps classes: %v): the walk's vote differs from storyFingerprint's\n%q", round, same, body)
		}
	}
	if fast < 300 || marks < 150 || fast == 600 {
		t.Fatalf("%d texts of 600 kept their classes (%d with marks): too few to tell", fast, marks)
	}
}
