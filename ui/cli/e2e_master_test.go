package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// TestMasterConsoleJoinInTmux runs `crawlconsole master` in a real terminal (tmux,
// 120×40) with no worker: its first screen says how a worker joins (the Lanes pane,
// the header's "workers 0"), the Nodes pane has a tab before any worker; a worker
// started with that very command joins, and its arrival is in the log.
func TestMasterConsoleJoinInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t, "runs a master and a worker")
	listen := uitest.FreeAddr(t) // outside the kernel's ephemeral range: no outgoing connection takes it

	db := filepath.Join(dir, "m.db")
	// The seed is never fetched: a master fetches nothing itself, and no worker
	// comes before the first screen is checked.
	script := bin + " master http://site.invalid/ --db " + db + " --listen " + listen + `; echo "EXIT=$?"; sleep 600`
	s := startTmux(t, dir, "master", script)

	// The first screen: no worker, and the command that brings one, whole.
	join, token, scr := s.joinCommand(db, func(scr string) bool {
		return strings.Contains(scr, "workers 0") && strings.Contains(scr, " 7 Nodes ")
	})
	if !strings.Contains(join, listen) {
		t.Fatalf("the screen's join command is not this master's (want --join …%s):\n%s", listen, scr)
	}

	// A worker started with it joins; the log says so.
	w := exec.Command(bin, "worker", "--join", join, "--name", "w1", "--token-file", token)
	w.Stdout, w.Stderr = os.Stderr, os.Stderr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Process.Kill(); _ = w.Wait() })
	s.waitText("workers 1")
	s.keys("3")
	s.waitText("worker w1 joined")
}
