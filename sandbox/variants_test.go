package sandbox

import (
	"strings"
	"testing"
)

// TestURLVariantsServeOnePage: with URLVariants, a listing links each article in
// several forms, every form serves the article (and StripVariants gives its one
// URL); without, a variant is a 404 as any unknown URL.
func TestURLVariantsServeOnePage(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Hosts = 3, 12
	cfg.Faults.Shares = nil
	cfg.Layout.URLVariants = true
	w := NewWeb(cfg)
	var listing string
	for _, s := range w.Sites() {
		if len(s.Hosts) > 1 && s.Class != "soc" {
			listing = "http://" + s.Hosts[1] + w.portSuffix + "/list?p=1"
			break
		}
	}
	_, _, body := w.Render(listing, cfg.Epoch, 1)
	var links []string
	for _, part := range strings.Split(string(body), `<a href="`)[1:] {
		u, _, _ := strings.Cut(part, `"`)
		if strings.Contains(u, "/article/") {
			links = append(links, u)
		}
	}
	if len(links) != cfg.Layout.ArticlesPerListing*variantForms {
		t.Fatalf("%d article links on %s, want %d forms of %d articles", len(links), listing, variantForms, cfg.Layout.ArticlesPerListing)
	}
	pages := map[string]bool{}
	for _, u := range links {
		pages[StripVariants(u)] = true
		if status, _, _ := w.Render(u, cfg.Epoch, 2); status != 200 && status != 0 {
			t.Errorf("%s: status %d", u, status)
		}
	}
	if len(pages) != cfg.Layout.ArticlesPerListing {
		t.Fatalf("variants strip to %d pages, want %d", len(pages), cfg.Layout.ArticlesPerListing)
	}
	cfg.Layout.URLVariants = false
	plain := NewWeb(cfg)
	if status, _, _ := plain.Render(links[1], cfg.Epoch, 1); status != 404 {
		t.Fatalf("a variant without the option: status %d, want 404", status)
	}
}
