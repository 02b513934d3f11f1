// Package embedded runs the master's NATS server with JetStream inside this process.
// It is the only package that links nats-server: the transport (package cluster) and
// everything above it reach a server, embedded or external, through nats.go alone.
package embedded

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DefaultMaxPayload is the largest message the embedded server accepts unless
// Options.MaxPayload says otherwise: crawl results carry page bodies.
const DefaultMaxPayload = 16 << 20

// maxPayloadLimit is the server's own ceiling (its default max_pending); a larger
// payload would make nats-server refuse to start.
const maxPayloadLimit = 64 << 20

// AuthTimeout is how long the server lets a client take to connect and authenticate:
// the transport's own connect bound (cluster.DefaultTimeout, which a test keeps equal).
// nats-server's default, 2 s, would refuse a worker on a loaded box or a slow link
// within that bound.
const AuthTimeout = 5 * time.Second

// readyTimeout bounds how long Start waits for the listener and JetStream.
const readyTimeout = 10 * time.Second

// Options configures the master's embedded NATS server. The zero value is not
// usable: Listen, StoreDir and Token are required.
type Options struct {
	// Listen is the client address, "host:port"; port 0 picks a free port
	// ("127.0.0.1:0" in tests). The CLI's default is 127.0.0.1:4222.
	Listen string
	// AllowRemote permits a Listen address other than loopback, for workers on other
	// machines. Without it a non-loopback address is refused.
	AllowRemote bool
	// StoreDir is where JetStream keeps its file storage (next to the crawl database);
	// unacknowledged tasks survive a master restart there.
	StoreDir string
	// Token is the credential every client must present (token auth). Required.
	Token string
	// TLSCert and TLSKey are PEM files; when set, every client must use TLS.
	TLSCert, TLSKey string
	// MaxPayload is the largest message in bytes; 0 means DefaultMaxPayload.
	MaxPayload int
	// Logf, if set, receives the server's log lines, from the server's goroutines;
	// nil discards them (the console owns the terminal: nothing is ever written to
	// stdout or stderr).
	Logf func(format string, args ...any)
}

// Server is a running embedded NATS server with JetStream.
type Server struct {
	ns  *server.Server
	url string
}

// Start validates o, starts the embedded server and waits until it accepts
// clients. The error says what was wrong and which flag to change.
func Start(o Options) (*Server, error) {
	opts, host, err := o.natsOptions()
	if err != nil {
		return nil, err
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: configure the embedded NATS server: %w", err)
	}
	log := &serverLog{logf: o.Logf}
	ns.SetLogger(log, false, false)
	ns.Start()
	// nats-server reports a failed listen or JetStream start through Fatalf and
	// returns from Start; the logger captured it instead of exiting the process.
	if msg := log.fatal(); msg != "" {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, startError(o, msg)
	}
	if !ns.ReadyForConnections(readyTimeout) {
		msg := log.fatal()
		ns.Shutdown()
		ns.WaitForShutdown()
		if msg == "" {
			msg = fmt.Sprintf("not ready after %s", readyTimeout)
		}
		return nil, startError(o, msg)
	}
	scheme := "nats"
	if opts.TLSConfig != nil {
		scheme = "tls"
	}
	port := ns.Addr().(*net.TCPAddr).Port
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(port))}
	return &Server{ns: ns, url: u.String()}, nil
}

// ClientURL is the address clients on this machine use: nats:// (or tls:// with TLS),
// a loopback host and the real port.
func (s *Server) ClientURL() string { return s.url }

// Shutdown stops the server and waits until it has stopped; JetStream's files are
// flushed, so a later Start on the same StoreDir resumes the streams.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// natsOptions turns o into nats-server options, plus the loopback host that
// ClientURL names.
func (o Options) natsOptions() (*server.Options, string, error) {
	if o.Token == "" {
		return nil, "", errors.New("cluster: no token for the master: workers must present one (set --token or --token-file)")
	}
	if o.StoreDir == "" {
		return nil, "", errors.New("cluster: no JetStream store directory: the master needs one next to the crawl database")
	}
	host, port, err := splitListen(o.Listen)
	if err != nil {
		return nil, "", err
	}
	if !o.AllowRemote && !isLoopback(host) {
		return nil, "", fmt.Errorf("cluster: --listen %s is not a loopback address: remote workers could reach the master; "+
			"listen on 127.0.0.1, or allow remote workers with --listen-remote (and use TLS: --tls-cert, --tls-key)", o.Listen)
	}
	maxPayload := o.MaxPayload
	if maxPayload == 0 {
		maxPayload = DefaultMaxPayload
	}
	if maxPayload < 0 || maxPayload > maxPayloadLimit {
		return nil, "", fmt.Errorf("cluster: max payload %d bytes is out of range: use 1..%d (0 for the default %d)",
			maxPayload, maxPayloadLimit, DefaultMaxPayload)
	}
	if port == 0 {
		port = server.RANDOM_PORT // nats-server reads 0 as its default 4222
	}
	opts := &server.Options{
		Host:          host,
		Port:          port,
		Authorization: o.Token,
		JetStream:     true,
		StoreDir:      o.StoreDir,
		MaxPayload:    int32(maxPayload),
		NoLog:         true,
		NoSigs:        true, // the CLI owns SIGINT/SIGTERM
		// The server waits as long as the client does (AuthTimeout).
		AuthTimeout: AuthTimeout.Seconds(),
		TLSTimeout:  AuthTimeout.Seconds(),
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		if o.TLSCert == "" || o.TLSKey == "" {
			return nil, "", errors.New("cluster: TLS needs both a certificate and a key (set --tls-cert and --tls-key together)")
		}
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, "", fmt.Errorf("cluster: load the master's TLS certificate %s and key %s: %w", o.TLSCert, o.TLSKey, err)
		}
		opts.TLS = true
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	clientHost := host
	if ip := net.ParseIP(host); host == "" || host == "localhost" || (ip != nil && ip.IsUnspecified()) {
		clientHost = "127.0.0.1"
	}
	return opts, clientHost, nil
}

// splitListen parses "host:port" with a numeric port.
func splitListen(listen string) (string, int, error) {
	host, p, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("cluster: --listen %q is not host:port (for example 127.0.0.1:4222): %w", listen, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("cluster: --listen %q has no valid port (0..65535)", listen)
	}
	return host, port, nil
}

// isLoopback reports whether host names only this machine; "" and 0.0.0.0 mean every
// interface, so they are not loopback.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// startError names the listen address in a start failure, the usual cause being a
// port already in use.
func startError(o Options, msg string) error {
	return fmt.Errorf("cluster: start the embedded NATS server on --listen %s (store %s): %s", o.Listen, o.StoreDir, msg)
}

// serverLog is nats-server's logger: it forwards lines to Logf, if any, and keeps the
// first fatal message so Start can return it instead of the process exiting.
type serverLog struct {
	logf     func(string, ...any)
	mu       sync.Mutex
	fatalMsg string
}

func (l *serverLog) fatal() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatalMsg
}

func (l *serverLog) line(level, format string, v []any) {
	if l.logf != nil {
		l.logf("nats "+level+": "+format, v...)
	}
}

// Noticef forwards a notice.
func (l *serverLog) Noticef(format string, v ...any) { l.line("notice", format, v) }

// Warnf forwards a warning.
func (l *serverLog) Warnf(format string, v ...any) { l.line("warn", format, v) }

// Errorf forwards an error.
func (l *serverLog) Errorf(format string, v ...any) { l.line("error", format, v) }

// Debugf forwards a debug line (only sent when debug is on, which it is not).
func (l *serverLog) Debugf(format string, v ...any) { l.line("debug", format, v) }

// Tracef forwards a trace line (only sent when tracing is on, which it is not).
func (l *serverLog) Tracef(format string, v ...any) { l.line("trace", format, v) }

// Fatalf records the first fatal message; it never exits.
func (l *serverLog) Fatalf(format string, v ...any) {
	l.mu.Lock()
	if l.fatalMsg == "" {
		l.fatalMsg = fmt.Sprintf(format, v...)
	}
	l.mu.Unlock()
	l.line("fatal", format, v)
}
