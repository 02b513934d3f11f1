package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A per-site etiquette override in the config is announced on stderr at start, and a
// bad one is refused naming the key.
func TestEtiquetteOverrideWarnsAtStart(t *testing.T) {
	for _, c := range []struct {
		name, yaml, want string
		ok               bool
	}{
		{"override", "etiquette:\n  sites:\n    - {site: Staging.Example.com, robots: false}\n",
			"warning: etiquette override for staging.example.com and its subdomains: robots.txt IGNORED", true},
		{"bad site", "etiquette:\n  sites:\n    - {site: \"http://x/\", robots: false}\n", "etiquette.sites[0].site", false},
		{"cache over a day", "etiquette: {robots_cache_for: 48h}\n", "etiquette.robots_cache_for", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(cfg, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			f := newCrawlFlags("crawl", "crawlconsole crawl", io.Discard, &stderr)
			pos, _, done := f.parse([]string{"--config", cfg, "--db", filepath.Join(dir, "c.db"), "https://example.com/"})
			if done {
				t.Fatalf("flags refused: %s", stderr.String())
			}
			_, err := f.options(pos)
			if (err == nil) != c.ok {
				t.Fatalf("error %v, want ok=%v", err, c.ok)
			}
			got := stderr.String()
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("%q does not say %q", got, c.want)
			}
		})
	}
}
