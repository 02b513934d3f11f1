package ui

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// fakeJoin is a master's join command as the CLI words it (long enough to wrap at 80
// columns).
const fakeJoin = "crawlconsole worker --join nats://127.0.0.1:4222 --name NAME --token-file /var/lib/crawl/news.db.token"

// A master's console, from its first frame and before any worker joined, says how a
// worker joins: the Lanes pane (a master has no lanes of its own) and a Nodes pane
// with no rows both show the command whole, wrapped with shell continuations at 80
// columns; the line printed on stderr before the screen took over is gone.
func TestMasterConsoleShowsTheJoinCommandWithNoWorkers(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		h := newHarnessWith(t, size[0], size[1], Options{}, fake.Config{Join: fakeJoin})
		for _, tab := range []string{"1", "7"} {
			h.press(tab)
			shown := strings.ReplaceAll(strings.Join(strings.Fields(h.body()), " "), `\ `, "")
			if !strings.Contains(shown, fakeJoin) {
				t.Fatalf("%dx%d pane %s: no join command %q:\n%s", size[0], size[1], tab, fakeJoin, h.view())
			}
		}
		h.mustShow("[7 Nodes]", "0 workers")
	}
}
