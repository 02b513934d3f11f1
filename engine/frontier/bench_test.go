package frontier

import (
	"net/url"
	"testing"
)

// Benchmarks of the per-link costs (go test -bench . ./engine/frontier). The goals live
// in go run ./bench dedupe; these are for profiling.

// benchLinks mixes plain links (fast path) with ones that need the WHATWG parser.
var benchLinks = []string{
	"/news/2025/05/story-1234.html", "../archive/?page=2", "https://Other.Example.com:443/a/./b/../c#top",
	"//cdn.example.net/img/logo.png", "story.html?utm_source=x&id=%7e9", "#comments",
}

// plainLinks are typical hrefs that take the fast path.
var plainLinks = []string{
	"/news/2025/05/story-1234.html", "story-1235.html", "?page=2", "//cdn.example.net/img/logo.png",
	"https://www.example.com/about", "#comments",
}

func BenchmarkNormalize(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Normalize("HTTP://www.Example.com:80/news/./2025/../2025/05/story-1234.html?id=%7e9#c"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaseResolve(b *testing.B) {
	base, err := ParseBase("https://www.example.com/news/2025/05/index.html")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := base.Resolve(benchLinks[i%len(benchLinks)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaseResolvePlain(b *testing.B) {
	base, err := ParseBase("https://www.example.com/news/2025/05/index.html")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := base.Resolve(plainLinks[i%len(plainLinks)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNormalizeCanonical(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Normalize("https://www.example.com/news/2025/05/story-1234.html?id=9"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNetURLResolve is the baseline: net/url's ResolveReference with no normalisation.
func BenchmarkNetURLResolve(b *testing.B) {
	base, _ := url.Parse("https://www.example.com/news/2025/05/index.html")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ref, err := url.Parse(benchLinks[i%len(benchLinks)])
		if err != nil {
			b.Fatal(err)
		}
		_ = base.ResolveReference(ref).String()
	}
}

func BenchmarkDedupeCheck(b *testing.B) {
	d := NewDedupe(uint(b.N)+1, 0.01, DefaultLRUSize)
	urls := make([]string, 4096)
	for i := range urls {
		urls[i] = pageURL(i%13, i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Check(urls[i%len(urls)])
	}
}

func BenchmarkParseBaseCanonical(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseBase("https://www.example.com/news/2025/05/index.html"); err != nil {
			b.Fatal(err)
		}
	}
}
