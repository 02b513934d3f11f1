package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// TestCtlAndLogRowInTmux steers a crawl's console and a master's console, each in a
// real terminal (tmux, 120×40), from another process with `crawlconsole ctl`, as an
// operator's script would: pause shows PAUSED in the console's header and in
// `ctl --json status`, resume takes it back. In the crawl's Log pane, the row of a
// seed the SSRF guard refused is cut at the pane's width before its fix; enter
// opens it whole.
func TestCtlAndLogRowInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t, "steers a crawl and a master with ctl")
	site := uitest.HTMLSite(t, func(w io.Writer, path string) {
		fmt.Fprintf(w, `<html><body><p>page %s</p><a href="%s/n">next</a></body></html>`, path, strings.TrimSuffix(path, "/"))
	})
	cfg := filepath.Join(dir, "revisits.yaml")
	if err := os.WriteFile(cfg, []byte("revisit:\n  enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	start := func(name, script string) *tmuxSession { return startTmux(t, dir, name, script+"; sleep 600") }
	// ctl runs `crawlconsole ctl` against the operator port at addr of the crawl
	// whose store is db (its token sits beside it): exit status and output.
	ctl := func(addr, db string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"ctl", "--attach", "nats://" + addr, "--token-file", db + ".token"}, args...)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatalf("ctl %v: %v", args, err)
		}
		return 0, string(out)
	}
	header := func(want string) func(string) bool {
		return func(scr string) bool { return strings.Contains(strings.SplitN(scr, "\n", 2)[0], "  "+want+"  ") }
	}
	steer := func(s *tmuxSession, addr, db string) {
		t.Helper()
		if code, out := ctl(addr, db, "pause"); code != 0 {
			t.Fatalf("%s: ctl pause: exit %d: %s", s.name, code, out)
		}
		s.waitFor("PAUSED in the header after ctl pause", header("PAUSED"))
		code, out := ctl(addr, db, "--json", "status")
		var st struct{ State string }
		if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.State != "PAUSED" {
			t.Fatalf("%s: ctl --json status after pause: exit %d, %v, state %q: %s", s.name, code, err, st.State, out)
		}
		if code, out := ctl(addr, db, "resume"); code != 0 {
			t.Fatalf("%s: ctl resume: exit %d: %s", s.name, code, out)
		}
		s.waitFor("the header no longer PAUSED after ctl resume", func(scr string) bool { return !header("PAUSED")(scr) })
	}

	// A one-box crawl. 127.0.0.2 is outside --allow-private: its seed is refused,
	// with a warning whose end names the fix.
	addr, db := uitest.FreeAddr(t), filepath.Join(dir, "crawl.db")
	s := start("crawl", fmt.Sprintf("%s crawl %s/ http://127.0.0.2:9/ --allow-private 127.0.0.1/32 --delay 300ms..500ms --config %s --db %s --operator %s",
		bin, site.URL, cfg, db, addr))
	// A master with no worker yet, steered below the same way through the address
	// its workers join (a master's operator port is its --listen). It starts now,
	// beside the crawl: with no worker it fetches nothing while it waits its turn.
	maddr, mdb := uitest.FreeAddr(t), filepath.Join(dir, "master.db")
	m := start("master", fmt.Sprintf("%s master %s/ --allow-private 127.0.0.1/32 --db %s --listen %s", bin, site.URL, mdb, maddr))
	s.waitText("RUNNING")
	steer(s, addr, db)

	const fix = "--allow-private 127.0.0.2/32"
	s.keys("3")
	s.waitText("SSRF guard")
	if strings.Contains(s.screen(), fix) {
		t.Fatalf("the log row shows the whole warning already; the test needs a longer one:\n%s", s.screen())
	}
	// Filtered to the warning's one row (one a host a run), the row opened is the
	// warning's: no row is judged, and passed over, on a screen captured while its
	// message was still being drawn. Its message then shows whole, with its level.
	s.keys("/")
	s.keys("-l", "SSRF guard")
	s.keys("Enter")
	s.keys("end")
	s.keys("Enter")
	s.waitFor("the warning's row open, its message whole, with its level", func(scr string) bool {
		words := strings.Join(strings.Fields(scr), " ")
		return strings.Contains(words, "EVENT 1 of 1 ") && strings.Contains(words, fix+" (on a distributed crawl, the workers need it too)") &&
			strings.Contains(words, "level WARN")
	})

	// The master's console, with no worker yet.
	m.waitText("workers 0")
	steer(m, maddr, mdb)
}
