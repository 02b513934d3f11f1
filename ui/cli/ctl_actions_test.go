package cli

import (
	"bytes"
	"encoding/json"
	neturl "net/url"
	"slices"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// ctlRun runs ctl against url with the token file and returns its exit status and
// output.
func ctlRun(t *testing.T, url, tokenFile string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runCtl(append([]string{"--attach", url, "--token-file", tokenFile}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// ctlStatusJSON is `ctl --json status`, decoded.
func ctlStatusJSON(t *testing.T, url, tokenFile string) ctlStatusReport {
	t.Helper()
	code, out, errs := ctlRun(t, url, tokenFile, "--json", "status")
	var r ctlStatusReport
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("ctl --json status: exit %d, %v\nstdout %s\nstderr %s", code, err, out, errs)
	}
	return r
}

// `ctl` does what the console's ":" line does, on a one-box crawl through its
// --operator port: pause and resume the crawl, lanes N, pause a host; status and
// hosts report it (as text and --json); a console-only command, an unknown one or a
// lane the crawl does not have are usage errors (2); a refused change exits 1; an
// address where nothing listens exits 4.
func TestCtlRunsTheConsoleCommandsOnACrawl(t *testing.T) {
	eng, _, _, opts := steeringDemo(t)
	url, tokenFile := servedOperator(t, opts.DB, eng)

	if code, out, errs := ctlRun(t, url, tokenFile, "pause"); code != 0 || !strings.Contains(out, "crawl paused") {
		t.Fatalf("ctl pause: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if r := ctlStatusJSON(t, url, tokenFile); r.State != "PAUSED" {
		t.Errorf("status after ctl pause: state %q, want PAUSED", r.State)
	}
	if code, out, _ := ctlRun(t, url, tokenFile, "status"); code != 0 || !strings.HasPrefix(out, "PAUSED ") {
		t.Errorf("ctl status after pause: exit %d, %q; want a line starting PAUSED", code, out)
	}
	if code, out, errs := ctlRun(t, url, tokenFile, "resume"); code != 0 || !strings.Contains(out, "crawl resumed") {
		t.Fatalf("ctl resume: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if r := ctlStatusJSON(t, url, tokenFile); r.State == "PAUSED" {
		t.Errorf("status after ctl resume: still PAUSED")
	}
	if code, out, errs := ctlRun(t, url, tokenFile, "lanes", "3"); code != 0 || !strings.Contains(out, "lanes.max set to 3") {
		t.Errorf("ctl lanes 3: exit %d, %q, %q", code, out, errs)
	}
	// A declared site's entry host: the crawl knows it before its round reaches it.
	eu, err := neturl.Parse(opts.Sites[0].Entry)
	if err != nil {
		t.Fatal(err)
	}
	quiet := strings.ToLower(eu.Host)
	if code, out, errs := ctlRun(t, url, tokenFile, "pause", "host", quiet); code != 0 || !strings.Contains(out, "host "+quiet+" paused") {
		t.Errorf("ctl pause host: exit %d, %q, %q", code, out, errs)
	}
	r := ctlStatusJSON(t, url, tokenFile)
	if r.LanesMax != 3 || !slices.Contains(r.PausedHosts, quiet) {
		t.Errorf("status --json after lanes 3 and pause host: lanes_max %d, paused_hosts %v", r.LanesMax, r.PausedHosts)
	}
	code, out, _ := ctlRun(t, url, tokenFile, "--json", "hosts")
	var hosts []ctlHost
	if err := json.Unmarshal([]byte(out), &hosts); code != 0 || err != nil ||
		!slices.ContainsFunc(hosts, func(h ctlHost) bool { return h.Host == quiet && h.Paused }) {
		t.Errorf("ctl --json hosts: exit %d, %v; want %s paused\n%s", code, err, quiet, out)
	}
	if code, out, _ := ctlRun(t, url, tokenFile, "hosts"); code != 0 || !strings.Contains(out, "HOST") || !strings.Contains(out, quiet) {
		t.Errorf("ctl hosts: exit %d\n%s", code, out)
	}
	if code, out, errs := ctlRun(t, url, tokenFile, "rebalance"); code != 0 || !strings.Contains(out, "rebalance") {
		t.Errorf("ctl rebalance: exit %d, %q, %q", code, out, errs)
	}

	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"theme", "dark"}, ExitUsage, "acts on a console's screen"},
		{[]string{"frobnicate"}, ExitUsage, `unknown command "frobnicate" (crawlconsole ctl --help lists them)`},
		{[]string{"stats"}, ExitUsage, `"stats" reads the crawl's store, not the running crawl: crawlconsole stats --db PATH`},
		// A lane, a site or a URL the crawl does not have is one rule: the words
		// are right, the crawl refuses (exit 1); only words it cannot read are 2.
		{[]string{"pause", "lane", "9999"}, 1, "no lane 9999"},
		{[]string{"resume", "lane", "9999"}, 1, "no lane 9999"},
		{[]string{"rotate", "lane", "9999"}, 1, "no lane 9999"},
		{[]string{"pause", "lane", "x"}, ExitUsage, "lane must be a lane number"},
		{[]string{"lanes", "zero"}, ExitUsage, "N must be a whole number"},
		{[]string{"keyword", "rm", "nosuchsite", "x"}, 1, `no site named "nosuchsite"`},
		// A host the crawl does not know is refused by the same rule; it said paused.
		{[]string{"pause", "host", "nosuch.example"}, 1, "no host nosuch.example in the crawl"},
		{[]string{"resume", "host", "nosuch.example"}, 1, "no host nosuch.example in the crawl"},
	} {
		if code, _, errs := ctlRun(t, url, tokenFile, c.args...); code != c.code || !strings.Contains(errs, c.err) {
			t.Errorf("ctl %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, errs, c.code, c.err)
		}
	}
	code, out, _ = ctlRun(t, url, tokenFile, "--json", "keyword", "rm", "nosuchsite", "x")
	var o ctlOutcome
	if err := json.Unmarshal([]byte(out), &o); err != nil || code != 1 || o.OK || !o.Refused || o.Exit != 1 {
		t.Errorf("ctl --json of a refused change: exit %d, %+v (%v)", code, o, err)
	}

	nobody := "nats://" + uitest.FreeAddr(t)
	if code, _, errs := ctlRun(t, nobody, tokenFile, "status"); code != ExitUnreachable || !strings.Contains(errs, "nothing answers") {
		t.Errorf("ctl status where nothing listens: exit %d, %q; want %d", code, errs, ExitUnreachable)
	}
}

// ctl --help lists every command the console's ":" line offers (on a master, with
// its node commands), but those that act on the console's screen.
func TestCtlHelpListsEveryConsoleCommand(t *testing.T) {
	snap := fake.New(fake.Config{Workers: 2, Sites: true}).Snapshot()
	con := &ctlConsole{common: pane.NewCommon(nil), snap: &snap}
	offered := commands.Offered(con)
	if len(offered) < 20 {
		t.Fatalf("the console offers %d commands; the test expects the full set", len(offered))
	}
	for _, c := range offered {
		if consoleOnly[strings.Fields(c.Name)[0]] {
			continue
		}
		if !strings.Contains(ctlUsage, "  "+c.Name+" ") && !strings.Contains(ctlUsage, "| "+c.Name+" ") {
			t.Errorf("ctl --help does not list %q", c.Usage())
		}
	}
}
