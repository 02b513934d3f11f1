package ssh

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// halfOpen connects from local address from (127.0.0.x) and reads the server's
// version line, the sign the server took the connection; then it says nothing more,
// as a flood's connections do. ok is false when the server closed it unread.
func halfOpen(t *testing.T, addr, from string) (c net.Conn, ok bool) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: uitest.Deadline}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	c.SetReadDeadline(time.Now().Add(uitest.Deadline))
	line, err := bufio.NewReader(c).ReadString('\n')
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return nil, false
	}
	if !strings.HasPrefix(line, "SSH-2.0-") {
		t.Fatalf("from %s: the server said %q, not its version", from, line)
	}
	return c, true
}

// loginOK logs in as the operator and opens a session, as many times as tries.
func loginOK(t *testing.T, w *sshWorld, tries int) {
	t.Helper()
	for i := range tries {
		c, _, err := w.dial(w.operator)
		if err != nil {
			t.Fatalf("operator login %d of %d refused under a flood of half-open connections: %v", i+1, tries, err)
		}
		s, err := c.NewSession()
		if err != nil {
			t.Fatalf("operator session %d: %v", i+1, err)
		}
		s.Close()
		c.Close()
	}
}

// TestSSHHalfOpenFloodFromManySourcesLetsTheOperatorIn: three times as many silent
// connections as may wait to log in, each from its own address, held open. The
// oldest silent ones make room for the newer (so the waiting ones are never more
// than the cap), a source whose connection was dropped is refused at once when it
// comes back, and the operator logs in at the first try every time. (The first
// connections past the cap were refused at accept, the operator's among them,
// for as long as the flood lasted.)
func TestSSHHalfOpenFloodFromManySourcesLetsTheOperatorIn(t *testing.T) {
	w := newSSHWorld(t)
	const capTotal, sources = 16, 48
	w.start(ServeOptions{MaxUnauthenticated: capTotal, LoginGrace: time.Minute})
	open := map[int]net.Conn{}
	for i := range sources {
		c, ok := halfOpen(t, w.addr, fmt.Sprintf("127.0.0.%d", i+2))
		if !ok {
			t.Fatalf("silent connection %d of %d refused at accept: the oldest silent one should have made room", i+1, sources)
		}
		defer c.Close()
		open[i] = c
	}
	// The first sources-capTotal were dropped, oldest first.
	for i := range sources - capTotal {
		open[i].SetReadDeadline(time.Now().Add(uitest.Deadline))
		if _, err := open[i].Read(make([]byte, 64)); err == nil {
			t.Fatalf("silent connection %d is still open: the oldest should have been dropped", i+1)
		}
	}
	// Coming back, a dropped source is refused while the flood lasts.
	for i := range 5 {
		if c, ok := halfOpen(t, w.addr, fmt.Sprintf("127.0.0.%d", i+2)); ok {
			c.Close()
			t.Fatalf("source 127.0.0.%d, dropped before key exchange, was taken again at once: it should be penalised", i+2)
		}
	}
	loginOK(t, w, 5)
}

// TestSSHHalfOpenFloodFromTheOperatorsAddress: silent connections from the
// operator's own address (as behind a NAT), as many as may wait from one address:
// the operator still logs in, each time dropping the oldest silent one. (It was
// refused at accept until the silent ones timed out.)
func TestSSHHalfOpenFloodFromTheOperatorsAddress(t *testing.T) {
	w := newSSHWorld(t)
	w.start(ServeOptions{LoginGrace: time.Minute})
	for range 8 { // the default per-address cap
		c, ok := halfOpen(t, w.addr, "127.0.0.1")
		if !ok {
			t.Fatal("a silent connection under the per-address cap was refused")
		}
		defer c.Close()
	}
	loginOK(t, w, 3)
}

// TestSSHKeyExchangedConnectionOutlastsAFlood: a client past key exchange but not
// yet logged in (its key behind a passphrase prompt, say) is not what a flood of
// silent connections pushes out: the silent ones make room among themselves, and
// the client logs in once it goes on.
func TestSSHKeyExchangedConnectionOutlastsAFlood(t *testing.T) {
	w := newSSHWorld(t)
	const capTotal = 4
	w.start(ServeOptions{MaxUnauthenticated: capTotal, LoginGrace: time.Minute})
	asked, goOn := make(chan struct{}), make(chan struct{})
	cfg := &gossh.ClientConfig{
		User: "operator",
		Auth: []gossh.AuthMethod{gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
			close(asked) // after the "none" attempt: key exchange is done
			<-goOn
			return []gossh.Signer{w.operator}, nil
		})},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         uitest.Deadline,
	}
	type result struct {
		c   *gossh.Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := gossh.Dial("tcp", w.addr, cfg)
		done <- result{c, err}
	}()
	select {
	case <-asked:
	case r := <-done:
		t.Fatalf("the client ended before asking for its key: %v", r.err)
	case <-time.After(uitest.Deadline):
		t.Fatal("the client never got to authentication")
	}
	for i := range 4 * capTotal {
		c, ok := halfOpen(t, w.addr, fmt.Sprintf("127.0.1.%d", i+1))
		if !ok {
			t.Fatalf("silent connection %d refused: the older silent ones should have made room", i+1)
		}
		defer c.Close()
	}
	close(goOn)
	r := <-done
	if r.err != nil {
		t.Fatalf("the client past key exchange was dropped by a flood of silent connections: %v", r.err)
	}
	r.c.Close()
}

// TestServeRefusesAKeyFileTooBigToReadEachTime: the key files are read again at
// every key check, so one far bigger than any list of keys is refused at start,
// naming it, rather than read whole every time.
func TestServeRefusesAKeyFileTooBigToReadEachTime(t *testing.T) {
	w := newSSHWorld(t)
	f, err := os.OpenFile(w.viewers, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	so, err := PrepareServe(ServeOptions{Addr: "127.0.0.1:0", HostKeyPath: w.hostKey,
		AuthorizedKeysPath: w.operators, ViewerKeysPath: w.viewers})
	if err == nil {
		so.Listener.Close()
		t.Fatal("a 200 MB viewers' key file was taken")
	}
	if !strings.Contains(err.Error(), w.viewers) || !strings.Contains(err.Error(), "1024 KiB") {
		t.Fatalf("the error does not name the file and the cap: %v", err)
	}
}
