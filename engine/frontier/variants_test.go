package frontier

import "testing"

// TestVariantsCollapse: the URLs a crawl meets for one article, with campaign tags,
// click ids and session ids in the query or the path, collapse to the article's URL;
// parameters that choose the content stay, in their order.
func TestVariantsCollapse(t *testing.T) {
	v := NewVariants(VariantOptions{StripParams: []string{"ref", "mkt_*"}})
	cases := []struct{ in, want string }{
		{"https://news.example/a/1?utm_source=twitter&utm_medium=social", "https://news.example/a/1"},
		{"https://news.example/a/1?id=7&fbclid=IwAR0abc&page=2", "https://news.example/a/1?id=7&page=2"},
		{"https://news.example/a/1?gclid=Cj0KCQ&UTM_Campaign=x", "https://news.example/a/1"},
		{"https://news.example/a/1;jsessionid=0A1B2C3D4E5F60718293A4B5C6D7E8F9", "https://news.example/a/1"},
		{"https://news.example/a;jsessionid=ABC123/b?x=1", "https://news.example/a/b?x=1"},
		{"https://news.example/a/1?PHPSESSID=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "https://news.example/a/1"},
		{"https://news.example/a/1?sid=5f2b8c9d0e1a4b3c6d7e8f9a", "https://news.example/a/1"},
		{"https://news.example/list?sid=3", "https://news.example/list?sid=3"}, // a section id, not a session
		{"https://news.example/a/1?ref=home&mkt_tok=abc", "https://news.example/a/1"},
		{"https://news.example/a/1?q=utm_source", "https://news.example/a/1?q=utm_source"},
		{"https://news.example/a/1?a=1&&b=2", "https://news.example/a/1?a=1&b=2"},
		{"https://news.example/a/1", "https://news.example/a/1"},
		{"https://news.example/a;v=2/b", "https://news.example/a;v=2/b"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got := v.Collapse(c.in)
			if got != c.want {
				t.Fatalf("Collapse(%q) = %q, want %q", c.in, got, c.want)
			}
			if n, err := Normalize(got); err != nil || n != got {
				t.Fatalf("collapsed URL %q is not in Normalize's form: %q, %v", got, n, err)
			}
			if again := v.Collapse(got); again != got {
				t.Fatalf("Collapse is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// TestVariantsKeep: with collapsing off every variant stays a URL of its own, as the
// crawler had it; nil collapses nothing either.
func TestVariantsKeep(t *testing.T) {
	u := "https://news.example/a/1?utm_source=x;jsessionid=1"
	if got := NewVariants(VariantOptions{Keep: true}).Collapse(u); got != u {
		t.Fatalf("Keep: Collapse changed %q to %q", u, got)
	}
	var v *Variants
	if got := v.Collapse(u); got != u || v.Canonical() {
		t.Fatalf("nil Variants changed %q to %q or honours canonical", u, got)
	}
	if !NewVariants(VariantOptions{}).Canonical() || NewVariants(VariantOptions{NoCanonical: true}).Canonical() {
		t.Fatal("rel=canonical should stand for the page by default and not with no_canonical")
	}
}

// BenchmarkVariantsCollapse: the common link has no variant parameter and costs a scan.
func BenchmarkVariantsCollapse(b *testing.B) {
	v := NewVariants(VariantOptions{})
	for b.Loop() {
		v.Collapse("https://news.example/world/2026/11/29/story-of-the-day?page=2&sort=new")
	}
}
