package engine

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// FuzzParseSteer: any words give a change or an error, never a panic, and a change
// read back from its own String() is the same change — the store keeps changes as
// Steer values and the log shows them as commands, so the two must agree (the
// "budget host" forms and a site named host included).
func FuzzParseSteer(f *testing.F) {
	for _, seed := range []string{
		"budget harbor 40", "budget harbor 40 total", "budget host www.a.test 7 round", "budget host 5 total",
		"budget host host 5", "budget host 5", "budget host", "budget host x.test", "budget 5 5 5",
		"seed add http://a.test/", "site add social chirp http://c.test/s?q={keyword} flood",
		"site add news http://a.test/ 台风", "keyword add chirp storm surge", "keyword rm chirp flood", "site rm x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s, err := steer.Parse(strings.Fields(line))
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", line)
			}
			return
		}
		again, err := steer.Parse(strings.Fields(s.String()))
		if err != nil {
			t.Fatalf("%q parsed as %+v, whose command %q does not parse: %v", line, s, s.String(), err)
		}
		if again.String() != s.String() || again.Op != s.Op || again.Site != s.Site || again.Host != s.Host ||
			again.N != s.N || again.Per != s.Per || again.URL != s.URL || again.Kind != s.Kind || again.Search != s.Search {
			t.Fatalf("%q: %+v, read back from %q as %+v", line, s, s.String(), again)
		}
	})
}
