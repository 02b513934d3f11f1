package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStoreFailureKeepsExitThreeWhenStatsFail crawls under a file-size limit small
// enough for the store to fail early, with --stats-json where no file can be
// written (as when it sits on the same full disk). The exit status must still be 3,
// the store's: 3 says what stopped the crawl, and the stats failure is only reported.
func TestStoreFailureKeepsExitThreeWhenStatsFail(t *testing.T) {
	t.Parallel() // its own sandbox and store; it waits on a subprocess
	if testing.Short() {
		t.Skip("runs a subprocess")
	}
	sb, seeds, conf := fastSandbox(t)
	dir := filepath.Dir(conf)
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	statsPath := filepath.Join(blocker, "stats.json") // ENOTDIR: the write fails
	db := filepath.Join(dir, "full.db")
	cmd := childCmd("TestStoreFailChild", "STOREFAIL_CHILD_ARGS", sandboxCrawl(sb, conf, db, seeds, "--stats-json", statsPath),
		"STOREFAIL_CHILD_FSIZE="+strconv.Itoa(storeFailFsize))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if !strings.Contains(out.String(), "store "+db+" failed") {
		t.Fatalf("the store did not fail under a %d-byte file limit (exit %d): the test needs it to\n%s", storeFailFsize, code, tail(out.String(), 2000))
	}
	if !strings.Contains(out.String(), "--stats-json") {
		t.Errorf("the failed stats write is not reported\n%s", tail(out.String(), 2000))
	}
	if code != ExitStoreFailed {
		t.Fatalf("exit status %d after the store failed and the stats write failed too; want %d (ExitStoreFailed)\n%s",
			code, ExitStoreFailed, tail(out.String(), 2000))
	}
}

// storeFailFsize is a file-size limit under which a crawl's store opens and then
// fails part way.
const storeFailFsize = 400 << 10

// Help asked for is the command's output: every command's --help goes to stdout with
// exit 0, so `crawlconsole crawl --help | less` pages it (it went to stderr, and the
// pipe got nothing, while `crawlconsole --help` and `sandbox --help` used stdout).
func TestHelpGoesToStdout(t *testing.T) {
	for _, cmd := range []string{"demo", "crawl", "sandbox", "stats", "export", "show", "serve", "master", "worker", "console", "ctl"} {
		t.Run(cmd, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := Main([]string{cmd, "--help"}, &stdout, &stderr)
			if code != 0 || !strings.Contains(stdout.String(), "Usage: crawlconsole "+cmd) || stderr.Len() != 0 {
				t.Errorf("%s --help: exit %d, stdout %d bytes (%.40q), stderr %q; want the usage on stdout, exit 0", cmd, code, stdout.Len(), stdout.String(), stderr.String())
			}
			// "crawlconsole help crawl" is the same help, not the list of commands.
			var helped strings.Builder
			if code := Main([]string{"help", cmd}, &helped, &stderr); code != 0 || helped.String() != stdout.String() {
				t.Errorf("help %s: exit %d, stdout %.60q; want exit 0 and what %s --help prints", cmd, code, helped.String(), cmd)
			}
		})
	}
}

// TestUnknownFlagPointsAtHelp: every command answers a flag it does not have the
// same way: the error, named after the command, then one line pointing at its
// --help, and nothing else (a list of every flag would push the error out of sight).
func TestUnknownFlagPointsAtHelp(t *testing.T) {
	for _, cmd := range []string{"demo", "crawl", "sandbox", "stats", "export", "show", "serve", "master", "worker", "console", "ctl"} {
		t.Run(cmd, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := Main([]string{cmd, "--zzzzzzzz"}, &stdout, &stderr)
			want := "crawlconsole " + cmd + ": flag provided but not defined: -zzzzzzzz\n" +
				"Run \"crawlconsole " + cmd + " --help\" for its flags.\n"
			if code != ExitUsage || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("%s --zzzzzzzz: exit %d, stdout %q, stderr %q; want exit %d and only %q", cmd, code, stdout.String(), stderr.String(), ExitUsage, want)
			}
		})
	}
}

// TestMissingRequiredFlagPointsAtHelp: a command run without a flag or argument it
// needs says which, and points at its --help as a bad flag does (exit 2), so the
// flag list is one command away.
func TestMissingRequiredFlagPointsAtHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stats"}, "--db PATH is required"},
		{[]string{"show", "--db", "x.db"}, "give exactly one URL"},
		{[]string{"export", "--db", "x.db"}, "--format is required"},
		{[]string{"worker", "--name", "w1"}, "--join URL and --name NAME are required"},
		{[]string{"console"}, "--attach URL is required"},
		{[]string{"ctl", "status"}, "--attach URL is required"},
		{[]string{"serve"}, "--ssh is required"},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := Main(c.args, &stdout, &stderr)
			want := "crawlconsole " + c.args[0] + ": " + c.want
			help := "Run \"crawlconsole " + c.args[0] + " --help\" for its flags.\n"
			if code != ExitUsage || !strings.Contains(stderr.String(), want) || !strings.HasSuffix(stderr.String(), help) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d, %q and then %q", c.args, code, stderr.String(), ExitUsage, want, help)
			}
		})
	}
}
