package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
)

// Live steering from a shell (issue 18): `crawlconsole ctl --attach URL WORDS...`
// sends the change the console's ":WORDS..." would, through the same operator port:
// the NATS subjects a master serves for `console --attach` (engine/attach). A crawl
// on one box has no such port unless started with --operator ADDR, which serves
// the same subjects from a small embedded NATS server on loopback, with the
// credential in DB.token (mode 0600) — the way a master's is kept.

const ctlUsage = `Usage: crawlconsole ctl --attach URL [--token-file FILE] COMMAND...

Makes one live steering change on a running crawl (started with --operator ADDR)
or master, as the console's ":" command of the same words would, and prints what
happened. Commands:
  seed add URL
  site add news URL [KEYWORD...]
  site add social NAME SEARCH-TEMPLATE [KEYWORD...]
  site rm NAME
  keyword add SITE WORD...
  keyword rm SITE WORD...
  budget SITE N [round|total]
  budget host HOST N [round|total]

Flags:
`

// runCtl implements `crawlconsole ctl`. Exit 0: done; 1: the crawl refused the
// change (the reason on stderr); 2: bad flags, command or connection.
func runCtl(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("attach", "", "the crawl's operator `URL` (a master's, or a crawl's --operator address)")
	ca := fs.String("ca", "", "CA `FILE` to trust a TLS master")
	prefix := fs.String("prefix", engine.DefaultClusterPrefix, "subject `PREFIX` of the crawl")
	var tf tokenFlags
	tf.add(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, ctlUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	if *url == "" {
		fmt.Fprintln(stderr, "crawlconsole ctl: --attach URL is required (printed by the master, or by crawl --operator)")
		return ExitUsage
	}
	s, err := engine.ParseSteer(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole ctl: %v\n", err)
		return ExitUsage
	}
	conn, err := operatorConn(*url, *ca, &tf, "ctl", "the crawl's")
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole ctl: %v\n", err)
		return ExitUsage
	}
	defer conn.Close()
	msg, err := attach.Dial(conn.NC, *prefix).Steer(s)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole ctl: %s: %v\n", s.String(), err)
		return 1
	}
	fmt.Fprintln(stdout, msg)
	return 0
}

// operatorPort serves eng's Control on a loopback NATS server at addr (crawl and
// demo --operator), for `crawlconsole ctl` and `console --attach`. stop undoes it.
func operatorPort(addr, db string, eng engine.Control, stderr io.Writer, cmd string) (stop func(), err error) {
	if host, _, err := net.SplitHostPort(addr); err != nil || !isLoopbackHost(host) {
		return nil, fmt.Errorf("--operator %q: give a loopback address such as 127.0.0.1:4223 (the port steers the crawl; for other boxes run a master)", addr)
	}
	token, file, err := masterToken(&tokenFlags{}, db)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(filepath.Dir(db), filepath.Base(db)+".operator-")
	if err != nil {
		return nil, fmt.Errorf("--operator: %v", err)
	}
	srv, err := cluster.StartServer(cluster.ServerOptions{Listen: addr, StoreDir: dir, Token: token})
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
	stopAttach, err := attach.Serve(conn.NC, engine.DefaultClusterPrefix, eng)
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
