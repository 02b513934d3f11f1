package page

import (
	"strings"
	"testing"
)

// BenchmarkStoryFingerprint is the story fingerprint of an article of 40 paragraphs of
// 60 words, the CPU it adds to each stored article.
func BenchmarkStoryFingerprint(b *testing.B) {
	words := strings.Fields("the council voted on Tuesday to approve a new budget for the harbor district after months of debate among residents and officials who said")
	var body strings.Builder
	for p := range 40 {
		for w := range 60 {
			body.WriteString(words[(p*7+w)%len(words)])
			body.WriteByte(' ')
		}
		body.WriteByte('\n')
	}
	text := Text{Body: body.String()}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := StoryFingerprint(text); !ok {
			b.Fatal("no fingerprint")
		}
	}
}
