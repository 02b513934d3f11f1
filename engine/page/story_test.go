package page

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// TestStoryFingerprintFromSignIsTheFreshOne: Sign computes the story fingerprint
// from the body it has normalised (datelines cut from the folded paragraph), and
// StoryFingerprint hands that one back; it must be the fingerprint of the text read
// afresh, in any script, or a page the crawler grouped would not group with the
// same text read back from the store.
func TestStoryFingerprintFromSignIsTheFreshOne(t *testing.T) {
	prose := []string{
		"WASHINGTON (AP) — The Senate voted on Tuesday to approve a new budget for the harbor district after months of debate among residents.",
		"BEIJING: Officials said the new rules would take effect next month and apply to every company that sells goods online in the country.",
		"MÜNCHEN — Die Stadtverwaltung hat am Dienstag beschlossen, den Hafen für weitere drei Jahre zu erneuern, nachdem die Bürger lange stritten.",
		"ПАРИЖ – Власти города заявили во вторник, что новые правила вступят в силу в следующем месяце и коснутся всех жителей района.",
		"ÉTÉ — Les habitants du quartier ont manifesté samedi contre la fermeture de l'école primaire, la dernière de la commune depuis vingt ans.",
		"By Staff",
	}
	for i := range prose {
		body := strings.Join(append(prose[i:], prose[:i]...), "\n")
		html := "<html><body><article><h1>Budget</h1><p>" + strings.ReplaceAll(body, "\n", "</p><p>") + "</p></article></body></html>"
		_, text, ok := Sign([]byte(html), "text/html")
		if !ok {
			t.Fatal("no signature")
		}
		got, gotOK := StoryFingerprint(text)
		want, wantOK := storyFingerprint(text.Body, "", MaxStoryFeatures)
		if got != want || gotOK != wantOK || !gotOK {
			t.Fatalf("rotation %d: after Sign %x (%v), afresh %x (%v)", i, got, gotOK, want, wantOK)
		}
	}
}

// TestStoryFingerprintReusesItsScratch: fingerprinting an article whose normalised
// text Sign already has allocates nothing once warm (a crawl fingerprints every
// article it stores), and gives the same fingerprint each time.
func TestStoryFingerprintReusesItsScratch(t *testing.T) {
	para := "The council voted on Tuesday to approve a new budget for the harbour district after months of debate among residents."
	body := strings.Repeat(para+"\n", 12) + para
	norm := normalize(body)
	want, ok := storyFingerprint(body, norm, MaxStoryFeatures)
	if !ok {
		t.Fatal("no fingerprint for an article of prose")
	}
	allocs := testing.AllocsPerRun(50, func() {
		if got, _ := storyFingerprint(body, norm, MaxStoryFeatures); got != want {
			t.Fatalf("fingerprint %x, then %x", want, got)
		}
	})
	if allocs >= 1 {
		t.Fatalf("fingerprinting allocates %.1f times a page, want none once warm", allocs)
	}
}

// proseByRunes is prose a rune at a time, by the Unicode tables.
func proseByRunes(p string) int {
	words, unspaced, inWord := 0, 0, false
	for _, r := range p {
		switch {
		case isUnspacedScript(r):
			unspaced++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
		if words+unspaced/2 >= maxParagraphWeight {
			break
		}
	}
	return words + unspaced/2
}

// TestProseByRunes: prose counts what a rune at a time counts, on random mixes of
// words, unspaced characters, marks, invalid bytes and runes past the Basic
// Multilingual Plane, short and past maxParagraphWeight.
func TestProseByRunes(t *testing.T) {
	pieces := []string{" ", "word", "W0rd9", "é", "日本", "中", "\xff", "\xe4\xb8", "ä", "\u0301", "𝐀", "𠀀", ",", "-", "5", "ﬁ", "\ufffd", "Ж", "ก"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 20_000 {
		var sb strings.Builder
		for k := rng.IntN(200); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if got, want := prose(sb.String()), proseByRunes(sb.String()); got != want {
			t.Fatalf("prose(%q) = %d, a rune at a time %d", sb.String(), got, want)
		}
	}
}
