package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/ui"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
	"github.com/crawlconsole/crawlconsole/ui/ssh"
)

// runServe implements `crawlconsole serve`: the crawl runs headless on this box and
// the console is served to SSH clients (operators steer, viewers watch). Closing a
// session never stops the crawl; SIGINT/SIGTERM (or --duration) does.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCrawlFlags("serve", "crawlconsole serve --ssh ADDR --host-key FILE --authorized-keys FILE [--viewer-keys FILE] [crawl flags] [URL...]", stdout, stderr)
	addr := c.fs.String("ssh", "", "listen for SSH on `ADDR` (e.g. 127.0.0.1:2222)")
	hostKey := c.fs.String("host-key", "", "SSH host key `FILE` (ed25519, created with mode 0600 if missing)")
	operators := c.fs.String("authorized-keys", "", "operators' public keys `FILE` (authorized_keys format)")
	viewers := c.fs.String("viewer-keys", "", "watch-only public keys `FILE` (optional)")
	idle := c.fs.Duration("idle-timeout", 30*time.Minute, "close an SSH connection after `D` without input from the client")
	grace := c.fs.Duration("login-grace", 30*time.Second, "close a connection that has not logged in after `D`")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	for _, req := range []struct{ flag, v string }{{"--ssh", *addr}, {"--host-key", *hostKey}, {"--authorized-keys", *operators}} {
		if req.v == "" {
			return clikit.Usage(stderr, "serve", req.flag+" is required")
		}
	}
	if _, err := os.Stat(*operators); err != nil {
		fmt.Fprintf(stderr, "crawlconsole serve: --authorized-keys: %v\n", err)
		return ExitUsage
	}
	opts, err := c.options(pos)
	if err == nil {
		err = bindNotLocal(opts.Egress)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole serve: %v\n", err)
		return ExitUsage
	}
	for _, w := range proxyWarnings(opts.Egress) {
		fmt.Fprintf(stderr, "crawlconsole serve: warning: %s\n", w)
	}
	so := ssh.ServeOptions{Addr: *addr, HostKeyPath: *hostKey, AuthorizedKeysPath: *operators,
		ViewerKeysPath: *viewers, Logger: stderr, IdleTimeout: *idle, LoginGrace: *grace, Options: ui.Options{Theme: c.theme, Title: "crawlconsole serve"}}
	// The keys, the host key and the address are checked, and the port taken, before
	// the crawl starts: a serve that cannot serve exits 2 with nothing crawled.
	if so, err = ssh.PrepareServe(so); err != nil {
		fmt.Fprintf(stderr, "crawlconsole serve: %v\n", strings.TrimPrefix(err.Error(), "serve: "))
		return ExitUsage
	}
	// As crawl: a start that fails leaves no store it created, a resume says what it
	// resumes, and a stop with URLs left says how to go on.
	fresh := absentFiles(opts.DB)
	before, resumes := resumeCounts(opts.DB)
	eng, err := engine.New(opts)
	if err != nil {
		so.Listener.Close()
		fmt.Fprintf(stderr, "crawlconsole serve: %v%s\n", err, unwritableAdvice(err))
		fresh.remove()
		return ExitUsage
	}
	if note := resumeNote(opts.DB, before, resumes, eng.RequeuedBlocked()); note != "" {
		fmt.Fprintf(stderr, "crawlconsole serve: %s%s\n", note, eng.HeldHosts().Note())
	}
	rc := runConfig{headless: true, duration: c.duration, untilIdle: c.untilIdle, statsJSON: c.statsJSON, metrics: c.metrics, seeds: c.seeds, said: c.said,
		failedStart: fresh.remove, db: opts.DB, title: "serve",
		alongside: func(ctx context.Context, ctrl control.Control) error {
			fmt.Fprintf(stderr, "serving the console over SSH on %s%s\n", so.Listener.Addr(), sshHint(so.Listener.Addr().String()))
			return ssh.Serve(ctx, ctrl, so)
		}}
	return run(ctx, eng, rc, stdout, stderr)
}

// sshHint is how to reach the console with OpenSSH: the port is a flag of its own
// (ssh takes no HOST:PORT), and an operator's key logs in as any user name.
func sshHint(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		host = "HOST" // every address of the box: the operator knows which to use
	}
	return fmt.Sprintf(" (connect: ssh -p %s %s)", port, host)
}
