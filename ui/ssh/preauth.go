package ssh

import (
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
)

// preauth bounds SSH connections that have not logged in yet: each gets
// LoginGrace to authenticate, and at most MaxUnauthenticated of them (PerIP from one
// address) are held at once; the rest are closed at accept. Without it a silent TCP
// connection would stay open forever, as the rate limit applies only after login.
type preauth struct {
	grace        time.Duration
	total, perIP int

	mu    sync.Mutex
	count int
	byIP  map[string]int
}

type preauthKey struct{}

// pending is one connection not logged in yet.
type pending struct {
	p     *preauth
	ip    string
	conn  net.Conn
	timer *time.Timer
	once  sync.Once
}

// accept is the server's ConnCallback: nil closes the connection.
func (p *preauth) accept(ctx ssh.Context, conn net.Conn) net.Conn {
	ip, _, _ := net.SplitHostPort(conn.RemoteAddr().String())
	p.mu.Lock()
	if p.count >= p.total || p.byIP[ip] >= p.perIP {
		p.mu.Unlock()
		return nil
	}
	p.count++
	p.byIP[ip]++
	p.mu.Unlock()
	c := &pending{p: p, ip: ip, conn: conn}
	// No login in time: closed. The timer is armed only once c.timer is set, which
	// its callback reads (done stops it): with a short grace it could fire first.
	c.timer = time.AfterFunc(time.Duration(1<<62), func() { c.done(); conn.Close() })
	c.timer.Reset(p.grace)
	ctx.SetValue(preauthKey{}, c)
	return &preauthConn{Conn: conn, c: c}
}

// done takes the connection off the unauthenticated count (logged in, or closed).
func (c *pending) done() {
	c.once.Do(func() {
		c.timer.Stop()
		c.p.mu.Lock()
		c.p.count--
		if c.p.byIP[c.ip]--; c.p.byIP[c.ip] <= 0 {
			delete(c.p.byIP, c.ip)
		}
		c.p.mu.Unlock()
	})
}

// loggedIn marks the connection of ctx as authenticated.
func loggedIn(ctx ssh.Context) {
	if c, _ := ctx.Value(preauthKey{}).(*pending); c != nil {
		c.done()
	}
}

type preauthConn struct {
	net.Conn
	c *pending
}

func (pc *preauthConn) Close() error {
	pc.c.done()
	return pc.Conn.Close()
}
