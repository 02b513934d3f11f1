package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/control"
)

// Live steering from a shell: `crawlconsole ctl --attach URL WORDS...`
// sends the change the console's ":WORDS..." would, through the same operator port:
// the NATS subjects a master serves for `console --attach` (engine/attach). A crawl
// on one box has no such port unless started with --operator ADDR, which serves
// the same subjects from a small embedded NATS server on loopback, with the
// credential in DB.token (mode 0600) — the way a master's is kept.

const ctlUsage = `Usage: crawlconsole ctl --attach URL [--token-file FILE] [--json] [--yes] COMMAND...

Does on a running crawl (started with --operator ADDR) or master what the
console's ":" command of the same words does, and prints what happened. Flags go
before the command. Commands:
  status                          state, pages, rate, queue, lanes, pauses
  hosts                           the hosts on lanes: lane, status, paused, disabled
  sites                           the Sites pane: per site pages stored, new, delay, feeds,
                                  sitemaps, and each feed or sitemap that yielded nothing, why
  pause | resume                  the whole crawl
  pause lane N | resume lane N
  pause host NAME | resume host NAME
  pause node NAME | resume node NAME      (a master's workers)
  lanes N                         set lanes.max
  disable host NAME | enable host NAME    (defer a host's URLs, or bring them back)
  rotate lane N                   move a lane to another egress
  rebalance                       print the plan; with --yes, apply it
  egress add SPEC | egress rm NAME
  dns flush [DOMAIN]
  revisit now URL
  seed add URL
  site add news URL [KEYWORD...]
  site add social NAME SEARCH-TEMPLATE [KEYWORD...]
  site rm NAME
  keyword add SITE WORD...
  keyword rm SITE WORD...
  budget SITE N [round|total]
  budget host HOST N [round|total]
  window SITE DAYS                a news site's keyword results only from pages published in the last DAYS days (0: any date)

Exit status: 0 done; 1 the crawl refused (the reason on stderr), a lane, site, host or
URL it does not have among them; 2 usage (a bad flag, command or credential); 4 the crawl was not reached (nothing answers, or no
answer in time: the change may or may not have been made).

Flags:
`

// runCtl implements `crawlconsole ctl`. Exit 0: done; 1: the crawl refused the
// change (the reason on stderr); 2: bad flags, command or credential; 4: the crawl
// was not reached.
func runCtl(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("attach", "", "the crawl's operator `URL` (a master's, or a crawl's --operator address)")
	ca := fs.String("ca", "", "CA `FILE` to trust a TLS master")
	prefix := fs.String("prefix", config.DefaultClusterPrefix, "subject `PREFIX` of the crawl")
	asJSON := fs.Bool("json", false, "print JSON on stdout (the outcome, status, hosts or sites), for scripts")
	yes := fs.Bool("yes", false, "rebalance: apply the plan (without it, the plan is only printed)")
	var tf tokenFlags
	tf.add(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), ctlUsage)
		fs.PrintDefaults()
	}
	if err := clikit.Parse(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	// The flag package stops at the command's first word: a flag after it would be
	// read as part of the command (a keyword "storm --token-file f").
	if name := flagAfterCommand(fs, args); name != "" {
		fmt.Fprintf(stderr, "crawlconsole ctl: --%s comes after the command; flags go before the command: "+
			"crawlconsole ctl --attach URL [--token-file FILE] [--prefix P] [--json] [--yes] COMMAND...\n", name)
		return ExitUsage
	}
	if *url == "" {
		return clikit.Usage(stderr, "ctl", "--attach URL is required (printed by the master, or by crawl --operator)")
	}
	if err := checkSubjectPrefix(*prefix); err != nil {
		fmt.Fprintf(stderr, "crawlconsole ctl: %v\n", err)
		return ExitUsage
	}
	words := fs.Args()
	if len(words) == 0 {
		fmt.Fprintln(stderr, "crawlconsole ctl: no command: give one after the flags, e.g. status, pause, lanes 4 (crawlconsole ctl --help lists them)")
		return ExitUsage
	}
	conn, err := operatorConn(*url, *ca, &tf, "ctl", "the crawl's")
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole ctl: %v\n", err)
		if errors.Is(err, errNothingAccepted) {
			return ExitUnreachable
		}
		return ExitUsage
	}
	defer conn.Close()
	client := attach.Dial(conn.NC, *prefix)
	switch {
	case len(words) == 1 && words[0] == "status":
		return ctlStatus(client, *url, *prefix, *asJSON, stdout, stderr)
	case len(words) == 1 && words[0] == "hosts":
		return ctlHosts(client, *url, *prefix, *asJSON, stdout, stderr)
	case len(words) == 1 && words[0] == "sites":
		return ctlSites(client, *url, *prefix, *asJSON, stdout, stderr)
	}
	return runCtlCommand(newCtlConsole(client, *yes), words, *url, *prefix, *asJSON, stdout, stderr)
}

// flagAfterCommand returns the name of the first of fs's flags written among the
// command's words (as -name, --name or --name=V), "" if none; words after an
// explicit "--" are the command's, whatever they look like.
func flagAfterCommand(fs *flag.FlagSet, args []string) string {
	words := fs.Args()
	if n := len(args) - len(words); n > 0 && args[n-1] == "--" {
		return ""
	}
	for _, w := range words {
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-"), "=")
		if fs.Lookup(name) != nil {
			return name
		}
	}
	return ""
}

// checkSubjectPrefix refuses a --prefix that is no literal NATS subject
// (attach.CheckPrefix, which would only say so once connected).
func checkSubjectPrefix(prefix string) error {
	if attach.CheckPrefix(prefix) != nil {
		return fmt.Errorf("--prefix %q is not a NATS subject prefix (dot-separated words, no wildcards or spaces, e.g. %q)",
			prefix, config.DefaultClusterPrefix)
	}
	return nil
}

// unreachedError is a steering request the crawl never answered: nothing serves
// the prefix at that address, no reply in time, the connection failed. Unlike a
// refusal (the crawl's own answer, exit 1), it is a connection problem (exit 2).
type unreachedError struct {
	url, prefix string
	err         error // from engine/attach, wrapping the NATS client's error
}

func (e *unreachedError) Unwrap() error { return e.err }

func (e *unreachedError) Error() string {
	switch {
	case errors.Is(e.err, nats.ErrNoResponders):
		return fmt.Sprintf("nothing answers at %s under subject prefix %q: is the crawl running there, and under that prefix? "+
			"(a master started with --prefix P needs ctl --prefix P; a crawl's or demo's --operator port uses %q)",
			e.url, e.prefix, config.DefaultClusterPrefix)
	case errors.Is(e.err, nats.ErrTimeout), errors.Is(e.err, context.DeadlineExceeded):
		return fmt.Sprintf("the crawl at %s (prefix %q) did not answer in time; the change may or may not have been made: "+
			"look at the console before sending it again", e.url, e.prefix)
	case errors.Is(e.err, nats.ErrAuthorization), errors.Is(e.err, nats.ErrPermissionViolation):
		return fmt.Sprintf("the NATS server at %s refused the request (check --token-file and --prefix %q): %v", e.url, e.prefix, e.err)
	}
	return fmt.Sprintf("no usable answer from the crawl at %s (prefix %q): %v", e.url, e.prefix, e.err)
}

// unreached returns an *unreachedError if err says the crawl was not reached (the
// NATS client's errors, which engine/attach wraps, or a reply that could not be
// read), nil if it is the crawl's refusal.
func unreached(err error, url, prefix string) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	for _, transport := range []error{nats.ErrNoResponders, nats.ErrTimeout, context.DeadlineExceeded,
		nats.ErrConnectionClosed, nats.ErrConnectionDraining, nats.ErrDisconnected, nats.ErrInvalidConnection,
		nats.ErrConnectionReconnecting, nats.ErrAuthorization, nats.ErrPermissionViolation, nats.ErrMaxPayload,
		nats.ErrBadSubject, nats.ErrReconnectBufExceeded} {
		if errors.Is(err, transport) {
			return &unreachedError{url, prefix, err}
		}
	}
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return &unreachedError{url, prefix, err}
	}
	return nil
}

// operatorPort serves eng's Control on a loopback NATS server at addr (crawl and
// demo --operator), for `crawlconsole ctl` and `console --attach`. stop undoes it.
func operatorPort(addr, db string, eng control.Control, stderr io.Writer, cmd string) (stop func(), err error) {
	if host, _, err := net.SplitHostPort(addr); err != nil || !isLoopbackHost(host) {
		return nil, fmt.Errorf("--operator %q: give a loopback address such as 127.0.0.1:4223 (the port steers the crawl; for other boxes run a master)", addr)
	}
	// Tried first, to say what to do: the embedded server's own error names its
	// --listen flag and NATS's wording, and nothing the crawl command takes.
	if ln, err := net.Listen("tcp", addr); err != nil {
		return nil, fmt.Errorf("--operator %s: %v%s", addr, err, inUseAdvice(err, "--operator"))
	} else {
		ln.Close()
	}
	token, file, err := masterToken(&tokenFlags{}, db)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(filepath.Dir(db), filepath.Base(db)+".operator-")
	if err != nil {
		return nil, fmt.Errorf("--operator: %v", err)
	}
	srv, err := embedded.Start(embedded.Options{Listen: addr, StoreDir: dir, Token: token})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("--operator: %v", strings.TrimPrefix(err.Error(), "cluster: "))
	}
	conn, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: "operator", Token: token})
	if err != nil {
		srv.Shutdown()
		os.RemoveAll(dir)
		return nil, err
	}
	stopAttach, err := attach.Serve(conn.NC, config.DefaultClusterPrefix, eng)
	if err != nil {
		conn.Close()
		srv.Shutdown()
		os.RemoveAll(dir)
		return nil, err
	}
	fmt.Fprintf(stderr, "crawlconsole %s: steer it with: crawlconsole ctl --attach %s --token-file %s COMMAND...\n", cmd, srv.ClientURL(), file)
	fmt.Fprintf(stderr, "crawlconsole %s: attach a console with: crawlconsole console --attach %s --token-file %s\n", cmd, srv.ClientURL(), file)
	return func() {
		stopAttach()
		conn.Close()
		srv.Shutdown()
		os.RemoveAll(dir)
	}, nil
}

// isLoopbackHost reports whether host is a loopback IP or "localhost".
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// inUseAdvice is what to do about a listen error of flag's address: another process
// has the port ("" for other errors).
func inUseAdvice(err error, flag string) string {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return ""
	}
	return fmt.Sprintf(" (another process listens on that port: give %s another port, or stop that process)", flag)
}
