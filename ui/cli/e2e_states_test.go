package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// TestCrawlStatesInTmux crawls a small loopback site in a real terminal (tmux,
// 120×40) and waits for each state the header names as it comes: RUNNING with the
// progress bar, PAUSED on p, RUNNING again, then DONE once the site ran dry (revisits
// off: nothing more will come), the bar full; with revisits on, the same crawl ends
// IDLE instead (pages will come due again).
func TestCrawlStatesInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t, "crawls a loopback site in tmux")
	// Eight pages: the home page links four, each of which links one more. The four
	// answer only once the test has seen the crawl RUNNING, PAUSED and RUNNING
	// again (or at cleanup): the crawl cannot run dry before, however fast it goes.
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseAll)
	site := uitest.HTMLSite(t, func(w io.Writer, path string) {
		switch {
		case path == "/":
			fmt.Fprint(w, `<html><body><a href="/a1">1</a> <a href="/a2">2</a> <a href="/a3">3</a> <a href="/a4">4</a></body></html>`)
		case strings.HasPrefix(path, "/a"):
			<-release
			n := strings.TrimPrefix(path, "/a")
			fmt.Fprintf(w, `<html><body><p>page %s</p><a href="/b%s">next</a></body></html>`, n, n)
		default:
			fmt.Fprint(w, `<html><body><p>leaf</p></body></html>`)
		}
	})

	run := func(name string, revisits bool, delay string) *tmuxSession {
		cfg := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf("revisit:\n  enabled: %v\nhost_rate: 100\npoliteness: {delay_factor: 0}\nfetch: {timeout: 10m}\n", revisits)), 0o644); err != nil {
			t.Fatal(err)
		}
		script := fmt.Sprintf("%s crawl %s/ --allow-private 127.0.0.0/8 --delay %s --config %s --db %s; sleep 600",
			bin, site.URL, delay, cfg, filepath.Join(dir, name+".db"))
		return startTmux(t, dir, name, script)
	}

	// The crawl with revisits is only waited on for its end: it runs beside the
	// other from the start. Both wait on the held pages, so their pace is not what
	// lets the states be seen: both crawl at 100 requests a second, not the default
	// host rate's 1, with no wait after the held response in proportion to its time
	// (delay_factor), which may be the test's whole patience (fetch.timeout is
	// longer).
	idle := run("idle", true, "10ms..20ms")
	s := run("done", false, "10ms..20ms")
	s.waitFor("RUNNING with the progress bar", func(scr string) bool {
		return strings.Contains(scr, "RUNNING") && strings.Contains(scr, "% done") && strings.Contains(scr, "▕")
	})
	s.keys("p")
	s.waitText("PAUSED")
	s.keys("p")
	s.waitText("RUNNING")
	releaseAll()
	// The state is the header's, its first line (the Lanes pane has a DONE column),
	// with what an idle crawl waits for after it: "IDLE (next revisit in 59m)".
	state := func(want string) func(string) bool {
		return func(scr string) bool {
			head := strings.SplitN(scr, "\n", 2)[0]
			return strings.Contains(head, "  "+want+"  ") || strings.Contains(head, "  "+want+" (")
		}
	}
	// A crawl that ran dry shows the bar full and its 9 responses (8 pages and
	// robots.txt's 404). The header's two lines are waited for together: a screen
	// captured while the frame is drawn can show the first line's DONE above the
	// last frame's counts.
	s.waitFor("DONE in the header, the bar full and 9 responses fetched", func(scr string) bool {
		return state("DONE")(scr) && strings.Contains(scr, "▕██████████▏ 100% done") && fetched(scr) == 9
	})

	// With revisits to come the crawl is IDLE, not DONE, and says when the next is.
	idle.waitFor("IDLE (next revisit in …) in the header", func(scr string) bool {
		head := strings.SplitN(scr, "\n", 2)[0]
		return strings.Contains(head, "  IDLE (next revisit in ")
	})
}
