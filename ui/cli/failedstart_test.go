package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A start that fails leaves nothing behind: no store and no lock file after a crawl
// whose only seed is refused, and the refusal says why, with a 100 KB URL cut and
// its length given instead of echoed whole.
func TestFailedStartLeavesNothing(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", 100_000)
	for _, c := range []struct {
		name, seed string
		want       []string
	}{
		{"ftp seed", "ftp://example.com/x", []string{`"ftp" is not http or https`, "ftp://example.com/x"}},
		{"100 KB seed", long, []string{"100019 bytes", "http://example.com/aaa"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr strings.Builder
			code := Main([]string{"crawl", "--headless", "--until-idle", "--db", filepath.Join(dir, "a.db"), c.seed}, &stdout, &stderr)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%.500s", w, stderr.String())
				}
			}
			if n := len(stderr.String()); n > 1000 {
				t.Errorf("stderr is %d bytes: the seed was echoed whole", n)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				var names []string
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Errorf("the failed start left %v in the --db directory", names)
			}
		})
	}
}

// An export that fails leaves no empty --out directory behind.
func TestFailedExportLeavesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var stderr strings.Builder
	code := Main([]string{"export", "--db", filepath.Join(dir, "nosuch.db"), "--format", "jsonl", "--out", out}, &strings.Builder{}, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "no such store") {
		t.Errorf("export of a missing store: exit %d, %q", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the failed export left its --out directory %s", out)
	}
}

// A mistyped flag prints the error, named after its command like every other
// error, and one line pointing at --help, not the flag list (40 lines, which
// scrolled the error away); --help prints the list. A bad flag value reads the same.
func TestBadFlagPrintsTheErrorAndAPointer(t *testing.T) {
	for _, cmd := range []string{"crawl", "ctl", "export", "stats", "show", "serve", "master", "worker", "console", "demo"} {
		var stderr strings.Builder
		code := Main([]string{cmd, "--no-such-flag"}, &strings.Builder{}, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != ExitUsage || len(lines) != 2 || !strings.HasPrefix(lines[0], "crawlconsole "+cmd+": ") ||
			!strings.Contains(lines[0], "no-such-flag") ||
			lines[1] != `Run "crawlconsole `+cmd+` --help" for its flags.` {
			t.Errorf("%s --no-such-flag: exit %d, stderr:\n%s", cmd, code, stderr.String())
		}
	}
	var stderr strings.Builder
	if code := Main([]string{"crawl", "--lanes", "0"}, &strings.Builder{}, &stderr); code != ExitUsage ||
		!strings.HasPrefix(stderr.String(), "crawlconsole crawl: invalid value \"0\" for flag -lanes") {
		t.Errorf("crawl --lanes 0: exit %d, stderr:\n%s", code, stderr.String())
	}
	var help strings.Builder
	if code := Main([]string{"crawl", "--help"}, &help, &strings.Builder{}); code != 0 || !strings.Contains(help.String(), "-allow-private") {
		t.Errorf("crawl --help: exit %d, no flag list:\n%s", code, help.String())
	}
}

// A console crawl where stdin or stdout is no terminal (a pipe, cron, nohup) is
// refused before it starts, saying to add --headless, and leaves no store (the
// console failed once the crawl had begun, leaving the store and its lock).
func TestConsoleWithoutATerminalLeavesNothing(t *testing.T) {
	was := onTerminal
	onTerminal = func() bool { return false }
	defer func() { onTerminal = was }()
	dir := t.TempDir()
	var stderr strings.Builder
	code := Main([]string{"crawl", "--db", filepath.Join(dir, "a.db"), "http://example.com/"}, &strings.Builder{}, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "needs a terminal") || !strings.Contains(stderr.String(), "--headless") {
		t.Errorf("a console crawl off a terminal: exit %d, %q; want %d saying to add --headless", code, stderr.String(), ExitUsage)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("the refused start left %d files in the --db directory (%s, ...)", len(left), left[0].Name())
	}
}

// An egress bound to an address this machine does not have is refused at the start,
// saying so, with no store left behind: every request from it failed, and the crawl
// ended with "nothing was fetched: errors: robots_unreachable=1" and exit 5.
func TestBindEgressNotLocalIsRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	var stderr strings.Builder
	code := Main([]string{"crawl", "http://127.0.0.1:9/", "--allow-private", "127.0.0.0/8", "--egress", "bind:192.0.2.10",
		"--headless", "--until-idle", "--db", db}, io.Discard, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "192.0.2.10 is not an address of this machine") {
		t.Errorf("crawl --egress bind:192.0.2.10: exit %d, stderr:\n%s\nwant exit 2 naming the address", code, stderr.String())
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("the refused start left %s behind", db)
	}
}

// The refusal names the egress, by its name and spec, not only the address: with
// several bind: egresses an address alone does not say which line to fix. An IPv6
// link-local address (fe80::/10) without a zone cannot be bound at all, and the
// spec cannot carry a zone: it is refused at the start too (it passed the check and
// every request from it failed, the crawl ending with robots_unreachable).
func TestBindEgressRefusalNamesTheEgress(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"out2=bind:192.0.2.10", "egress out2 (bind:192.0.2.10): 192.0.2.10 is not an address of this machine"},
		{"bind:fe80::1", "egress e1 (bind:fe80::1): fe80::1 is a link-local address"},
		{"ll=bind:fe80::1", "egress ll (bind:fe80::1): fe80::1 is a link-local address"},
	} {
		db := filepath.Join(t.TempDir(), "a.db")
		var stderr strings.Builder
		code := Main([]string{"crawl", "http://127.0.0.1:9/", "--allow-private", "127.0.0.0/8", "--egress", c.spec,
			"--headless", "--until-idle", "--db", db}, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("crawl --egress %s: exit %d, stderr:\n%s\nwant exit 2 and %q", c.spec, code, stderr.String(), c.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("crawl --egress %s: the refused start left %s behind", c.spec, db)
		}
	}
}
