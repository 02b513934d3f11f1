package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlOnAReadOnlyDirectorySaysWhatToDo: a --db in a read-only directory stops
// the start with exit 2 and says to give a writable path (and that stats, show and
// export read it where it is); it said only "cannot create lock file: … read-only
// file system". The directory is made read-only by a bind mount in a child's mount
// namespace (a chmod does not stop root), so the test needs unshare.
func TestCrawlOnAReadOnlyDirectorySaysWhatToDo(t *testing.T) {
	if dir := os.Getenv("CLI_RO_CHILD"); dir != "" {
		var out, errs strings.Builder
		code := runCrawl(context.Background(), []string{"--headless", "--db", filepath.Join(dir, "c.db"), "http://127.0.0.1:9/"}, &out, &errs)
		if code != ExitUsage || !strings.Contains(errs.String(), "give --db a path in a writable directory") {
			t.Fatalf("exit %d, stderr:\n%s", code, errs.String())
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare for a read-only bind mount")
	}
	dir := t.TempDir()
	cmd := exec.Command(unshare, "-m", "sh", "-c", `mount --bind -o ro "$1" "$1" && exec "$2" -test.run '^TestCrawlOnAReadOnlyDirectorySaysWhatToDo$' -test.count=1`,
		"sh", dir, os.Args[0])
	cmd.Env = append(os.Environ(), "CLI_RO_CHILD="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("mount:")) || bytes.Contains(out, []byte("unshare:")) {
			t.Skipf("no read-only bind mount here: %s", out)
		}
		t.Fatalf("child: %v\n%s", err, out)
	}
}
