package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/engine/worker"
	"github.com/crawlconsole/crawlconsole/ui"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// tokenEnv is where master and worker also look for the shared credential, so it
// need not appear on a command line (ps shows those).
const tokenEnv = "CRAWLCONSOLE_TOKEN"

// tokenFlags are the credential flags of master, worker and console --attach.
type tokenFlags struct{ token, file string }

func (t *tokenFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&t.token, "token", "", "the crawl's NATS credential `T` (prefer --token-file or $"+tokenEnv+")")
	fs.StringVar(&t.file, "token-file", "", "read the crawl's NATS credential from `FILE`")
}

// resolve returns the credential from the flags or the environment; "" if none.
func (t *tokenFlags) resolve() (string, error) {
	switch {
	case t.token != "":
		return t.token, nil
	case t.file != "":
		b, err := readCapped(t.file, 64<<10) // a token is a line; not a file to read whole
		if err != nil {
			return "", fmt.Errorf("--token-file: %v", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("--token-file %s is empty", t.file)
		}
		return tok, nil
	}
	return strings.TrimSpace(os.Getenv(tokenEnv)), nil
}

// operatorConn connects an operator's client (console --attach, ctl) to a crawl's
// NATS port with the credential the flags name; whose says which DB.token to give.
func operatorConn(url, ca string, tf *tokenFlags, name, whose string) (*cluster.Conn, error) {
	token, err := tf.resolve()
	if err == nil && token == "" {
		err = fmt.Errorf("no credential: give --token-file FILE (%s DB.token) or set $%s", whose, tokenEnv)
	}
	if err != nil {
		return nil, err
	}
	conn, err := cluster.Connect(url, cluster.ClientOptions{Name: name, Token: token, CAFile: ca})
	if err != nil {
		return nil, operatorConnError(url, err)
	}
	return conn, nil
}

// errNothingAccepted is a connect that found nothing listening at the address.
var errNothingAccepted = errors.New("nothing answers")

// operatorConnError words a failed connect of ctl or console --attach, which may
// be aimed at a master or at a one-box crawl's operator port: cluster's messages
// speak of "the master" only.
func operatorConnError(url string, err error) error {
	url = cluster.Redact(url) // a token written in the URL is not printed
	switch {
	case errors.Is(err, cluster.ErrAuth):
		return fmt.Errorf("%s refused the credential: give the token of the master or crawl there "+
			"(--token-file; it keeps it beside its database as DB.token)", url)
	case strings.Contains(err.Error(), "nothing accepted the connection"):
		return fmt.Errorf("%w at %s: is the master, or the crawl started with --operator, running, "+
			"and is the address right?", errNothingAccepted, url)
	}
	return err
}

// masterToken is the master's credential: given, or kept in PATH.token next to the
// database (created once, mode 0600), so a restarted master takes its workers back.
func masterToken(t *tokenFlags, db string) (tok, file string, err error) {
	if tok, err = t.resolve(); err != nil || tok != "" {
		return tok, t.file, err
	}
	file = db + ".token"
	if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), file, nil
	}
	var raw [24]byte
	rand.Read(raw[:])
	tok = hex.EncodeToString(raw[:])
	if err := os.WriteFile(file, []byte(tok+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("writing the crawl's credential to %s: %v", file, err)
	}
	return tok, file, nil
}

// runMaster implements `crawlconsole master`: the frontier, dedupe, store and console
// of a distributed crawl, with an embedded NATS server (JetStream) by default.
func runMaster(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCrawlFlags("master", "crawlconsole master [URL...] [crawl flags] [--listen ADDR | --nats URL]", stdout, stderr)
	listen := c.fs.String("listen", "127.0.0.1:4222", "embedded NATS server's client `ADDR` (loopback unless --listen-remote)")
	remote := c.fs.Bool("listen-remote", false, "allow a --listen address other than loopback (workers on other boxes)")
	natsURL := c.fs.String("nats", "", "use the NATS server (JetStream on) at `URL` instead of the embedded one")
	tlsCert := c.fs.String("tls-cert", "", "TLS certificate `FILE` of the embedded server (workers then need --ca)")
	tlsKey := c.fs.String("tls-key", "", "TLS key `FILE` of the embedded server")
	ca := c.fs.String("ca", "", "CA `FILE` to trust the --nats server's TLS certificate")
	prefix := c.fs.String("prefix", config.DefaultClusterPrefix, "subject `PREFIX` of this crawl on the NATS server")
	hb := c.fs.Duration("heartbeat", 5*time.Second, "workers' heartbeat period `D`; a lease is 3 periods, and silent for 4 = dead")
	var tf tokenFlags
	tf.add(c.fs)
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	opts, err := c.options(pos)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole master: %v\n", err)
		return ExitUsage
	}
	// A start that fails before the crawl runs leaves no store, credential or
	// NATS directory behind (removed after the deferred shutdowns below).
	fresh, handed := absentFiles(opts.DB), false
	defer func() {
		if !handed {
			fresh.remove()
		}
	}()
	token, tokenFile, err := masterToken(&tf, opts.DB)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole master: %v\n", err)
		return ExitUsage
	}
	url := *natsURL
	if url == "" {
		// Tried first, to say what to do: the embedded server's error is NATS's
		// ("Error listening on port: …"), with no word of the way out.
		if ln, err := net.Listen("tcp", *listen); err != nil && errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(stderr, "crawlconsole master: --listen %s: %v%s\n", *listen, err,
				strings.TrimSuffix(inUseAdvice(err, "--listen"), ")")+"; a master already running there is reached with console --attach or ctl --attach)")
			return ExitUsage
		} else if err == nil {
			ln.Close()
		}
		srv, err := embedded.Start(embedded.Options{Listen: *listen, AllowRemote: *remote,
			StoreDir: opts.DB + ".nats", Token: token, TLSCert: *tlsCert, TLSKey: *tlsKey})
		if err != nil {
			fmt.Fprintf(stderr, "crawlconsole master: %v\n", err)
			return ExitUsage
		}
		defer srv.Shutdown()
		url = srv.ClientURL()
	}
	// The master reaching its own embedded TLS server trusts the certificate it
	// serves: with a private CA it needed --ca as well, which nothing said.
	selfCA := *ca
	if *natsURL == "" && *tlsCert != "" && selfCA == "" {
		selfCA = *tlsCert
	}
	conn, err := cluster.Connect(url, cluster.ClientOptions{Name: "master", Token: token, CAFile: selfCA})
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole master: %v\n", err)
		return ExitUsage
	}
	defer conn.Close()
	// Lines to paste: the credential, and the CA when the others need one (a
	// --tls-cert of its own, or the --ca it was given for a --nats server).
	var join, after string
	if tokenFile != "" {
		join = " --token-file " + tokenFile
	} else {
		after = " (with $" + tokenEnv + " set)"
	}
	switch {
	case *ca != "":
		join += " --ca " + *ca
	case *tlsCert != "":
		join += " --ca CA.pem"
		after += "; CA.pem: the CA that signed " + *tlsCert
	}
	joinCmd := fmt.Sprintf("crawlconsole worker --join %s --name NAME%s%s%s", url, join, privateFlags(opts.AllowPrivate), after)
	before, resumes := resumeCounts(opts.DB)
	eng, err := engine.NewMaster(opts, config.MasterOptions{Conn: conn, Prefix: *prefix, HeartbeatEvery: *hb, Join: joinCmd})
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole master: %v%s\n", err, unwritableAdvice(err))
		return ExitUsage
	}
	if note := resumeNote(opts.DB, before, resumes, eng.RequeuedBlocked()); note != "" {
		fmt.Fprintf(stderr, "crawlconsole master: %s%s\n", note, eng.HeldHosts().Note())
	}
	stopAttach, err := attach.Serve(conn.NC, *prefix, eng)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole master: console subjects: %v\n", err)
		eng.Close()
		return 1
	}
	defer stopAttach()
	fmt.Fprintf(stderr, "crawlconsole master: workers join with: %s\n", joinCmd)
	fmt.Fprintf(stderr, "crawlconsole master: attach a console with: crawlconsole console --attach %s%s%s\n", url, join, after)
	handed = true
	return run(ctx, eng, runConfig{headless: c.headless, duration: c.duration, untilIdle: c.untilIdle,
		statsJSON: c.statsJSON, theme: c.theme, mouse: c.mouse, title: "master", metrics: c.metrics, seeds: c.seeds, said: c.said,
		failedStart: func() { handed = false }, db: opts.DB}, stdout, stderr)
}

// ExitUndelivered is the exit status of a worker that stopped before its master had
// everything it held (its server out of reach for --leave-grace, or the
// minute for tasks in hand over): the message on stderr counts the results and URLs,
// best effort, which the master queues again itself.
const ExitUndelivered = 4

// runWorker implements `crawlconsole worker`: lanes, egress rotation, DNS cache and
// fetching for the hosts its master gives it; no database. SIGTERM or SIGINT is a
// graceful leave (what it has not fetched goes back to the master).
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	join := fs.String("join", "", "the master's NATS `URL` (nats://HOST:4222, tls://... with TLS)")
	name := fs.String("name", "", "this worker's `NAME`, unique in the crawl (letters, digits, - and _)")
	ca := fs.String("ca", "", "CA `FILE` to trust a TLS master")
	prefix := fs.String("prefix", config.DefaultClusterPrefix, "subject `PREFIX` of the crawl")
	dnsServer := fs.String("dns-server", "", "resolve through the DNS server at `HOST:PORT` (default: the master's dns_servers)")
	lanes := fs.Int("lanes", 0, "most lanes fetching at once on this worker (`N`; default: the master's lanes.max)")
	joinWait := fs.Duration("join-wait", 0, "how long to wait for a master that does not answer yet (`DURATION`; 0: until it answers)")
	leaveGrace := fs.Duration("leave-grace", config.DefaultLeaveGrace, "how long a stopped worker waits for its master's NATS server out of reach (`DURATION`)")
	var egressSpecs, allow listFlag
	fs.Var(&egressSpecs, "egress", "this box's own egress `SPEC` (bind:IP, http://..., socks5://...); repeatable")
	fs.Var(&allow, "allow-private", "let this worker's SSRF guard through `CIDR`; repeatable")
	var mf metricsFlags
	mf.add(fs)
	var tf tokenFlags
	tf.add(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: crawlconsole worker --join URL --name NAME [--token-file FILE] [--egress SPEC]...\n\n"+
			"Fetches for a master (crawlconsole master), waiting for it (with backoff; --join-wait bounds it)\n"+
			"when it does not answer yet; SIGTERM leaves gracefully (with the master's server\n"+
			"out of reach for --leave-grace, or its tasks in hand unfinished after a minute, it stops anyway: exit 4,\n"+
			"and a line counting what the master did not get).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := clikit.Parse(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "crawlconsole worker: "+format+"\n", a...)
		return ExitUsage
	}
	if *join == "" || *name == "" {
		return clikit.Usage(stderr, "worker", "--join URL and --name NAME are required")
	}
	if err := config.ValidNodeName(*name); err != nil {
		return fail("%v", err)
	}
	if err := mf.check(); err != nil {
		return fail("%v", err)
	}
	token, err := tf.resolve()
	if err != nil {
		return fail("%v", err)
	}
	if token == "" {
		return fail("no credential: give --token-file FILE (the master's DB.token) or set $%s", tokenEnv)
	}
	// --metrics is bound before joining: a busy address is a usage error, not a
	// worker that joined and then quit.
	msrv, err := mf.listen()
	if err != nil {
		return fail("%v", err)
	}
	if *joinWait < 0 {
		return fail("--join-wait %v: a duration >= 0 (0: wait until the master answers)", *joinWait)
	}
	if *leaveGrace <= 0 {
		return fail("--leave-grace %v: a duration > 0", *leaveGrace)
	}
	if err := bindNotLocal(egressSpecs); err != nil {
		return fail("%v", err)
	}
	for _, w := range proxyWarnings(egressSpecs) {
		fmt.Fprintf(stderr, "worker %s: warning: %s\n", *name, w)
	}
	wo := config.WorkerOptions{Prefix: *prefix, Node: *name, Egress: egressSpecs,
		AllowPrivate: allow, LanesMax: *lanes, LeaveGrace: *leaveGrace}
	if *dnsServer != "" {
		wo.DNSServers = []string{*dnsServer}
	}
	say := func(format string, a ...any) {
		fmt.Fprintf(stderr, "worker %s: "+format+"\n", append([]any{*name}, a...)...)
	}
	conn, w, err := joinMaster(ctx, *join, cluster.ClientOptions{Name: *name, Token: token, CAFile: *ca}, wo, *joinWait, say)
	if err != nil {
		if msrv != nil {
			msrv.Close()
		}
		if errors.Is(err, errStoppedJoining) {
			say("%v", err)
			return 1
		}
		return fail("%v", err)
	}
	defer conn.Close()
	defer serveOn(msrv, w.Engine(), stderr)()
	fmt.Fprintf(stdout, "worker %s: joined %s\n", *name, *join)
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	// Warnings are printed as they come: the worker's own (the master unreachable,
	// back, a rejoin) each time, a host's as a headless crawl prints them, each
	// distinct one once (a dead host's robots.txt warned again at every retry).
	events := time.NewTicker(time.Second)
	defer events.Stop()
	warns := newWarnReporter(stderr)
	warns.who = "worker " + *name
	defer warns.finish()
	var lastEvent uint64
	for {
		select {
		case <-events.C:
			for _, ev := range w.Engine().EventsSince(lastEvent, 0) {
				lastEvent = ev.Seq
				workerWarning(ev, warns, say)
			}
		case <-ctx.Done():
			// Tasks in hand get a minute to finish; a master whose server is out of
			// reach, --leave-grace to come back.
			lctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			err := w.Leave(lctx)
			cancel()
			var le *worker.LeaveError
			switch {
			case errors.As(err, &le):
				// The master was not reached, whether or not the worker held anything
				// (the line says which).
				fmt.Fprintf(stderr, "crawlconsole worker: %s stopped: %v\n", *name, err)
				return ExitUndelivered
			case err != nil:
				fmt.Fprintf(stderr, "crawlconsole worker: leave: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "worker %s: left; unfetched URLs handed back\n", *name)
			return 0
		case <-t.C:
			fmt.Fprintf(stdout, "worker %s: %s\n", *name, progress(w.Engine().Snapshot()))
		}
	}
}

// workerWarning prints a worker's event if it is a warning: one about a host
// through warns, once per kind; the worker's own every time, since each says a
// change of its link to the master.
func workerWarning(ev view.Event, warns *warnReporter, say func(string, ...any)) {
	switch {
	case ev.Level < view.LevelWarn:
	case ev.Host == "":
		say("%s", ev.Msg)
	default:
		warns.add(ev)
	}
}

// LocalCluster is a master and its workers in one process over an embedded NATS
// server on loopback: `demo --workers N` and the distributed benchmark.
type LocalCluster struct {
	Master  *engine.Engine
	Workers []*engine.Worker
	srv     *embedded.Server
	conns   []*cluster.Conn
	dir     string // the server's JetStream storage
}

// StartLocalCluster starts the master for opts (not yet started: call Master.Start or
// hand it to run) and, once it runs, n workers; worker i leaves from the addresses
// binds(i) and resolves through dns (empty: the master's dns_servers).
func StartLocalCluster(opts config.Options, n int, binds func(i int) []string, dns []string, hb time.Duration) (*LocalCluster, error) {
	dir, err := os.MkdirTemp("", "crawlconsole-nats-")
	if err != nil {
		return nil, err
	}
	var raw [16]byte
	rand.Read(raw[:])
	token := hex.EncodeToString(raw[:])
	lc := &LocalCluster{dir: dir}
	lc.srv, err = embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: dir, Token: token})
	if err != nil {
		lc.Close()
		return nil, err
	}
	connect := func(name string) (*cluster.Conn, error) {
		c, err := cluster.Connect(lc.srv.ClientURL(), cluster.ClientOptions{Name: name, Token: token})
		if err == nil {
			lc.conns = append(lc.conns, c)
		}
		return c, err
	}
	conn, err := connect("master")
	if err != nil {
		lc.Close()
		return nil, err
	}
	if lc.Master, err = engine.NewMaster(opts, config.MasterOptions{Conn: conn, HeartbeatEvery: hb}); err != nil {
		lc.Close()
		return nil, err
	}
	if err := lc.Master.Start(); err != nil {
		lc.Close()
		return nil, err
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("w%d", i+1)
		c, err := connect(name)
		if err != nil {
			lc.Close()
			return nil, err
		}
		var egress []string
		for _, b := range binds(i) {
			egress = append(egress, "bind:"+b)
		}
		w, err := engine.StartWorker(config.WorkerOptions{Conn: c, Node: name, Egress: egress,
			AllowPrivate: opts.AllowPrivate, DNSServers: dns})
		if err != nil {
			lc.Close()
			return nil, err
		}
		lc.Workers = append(lc.Workers, w)
	}
	return lc, nil
}

// Close stops the workers, then the master (if still running), then the server.
func (lc *LocalCluster) Close() {
	for _, w := range lc.Workers {
		w.Close()
	}
	if lc.Master != nil {
		lc.Master.Close()
	}
	for _, c := range lc.conns {
		c.Close()
	}
	if lc.srv != nil {
		lc.srv.Shutdown()
	}
	os.RemoveAll(lc.dir)
}

// runConsole implements `crawlconsole console --attach URL`: the operator console of
// a running master, from another terminal or box (seed 002: monitoring is separate
// from the crawl server), or of a one-box crawl or demo through its --operator port.
// Quitting it leaves the crawl running.
func runConsole(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("attach", "", "the crawl's operator `URL`: a master's NATS address (as workers --join it), or a crawl's or demo's --operator address")
	ca := fs.String("ca", "", "CA `FILE` to trust a TLS master")
	prefix := fs.String("prefix", config.DefaultClusterPrefix, "subject `PREFIX` of the crawl")
	theme := fs.String("theme", "dark", "console theme `NAME`: dark, light, high-contrast, mono")
	mouse := fs.Bool("mouse", false, "enable mouse in the console")
	var tf tokenFlags
	tf.add(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: crawlconsole console --attach URL --token-file FILE\n\n"+
			"Attaches the console to a running master, or to a one-box crawl or demo started with\n"+
			"--operator ADDR (its address and DB.token are printed at start). Quitting leaves the crawl running.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := clikit.Parse(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	if *url == "" {
		return clikit.Usage(stderr, "console", "--attach URL is required (the master's NATS address, or a crawl's --operator address)")
	}
	conn, err := operatorConn(*url, *ca, &tf, "console", "the crawl's")
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole console: %v\n", err)
		return ExitUsage
	}
	defer conn.Close()
	ctrl := attach.Dial(conn.NC, *prefix)
	if err := ui.Run(ctx, ctrl, ui.Options{Theme: *theme, Mouse: *mouse,
		Title: attachedTitle(ctrl), Detached: true}); err != nil {
		fmt.Fprintf(stderr, "crawlconsole console: %v\n", err)
		return 1
	}
	return 0
}

// attachedTitle is an attached console's title: what it is attached to, a master or
// a one-box crawl's (or demo's) operator port; a master's snapshot has its workers'
// heartbeat period. Nothing answering yet, it claims neither. (The header has no
// room for the address as well: the state beside it may be "master unreachable".)
func attachedTitle(ctrl control.Control) string {
	switch s := ctrl.Snapshot(); {
	case attach.Unreachable(s.State):
		return "crawlconsole (attached)"
	case s.HeartbeatEvery > 0:
		return "crawlconsole master (attached)"
	default:
		return "crawlconsole crawl (attached)"
	}
}

// privateFlags are the --allow-private flags a worker needs to fetch what the
// master was told to crawl: the SSRF guard is each worker's own, so a worker
// started from a join line without them fails every loopback or LAN URL as
// ssrf_blocked.
func privateFlags(ranges []string) string {
	var b strings.Builder
	for _, r := range ranges {
		b.WriteString(" --allow-private " + r)
	}
	return b.String()
}
