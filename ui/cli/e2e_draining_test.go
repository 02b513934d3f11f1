package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
	"time"
)

// TestMasterDrainingInTmux runs a master's console in a real terminal (tmux,
// 120×40) with one worker crawling a two-page loopback site whose second page
// answers only when the test lets it: with nothing left to hand out and the page
// still in the worker's hands, the header says DRAINING; once the page is answered
// and the site ran dry (revisits off), DONE.
func TestMasterDrainingInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t, "runs a master and a worker on a loopback site")
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><body><a href="/slow">the last page</a></body></html>`)
		case "/slow":
			once.Do(func() { close(held) })
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><body><p>at last</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce()

	listen := uitest.FreeAddr(t) // outside the kernel's ephemeral range: no outgoing connection takes it
	cfg := filepath.Join(dir, "m.yaml")
	// Without the default host rate and lane pauses: the held page, not the
	// crawl's pace, is what keeps the worker busy.
	if err := os.WriteFile(cfg, []byte("revisit:\n  enabled: false\nhost_rate: 0\nlanes: {delay_min: 0s, delay_max: 1ms}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m.db")
	script := fmt.Sprintf("%s master %s/ --db %s --listen %s --config %s --allow-private 127.0.0.0/8; echo \"EXIT=$?\"; sleep 600",
		bin, site.URL, db, listen, cfg)
	s := startTmux(t, dir, "drain", script)

	join, token, _ := s.joinCommand(db, func(string) bool { return true })
	w := exec.Command(bin, "worker", "--join", join, "--name", "w1", "--token-file", token, "--allow-private", "127.0.0.0/8")
	w.Stdout, w.Stderr = os.Stderr, os.Stderr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Process.Kill(); _ = w.Wait() })

	// The state is the header's, its first line.
	state := func(want string) func(string) bool {
		return func(scr string) bool { return strings.Contains(strings.SplitN(scr, "\n", 2)[0], "  "+want+"  ") }
	}
	select { // the worker asked for the last page: the master has nothing left to hand out
	case <-held:
	case <-time.After(e2eDeadline):
		t.Fatalf("the worker never asked for the last page:\n%s", s.screen())
	}
	s.waitFor("DRAINING while the worker holds the last page", state("DRAINING"))
	releaseOnce()
	s.waitFor("DONE once the last page came back", state("DONE"))
}
