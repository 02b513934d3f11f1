// Package ssh serves crawlconsole's console to SSH clients (charmbracelet/wish): each
// session gets its own console (ui.NewModel) over the one control.Control, rendered
// for the client's terminal, and the engine keeps running whatever the sessions do.
//
// Who may do what comes from two authorized_keys files: keys in the operators' file
// steer the crawl, keys in the viewers' file may only watch (every control answers
// ui.ReadOnlyText), any other key is refused. The files are read again while sessions
// last, so removing a key (or moving it between the files) closes its connections. A
// key line with options (from=, restrict, ...) is refused at start: the server does
// not enforce them, and ignoring them would grant more than the line says.
//
// The host key is an ed25519 key created once with mode 0600 and refused if others
// can read it. Connections that have not logged in are bounded (preauth.go): each
// has a login grace time and only so many may wait at once, in all and per address;
// at a cap the oldest one that has not finished key exchange is dropped and its
// source penalised, so a flood of half-open connections does not shut operators out.
package ssh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/activeterm"
	"github.com/charmbracelet/wish/bubbletea"
	"github.com/charmbracelet/wish/ratelimiter"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/ui"
)

// ServeOptions configure the SSH console server.
type ServeOptions struct {
	// Addr is the listen address, e.g. "127.0.0.1:2222". Ignored when Listener is set.
	Addr string
	// Listener, if set, is served instead of listening on Addr (tests pass one bound
	// to 127.0.0.1:0). Serve closes it.
	Listener net.Listener
	// HostKeyPath is the server's ed25519 host key: created once with mode 0600,
	// reused afterwards so clients keep trusting the same fingerprint.
	HostKeyPath string
	// AuthorizedKeysPath lists the operators' public keys (authorized_keys format).
	// Required. Operators can steer the crawl.
	AuthorizedKeysPath string
	// ViewerKeysPath optionally lists viewers' keys: they may only watch; every
	// control answers "read-only session".
	ViewerKeysPath string
	// Logger receives one line per session connect and disconnect; default
	// io.Discard. Never stdout: stdout may be the operator's terminal.
	Logger io.Writer
	// RateLimit is the sessions per second one client IP may open; default 1.
	RateLimit float64
	// RateBurst is how many sessions a client IP may open at once; default 5.
	RateBurst int
	// LoginGrace is how long a connection may take to log in (default 30s); at most
	// MaxUnauthenticated connections (default 64), MaxUnauthenticatedPerIP from one
	// address (default 8), may be waiting to log in at once. Past a cap the oldest
	// waiting connection that has not finished key exchange makes room (preauth.go).
	LoginGrace              time.Duration
	MaxUnauthenticated      int
	MaxUnauthenticatedPerIP int
	// IdleTimeout closes a connection, logged in or not, after this long without
	// anything from the client (default 30m; the console needs no keys to watch, so
	// a watching session that never types ends too).
	IdleTimeout time.Duration
	// KeyRecheck is how often a live session's key is looked up again in the key
	// files (default 2s): removing a key ends its sessions.
	KeyRecheck time.Duration
	// Options apply to every session's console; Detached is always set (closing a
	// session never stops the engine) and ReadOnly is forced for viewers.
	ui.Options
}

func (so ServeOptions) withDefaults() ServeOptions {
	if so.Logger == nil {
		so.Logger = io.Discard
	}
	orDefault(&so.RateLimit, 1)
	orDefault(&so.RateBurst, 5)
	orDefault(&so.LoginGrace, 30*time.Second)
	orDefault(&so.MaxUnauthenticated, 64)
	orDefault(&so.MaxUnauthenticatedPerIP, 8)
	orDefault(&so.IdleTimeout, 30*time.Minute)
	orDefault(&so.KeyRecheck, 2*time.Second)
	return so
}

// orDefault sets an option left at zero (or given below it) to its default d.
func orDefault[T ~int | ~int64 | ~float64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// role is what an authenticated key may do.
type role uint8

const (
	roleOperator role = iota + 1
	roleViewer
)

type roleKey struct{}

// PrepareServe checks what Serve needs before anything else starts: the key files
// (at least one key), the host key (created if missing, refused if others can read
// it) and the listening address. It returns so with its Listener open, so that a
// crawl is not started only to find it cannot be served; Serve checks the keys again.
func PrepareServe(so ServeOptions) (ServeOptions, error) {
	so, _, err := prepareServe(so)
	return so, err
}

func prepareServe(so ServeOptions) (ServeOptions, *keyring, error) {
	so = so.withDefaults()
	if so.AuthorizedKeysPath == "" {
		return so, nil, errors.New("serve: an authorized keys file (operators) is required")
	}
	keys := &keyring{operators: so.AuthorizedKeysPath, viewers: so.ViewerKeysPath}
	if ks, err := keys.load(); err != nil {
		return so, nil, fmt.Errorf("serve: %w", err)
	} else if len(ks.operators)+len(ks.viewers) == 0 {
		return so, nil, fmt.Errorf("serve: no public keys in %s %s: nobody could connect", so.AuthorizedKeysPath, so.ViewerKeysPath)
	}
	if so.HostKeyPath == "" {
		return so, nil, errors.New("serve: a host key path is required")
	}
	if err := ensureHostKey(so.HostKeyPath); err != nil {
		return so, nil, fmt.Errorf("serve: host key: %w", err)
	}
	if so.Listener == nil {
		ln, err := net.Listen("tcp", so.Addr)
		if err != nil {
			return so, nil, fmt.Errorf("serve: %w", err)
		}
		so.Listener = ln
	}
	return so, keys, nil
}

// sessionDrainTimeout bounds how long Serve waits for sessions to end after ctx is
// done (their connections are already closed; this is only their handlers' exit).
const sessionDrainTimeout = 5 * time.Second

// Serve serves the console to SSH clients until ctx is done, then closes every
// session and returns. Each session gets its own console (view state, renderer for
// the client's terminal). The engine keeps running whatever the sessions do.
func Serve(ctx context.Context, ctrl control.Control, so ServeOptions) error {
	given := so.Listener
	so, keys, err := prepareServe(so)
	if err != nil {
		if given != nil {
			given.Close() // Serve owns the listener it is given, failing or not
		}
		return err
	}
	ln := so.Listener

	var sessions sync.WaitGroup
	track := func(next ssh.Handler) ssh.Handler {
		return func(s ssh.Session) {
			sessions.Add(1)
			defer sessions.Done()
			next(s)
		}
	}
	logger := log.New(so.Logger, "ssh ", log.LstdFlags)
	limiter := ratelimiter.NewRateLimiter(rate.Limit(so.RateLimit), so.RateBurst, 1024)
	gate := newPreauth(so.LoginGrace, so.MaxUnauthenticated, so.MaxUnauthenticatedPerIP)
	srv, err := wish.NewServer(
		wish.WithHostKeyPath(so.HostKeyPath),
		wish.WithIdleTimeout(so.IdleTimeout),
		func(s *ssh.Server) error {
			s.ConnCallback = gate.accept
			// Called at the first authentication request, which comes only after key
			// exchange: from then on the connection is not among the first dropped.
			s.BannerHandler = func(ctx ssh.Context) string { keyExchanged(ctx); return "" }
			return nil
		},
		// The callback only says whether the key is known at all; what the session
		// may do is decided after authentication, in roleMiddleware.
		wish.WithPublicKeyAuth(func(ctx ssh.Context, k ssh.PublicKey) bool {
			_, ok := keys.role(k)
			if ok {
				loggedIn(ctx)
			} else {
				logRefusedKey(ctx, logger, k)
			}
			return ok
		}),
		wish.WithMiddleware( // the last one runs first
			bubbletea.Middleware(sessionHandler(ctrl, so.Options)),
			activeterm.Middleware(),
			roleMiddleware(keys, so.KeyRecheck, logger),
			ratelimiter.Middleware(limiter),
			sessionLog(logger),
			track,
		),
	)
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		srv.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	srv.Close() // closes the listener and every connection: sessions end
	<-served
	done := make(chan struct{})
	go func() { sessions.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(sessionDrainTimeout):
	}
	return nil
}

// sessionHandler builds one console per SSH session, styled by the session's own
// renderer (the client's terminal and NO_COLOR, not the server's). The session's
// PTY is wish's emulated one: MakeRenderer asks the client terminal for its
// background colour and device attributes, which every VT100-style terminal
// answers at once. (A real PTY via ssh.AllocatePty races with bubbletea's reader
// when a connection drops.)
func sessionHandler(ctrl control.Control, base ui.Options) bubbletea.Handler {
	return func(s ssh.Session) (tea.Model, []tea.ProgramOption) {
		o := base
		o.Detached = true
		if r, _ := s.Context().Value(roleKey{}).(role); r != roleOperator {
			o.ReadOnly = true
		}
		m := ui.NewModel(ctrl, o, bubbletea.MakeRenderer(s))
		// Signals are the server's (Serve stops on its ctx), not each session's.
		popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithoutSignalHandler(), tea.WithFPS(30)}
		if o.Mouse {
			popts = append(popts, tea.WithMouseCellMotion())
		}
		return m, popts
	}
}

// roleMiddleware decides, after authentication, whether the session's key is an
// operator's or a viewer's, and refuses any other (defence in depth: the key
// files may have changed since the handshake).
//
// While the session lasts the key files are checked again every recheck: a session
// whose key was removed (or whose role changed) is closed, so a removed key
// does not keep control through a session it opened before.
func roleMiddleware(keys *keyring, recheck time.Duration, logger *log.Logger) wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		return func(s ssh.Session) {
			r, ok := keys.role(s.PublicKey())
			if !ok {
				wish.Fatalln(s, "crawlconsole: this key may not use the console")
				return
			}
			s.Context().SetValue(roleKey{}, r)
			name := "operator"
			if r == roleViewer {
				name = "viewer (read-only)"
			}
			logger.Printf("%s session for key %s (user %s) from %s", name, gossh.FingerprintSHA256(s.PublicKey()), s.User(), s.RemoteAddr())
			done := make(chan struct{})
			defer close(done)
			go func() {
				t := time.NewTicker(recheck)
				defer t.Stop()
				for {
					select {
					case <-done:
						return
					case <-s.Context().Done():
						return
					case <-t.C:
						if now, ok := keys.role(s.PublicKey()); !ok || now != r {
							wish.Fatalln(s, "crawlconsole: this key was removed or changed in the key files: session closed")
							// The whole connection: the key authenticated all of it.
							if c, ok := s.Context().Value(ssh.ContextKeyConn).(gossh.Conn); ok {
								c.Close()
							}
							return
						}
					}
				}
			}()
			next(s)
		}
	}
}

// sessionLog logs the end of each session: whose, from where, after how long. Its
// start is roleMiddleware's line, which names the key and the role. In place of
// wish's logging middleware, whose bare fields ("root connect ADDR true [] xterm
// 80 24 SSH-2.0-…", "ADDR disconnect 13.097174115s") say nothing among the
// progress lines.
func sessionLog(logger *log.Logger) wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		return func(s ssh.Session) {
			start := time.Now()
			next(s)
			logger.Printf("session of user %s from %s closed after %s", s.User(), s.RemoteAddr(), time.Since(start).Round(100*time.Millisecond))
		}
	}
}

type refusedKeys struct{}

// logRefusedKey logs a key that is in neither key file, once per connection (a
// client offers each of its keys, and may ask about one twice).
func logRefusedKey(ctx ssh.Context, logger *log.Logger, k ssh.PublicKey) {
	seen, _ := ctx.Value(refusedKeys{}).(map[string]bool)
	if seen == nil {
		seen = map[string]bool{}
		ctx.SetValue(refusedKeys{}, seen)
	}
	fp := gossh.FingerprintSHA256(k)
	if seen[fp] {
		return
	}
	seen[fp] = true
	logger.Printf("refused key %s (user %s) from %s: not in the operators' or viewers' key files", fp, ctx.User(), ctx.RemoteAddr())
}

// keyring reads the operator and viewer key files. They are re-read on every
// check, so removing a key takes effect for the next connection without a restart.
type keyring struct {
	operators, viewers string
}

type keySets struct{ operators, viewers []gossh.PublicKey }

func (k *keyring) load() (keySets, error) {
	var ks keySets
	var err error
	if ks.operators, err = readAuthorizedKeys(k.operators); err != nil {
		return ks, err
	}
	if k.viewers != "" {
		if ks.viewers, err = readAuthorizedKeys(k.viewers); err != nil {
			return ks, err
		}
	}
	return ks, nil
}

// role says what key may do; an operator listed as a viewer too stays an operator.
func (k *keyring) role(key ssh.PublicKey) (role, bool) {
	if key == nil {
		return 0, false
	}
	ks, err := k.load()
	if err != nil {
		return 0, false
	}
	for _, o := range ks.operators {
		if ssh.KeysEqual(o, key) {
			return roleOperator, true
		}
	}
	for _, v := range ks.viewers {
		if ssh.KeysEqual(v, key) {
			return roleViewer, true
		}
	}
	return 0, false
}

// maxKeyFileBytes caps a key file, read again at every key check: thousands of keys.
const maxKeyFileBytes = 1 << 20

// readAuthorizedKeys parses an authorized_keys file (comments and blank lines ok).
func readAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	f.Close()
	if err != nil {
		return nil, err
	}
	if len(data) > maxKeyFileBytes {
		return nil, fmt.Errorf("%s is over the %d KiB a key file may be", path, maxKeyFileBytes>>10)
	}
	var out []gossh.PublicKey
	for len(data) > 0 {
		k, comment, options, rest, err := gossh.ParseAuthorizedKey(data)
		if err != nil {
			if len(out) == 0 && !onlyComments(data) {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			break
		}
		if len(options) > 0 {
			// from=, expiry-time=, restrict, ... would be silently ignored: a key
			// restricted to one address would log in from any. Refuse it loudly.
			return nil, fmt.Errorf("%s: key %q carries options (%s) crawlconsole does not enforce: remove them, or give that key its own line without options",
				path, comment, strings.Join(options, ","))
		}
		out = append(out, k)
		data = rest
	}
	return out, nil
}

func onlyComments(data []byte) bool {
	for _, line := range splitLines(data) {
		for _, c := range line {
			if c == '#' {
				break
			}
			if c != ' ' && c != '\t' && c != '\r' {
				return false
			}
		}
	}
	return true
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// ensureHostKey creates an ed25519 host key at path with mode 0600 if there is none.
// An existing key is reused as is, so the fingerprint clients trust never changes.
func ensureHostKey(path string) error {
	if fi, err := os.Stat(path); err == nil {
		if m := fi.Mode().Perm(); m&0o077 != 0 {
			return fmt.Errorf("%s is readable by others (mode %#o): the host key must be private; chmod 600 %s", path, m, path)
		}
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block, err := gossh.MarshalPrivateKey(priv, "crawlconsole host key")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
