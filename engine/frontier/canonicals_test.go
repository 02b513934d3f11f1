package frontier

import "testing"

// A page fetched as a tracking variant that declares its clean URL as canonical
// stands for it: a later link to the clean URL is known as fetched. A canonical on
// another host is no such claim, and one equal to the page is nothing new to keep.
func TestCanonicalsRememberWhatAFetchedPageStandsFor(t *testing.T) {
	c := NewCanonicals(VariantOptions{})
	if !c.v.Canonical() {
		t.Skip("canonical handling is off in the default variant options")
	}
	const page = "https://news.example/story?id=1&utm_source=x"
	base, err := ParseBase(page)
	if err != nil {
		t.Fatal(err)
	}
	if stands, kept := c.Declared(base, page, "/story?id=1"); !stands || kept {
		t.Errorf("a canonical equal to the page once collapsed: stands %v, remembered %v; want true, false", stands, kept)
	}
	if stands, kept := c.Declared(base, page, "/2026/story-one"); !stands || !kept {
		t.Errorf("a canonical on the same host: stands %v, remembered %v; want true, true", stands, kept)
	}
	if !c.StandsFor("https://news.example/2026/story-one") {
		t.Error("the declared canonical is not known as fetched")
	}
	if stands, _ := c.Declared(base, page, "https://other.example/story"); stands {
		t.Error("another host's canonical stands for the page: it must only be queued as a link")
	}
	if c.StandsFor("https://other.example/story") {
		t.Error("another host's canonical is remembered")
	}
}
