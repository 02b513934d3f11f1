package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// operatorLineRE is the line `--operator` prints: where ctl attaches, and the
// credential's file.
var operatorLineRE = regexp.MustCompile(`crawlconsole ctl --attach (\S+) --token-file (\S+)`)

// servedOperator serves ctrl on a loopback operator port (its store db) until the
// test ends, and returns where ctl attaches and the credential's file, as the port
// prints them.
func servedOperator(t *testing.T, db string, ctrl control.Control) (url, tokenFile string) {
	t.Helper()
	var banner bytes.Buffer
	stop, err := operatorPort("127.0.0.1:0", db, ctrl, &banner, "crawl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	m := operatorLineRE.FindStringSubmatch(banner.String())
	if m == nil {
		t.Fatalf("no attach line in %q", banner.String())
	}
	return m[1], m[2]
}

// dialOperator connects to an operator port as console --attach does.
func dialOperator(t *testing.T, url, tokenFile string) *attach.Client {
	t.Helper()
	conn, err := operatorConn(url, "", &tokenFlags{file: tokenFile}, "test", "the crawl's")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return attach.Dial(conn.NC, config.DefaultClusterPrefix)
}

// `demo --workers N --operator ADDR` serves the operator port on its master, as
// `demo --operator` does on one box: the same printed ctl line, the credential in
// DB.token, and ctl and console --attach reach the distributed crawl through it.
func TestDemoWithWorkersServesTheOperatorPort(t *testing.T) {
	t.Parallel() // its own demo, store and ports
	db := filepath.Join(t.TempDir(), "dw.db")
	errb := &syncBuffer{}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- runDemo(ctx, []string{"--headless", "--duration", "60s", "--hosts", "8", "--scale", "50", "--db", db,
			"--workers", "2", "--operator", "127.0.0.1:0", "--metrics", "127.0.0.1:0"}, io.Discard, errb)
	}()
	// The metrics line is printed once the crawl runs, after the operator port is up.
	metricsAddr(t, errb)
	m := operatorLineRE.FindStringSubmatch(errb.String())
	if m == nil {
		stop()
		t.Fatalf("demo --workers 2 --operator printed no ctl line (exit %d):\n%s", <-done, errb.String())
	}
	url, tokenFile := m[1], m[2]
	if tokenFile != db+".token" {
		t.Errorf("token file %s, want %s (DB.token, as one box keeps it)", tokenFile, db+".token")
	}
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	var stdout, stderr bytes.Buffer
	if code := runCtl([]string{"--attach", url, "--token-file", tokenFile, "budget", "host", "www.example.test", "40"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "budget of host www.example.test: 40 pages per round") {
		t.Errorf("ctl budget on the distributed demo: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := runCtl([]string{"--attach", url, "--token-file", tokenFile, "keyword", "rm", "nosuchsite", "x"}, io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), `no site named "nosuchsite"`) {
		t.Errorf("ctl refused on the distributed demo: exit %d, stderr %q; want 1 with the reason", code, stderr.String())
	}
	// The console's actions on the master: the whole crawl paused and resumed, its
	// workers in the status.
	if code, out, errs := ctlRun(t, url, tokenFile, "pause"); code != 0 || !strings.Contains(out, "crawl paused") {
		t.Errorf("ctl pause on the master: exit %d, %q, %q", code, out, errs)
	}
	if r := ctlStatusJSON(t, url, tokenFile); r.State != "PAUSED" || len(r.Workers) != 2 {
		t.Errorf("ctl --json status on the paused master: state %q, %d workers; want PAUSED and 2", r.State, len(r.Workers))
	}
	if code, out, errs := ctlRun(t, url, tokenFile, "resume"); code != 0 || !strings.Contains(out, "crawl resumed") {
		t.Errorf("ctl resume on the master: exit %d, %q, %q", code, out, errs)
	}
	if r := ctlStatusJSON(t, url, tokenFile); r.State == "PAUSED" {
		t.Errorf("ctl --json status on the resumed master: still PAUSED")
	}
	if title := attachedTitle(dialOperator(t, url, tokenFile)); !strings.HasPrefix(title, "crawlconsole master ") {
		t.Errorf("console --attach to the demo's master is titled %q; want it to say master", title)
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("demo exit %d: %s", code, errb.String())
	}
}

// slowSteer is a crawl whose steering of seeds never answers until released.
type slowSteer struct {
	*fake.Control
	release chan struct{}
}

func (s slowSteer) Steer(st steer.Change) (string, error) {
	if st.Op == steer.SeedAdd {
		<-s.release
	}
	return s.Control.Steer(st)
}

// ctl tells a crawl that refused from one it could not reach: a refusal exits 1 with
// the crawl's reason; a refused credential is a usage error (2); no responders
// (another --prefix) and no answer in time exit 4, and say what to check.
func TestCtlUnreachableIsNotARefusal(t *testing.T) {
	t.Parallel() // its own operator port; it waits out a request no crawl answers
	ctrl := slowSteer{fake.New(fake.Config{Sites: true}), make(chan struct{})}
	url, tokenFile := servedOperator(t, filepath.Join(t.TempDir(), "c.db"), ctrl)
	defer close(ctrl.release) // before the port stops (at cleanup): the served request returns
	wrongToken := filepath.Join(t.TempDir(), "wrong.token")
	os.WriteFile(wrongToken, []byte("not-the-token\n"), 0o600)
	cases := []struct {
		name string
		args []string
		code int
		errs []string
	}{
		{"refused", []string{"keyword", "add", "nosuchsite", "w"}, 1, []string{`ctl: keyword add nosuchsite w: no site named "nosuchsite"`}},
		{"wrong token", []string{"--token-file", wrongToken, "budget", "x", "3"}, ExitUsage, []string{url + " refused the credential"}},
		{"another prefix", []string{"--prefix", "other", "budget", "x", "3"}, ExitUnreachable, []string{"--prefix", `"other"`, url}},
		{"no answer in time", []string{"seed", "add", "http://x.test/"}, ExitUnreachable, []string{"did not answer", url}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			args := append([]string{"--attach", url, "--token-file", tokenFile}, c.args...)
			if c.args[0] == "--prefix" {
				args = append([]string{c.args[0], c.args[1], "--attach", url, "--token-file", tokenFile}, c.args[2:]...)
			}
			code := runCtl(args, io.Discard, &stderr)
			ok := code == c.code
			for _, e := range c.errs {
				ok = ok && strings.Contains(stderr.String(), e)
			}
			if !ok {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr.String(), c.code, c.errs)
			}
		})
	}
	var leak bytes.Buffer // a token written in the --attach URL is not printed
	if code := runCtl([]string{"--attach", strings.Replace(url, "://", "://s3cret-in-url@", 1), "--token-file", wrongToken, "budget", "x", "3"},
		io.Discard, &leak); code != ExitUsage || strings.Contains(leak.String(), "s3cret-in-url") {
		t.Errorf("a token in the URL with a refused credential: exit %d, %q; want exit %d without the token", code, leak.String(), ExitUsage)
	}
	var stderr bytes.Buffer
	if code := runCtl([]string{"--prefix", "a b", "--attach", url, "--token-file", tokenFile, "budget", "x", "3"}, io.Discard, &stderr); code != ExitUsage ||
		!strings.Contains(stderr.String(), "--prefix") {
		t.Errorf("a --prefix that is no NATS subject: exit %d, %q; want a usage error", code, stderr.String())
	}
}

// ctl's flags go before the command: one after it is said to be misplaced, not
// missing, and is never sent as part of the command.
func TestCtlFlagsGoBeforeTheCommand(t *testing.T) {
	t.Setenv(tokenEnv, "not-the-token")
	cases := []struct {
		name string
		args []string
	}{
		{"--attach after", []string{"seed", "add", "http://x.test/", "--attach", "nats://127.0.0.1:1"}},
		{"--attach= after", []string{"seed", "add", "http://x.test/", "--attach=nats://127.0.0.1:1"}},
		{"--token-file after", []string{"--attach", "nats://127.0.0.1:1", "keyword", "add", "chirp", "storm", "--token-file", "f"}},
		{"-prefix after", []string{"--attach", "nats://127.0.0.1:1", "budget", "chirp", "3", "-prefix", "p"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := runCtl(c.args, io.Discard, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "before the command") {
				t.Fatalf("exit %d, stderr %q; want 2 and a message that flags go before the command", code, stderr.String())
			}
		})
	}
}

// The help of crawl (and master, serve) says what an unset --lanes means and which
// egress forms there are; console's says it attaches to a one-box crawl's operator
// port too.
func TestHelpSaysWhatTheFlagsTake(t *testing.T) {
	var crawlHelp bytes.Buffer
	if code := runCrawl(context.Background(), []string{"--help"}, &crawlHelp, io.Discard); code != 0 {
		t.Fatalf("crawl --help: exit %d", code)
	}
	flagHelp := func(help, name string) string {
		_, rest, ok := strings.Cut(help, "\n  -"+name+" ")
		if !ok {
			t.Fatalf("no -%s in\n%s", name, help)
		}
		text, _, _ := strings.Cut(rest, "\n  -")
		return strings.Join(strings.Fields(text), " ")
	}
	if lanes := flagHelp(crawlHelp.String(), "lanes"); strings.Contains(lanes, "default 0") ||
		!strings.Contains(lanes, "lanes.max") || !strings.Contains(lanes, "32") {
		t.Errorf("crawl --help: -lanes %s; want its real default (the config's lanes.max, else 32), not 0", lanes)
	}
	if eg := flagHelp(crawlHelp.String(), "egress"); !strings.Contains(eg, "bind:IP") || !strings.Contains(eg, "http://") || !strings.Contains(eg, "socks5://") {
		t.Errorf("crawl --help: -egress %s; want the forms bind:IP, http://, socks5://", eg)
	}
	var consoleHelp bytes.Buffer
	if code := runConsole(context.Background(), []string{"--help"}, &consoleHelp, io.Discard); code != 0 {
		t.Fatalf("console --help: exit %d", code)
	}
	if !strings.Contains(consoleHelp.String(), "--operator") {
		t.Errorf("console --help does not say it attaches to a crawl's --operator port:\n%s", consoleHelp.String())
	}
}

// console --attach is titled after what it is attached to: a one-box crawl's
// operator port is not a master.
func TestAttachedTitleSaysWhatItIsAttachedTo(t *testing.T) {
	url, tokenFile := servedOperator(t, filepath.Join(t.TempDir(), "c.db"), fake.New(fake.Config{}))
	if title := attachedTitle(dialOperator(t, url, tokenFile)); title != "crawlconsole crawl (attached)" {
		t.Errorf("console --attach to a one-box crawl is titled %q; want it to say crawl", title)
	}
	// Nothing answers (another prefix): the title claims neither.
	conn, err := operatorConn(url, "", &tokenFlags{file: tokenFile}, "test", "the crawl's")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if title := attachedTitle(attach.Dial(conn.NC, "other", attach.WithTimeout(100*time.Millisecond))); title != "crawlconsole (attached)" {
		t.Errorf("console --attach to nothing is titled %q; want neither master nor crawl", title)
	}
}
