package cli

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// FuzzConfig: any bytes as a config file give options or an error naming the file,
// never a panic: a config file is input the crawl does not control.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"seeds: [https://example.com/]\nlanes: {max: 4, delay_min: 2s, delay_max: 6s}\n",
		"egress: [\"bind:192.0.2.10\"]\nrotation: {per_node: 2}\n",
		"sites:\n  - {name: a, kind: news, entry: \"https://a.example/\"}\nkeywords: [flood, 台风]\n",
		"bogus_key: 1\n", "lanes: {max: -1}\n", "\t\x00\xff", "dedupe: {expected_urls: 99999999999999999999}\n",
		"balance: {every: 24h, threshold: 0.1}\n", "&a [*a, *a]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := config.DefaultOptions()
		if err := decodeConfig("fuzz.yaml", data, &opts); err != nil && !strings.Contains(err.Error(), "fuzz.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
