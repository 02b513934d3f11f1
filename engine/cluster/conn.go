package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrAuth is wrapped by Connect's error when the master refused the credential.
var ErrAuth = errors.New("the master refused the credential (check --token / --token-file)")

// DefaultTimeout bounds the first connect (dial, TLS and handshake) unless
// ClientOptions.Timeout says otherwise.
const DefaultTimeout = 5 * time.Second

// reconnectWait is the pause between reconnect attempts: short, so a worker resumes
// soon after the master is back.
const reconnectWait = 250 * time.Millisecond

// reconnectBuf is how many bytes of publishes are held while the master is away; a
// few full-size results fit (DefaultMaxPayload is 16 MiB).
const reconnectBuf = 128 << 20

// ClientOptions configures Connect.
type ClientOptions struct {
	// Name identifies the client in the server's connection list (a worker's name).
	Name string
	// Token is the master's credential; empty connects anonymously, which the
	// master refuses.
	Token string
	// CAFile is a PEM file of the CA that signed a TLS master's certificate;
	// setting it requires TLS.
	CAFile string
	// Timeout bounds the first connect; 0 means DefaultTimeout.
	Timeout time.Duration
	// Logf, if set, receives disconnects, reconnects and asynchronous errors, from
	// nats.go's goroutines; nil discards them (nats.go's default prints to stderr,
	// under the console).
	Logf func(format string, args ...any)
}

// Conn is a connection to the master's NATS server, with its JetStream context.
// After the first connect it reconnects forever, buffering publishes meanwhile.
type Conn struct {
	// NC is the core NATS connection.
	NC *nats.Conn
	// JS is the JetStream API on NC.
	JS jetstream.JetStream

	timeout time.Duration
}

// Connect dials the master at rawURL. The first connect fails fast, with an error
// naming the cause: ErrAuth, an unreachable master, or an untrusted TLS certificate.
// Later disconnects are retried forever.
func Connect(rawURL string, o ClientOptions) (*Conn, error) {
	shown := Redact(rawURL)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.Timeout(timeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.ReconnectBufSize(reconnectBuf),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if sub != nil {
				logf("nats: %s: %v", sub.Subject, err)
				return
			}
			logf("nats: %v", err)
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				logf("nats: disconnected from %s: %v", shown, err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { logf("nats: reconnected to %s", shown) }),
	}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	if o.CAFile != "" {
		if err := checkCA(o.CAFile); err != nil {
			return nil, err
		}
		opts = append(opts, nats.RootCAs(o.CAFile))
	}
	nc, err := nats.Connect(rawURL, opts...)
	if err != nil {
		return nil, connectError(shown, o, err)
	}
	if v := nc.ConnectedServerVersion(); !atLeast(v, 2, 9) {
		nc.Close()
		return nil, fmt.Errorf("cluster: the master at %s runs nats-server %s; crawlconsole needs 2.9 or newer", shown, v)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: JetStream on %s: %w", shown, err)
	}
	return &Conn{NC: nc, JS: js, timeout: timeout}, nil
}

// Close flushes what was published (waiting at most the connect timeout, and not at
// all while the master is away) and closes the connection.
func (c *Conn) Close() {
	if c.NC.IsConnected() {
		_ = c.NC.FlushTimeout(c.timeout)
	}
	c.NC.Close()
}

// atLeast reports whether a server version "MAJOR.MINOR.PATCH[-pre]" is at least
// major.minor; an unparsable version passes (the server said nothing useful).
func atLeast(version string, major, minor int) bool {
	var maj, min int
	if _, err := fmt.Sscanf(version, "%d.%d", &maj, &min); err != nil {
		return true
	}
	return maj > major || (maj == major && min >= minor)
}

// checkCA reads a PEM CA file up front, so a bad --ca is named as such rather than
// reported as an unreachable master.
func checkCA(file string) error {
	pem, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("cluster: cannot read --ca %s: %w", file, err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("cluster: --ca %s holds no PEM certificate", file)
	}
	return nil
}

// connectError turns a failed first connect into a message that says what to fix.
func connectError(shown string, o ClientOptions, err error) error {
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case isAuthError(err):
		return fmt.Errorf("cluster: %w (master %s: %v)", ErrAuth, shown, err)
	case errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalid), errors.As(err, &verify):
		if o.CAFile == "" {
			return fmt.Errorf("cluster: the master at %s uses TLS with a certificate this machine does not trust: "+
				"pass the master's CA certificate with --ca: %w", shown, err)
		}
		return fmt.Errorf("cluster: the master's TLS certificate at %s is not trusted by --ca %s "+
			"(wrong CA file, or a certificate not issued for this address): %w", shown, o.CAFile, err)
	case errors.Is(err, nats.ErrSecureConnWanted):
		return fmt.Errorf("cluster: the master at %s does not use TLS, but TLS was asked for (--ca or a tls:// URL): %w", shown, err)
	case errors.Is(err, nats.ErrNoServers):
		return fmt.Errorf("cluster: cannot reach the master at %s: %w (nothing accepted the connection: is the master running, and is the address right?)", shown, err)
	default:
		return fmt.Errorf("cluster: cannot reach the master at %s: %w", shown, err)
	}
}

// isAuthError recognises the server's refusal of a credential; older servers send it
// as a plain -ERR line, which nats.go may surface as text only.
func isAuthError(err error) bool {
	if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) {
		return true
	}
	return strings.Contains(strings.ToLower(err.Error()), "authorization violation")
}

// Redact drops a user or token embedded in the URL, so errors and logs never show it.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	u.User = nil
	return u.String()
}
