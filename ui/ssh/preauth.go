package ssh

import (
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
)

// preauth bounds SSH connections that have not logged in yet, so that a flood of
// silent ones cannot shut the operators out (as OpenSSH's MaxStartups and
// PerSourcePenalties do, with a different choice of what to drop):
//
//   - Each connection gets LoginGrace to authenticate; at most MaxUnauthenticated
//     (PerIP from one source) wait at once.
//   - At a cap, the connection dropped is the oldest one that has not finished key
//     exchange (from the most penalised source first), not the new one: a real
//     client finishes key exchange within milliseconds of connecting, so it is never
//     the oldest for long, while a half-open connection is. OpenSSH drops new
//     connections at random past MaxStartups' start, which a steady flood wins.
//     Only when every waiting connection has finished key exchange is the new one
//     refused.
//   - A source whose connection was dropped before key exchange (at a cap, or at the
//     grace time) is penalised for penaltyStep more, up to penaltyMax; while
//     penalised and the server is under pressure (half of MaxUnauthenticated waiting)
//     its new connections are closed at accept, so a flood cannot renew itself.
//
// Sources are addresses for IPv4 and /64 networks for IPv6 (one host's share).
type preauth struct {
	grace        time.Duration
	total, perIP int
	now          func() time.Time

	mu        sync.Mutex
	waiting   map[*pending]struct{}
	bySource  map[string]int
	penalties map[string]time.Time // source → penalised until
}

const (
	// penaltyStep is what one connection dropped before key exchange costs its
	// source; penaltyMax caps a source's penalty.
	penaltyStep = 30 * time.Second
	penaltyMax  = 10 * time.Minute
	// maxPenalised bounds the penalty table: past it, sources not yet in it go
	// unpenalised (the caps still hold) rather than the table growing without end.
	maxPenalised = 65536
)

func newPreauth(grace time.Duration, total, perIP int) *preauth {
	return &preauth{grace: grace, total: total, perIP: perIP, now: time.Now,
		waiting: map[*pending]struct{}{}, bySource: map[string]int{}, penalties: map[string]time.Time{}}
}

type preauthKey struct{}

// pending is one connection not logged in yet.
type pending struct {
	p      *preauth
	source string
	conn   net.Conn
	at     time.Time
	timer  *time.Timer
	kexed  bool // key exchange finished (under p.mu)
	gone   bool // off the count (under p.mu)
}

// sourceOf is the unit penalties and the per-source cap count by.
func sourceOf(addr net.Addr) string {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// accept is the server's ConnCallback: nil closes the connection.
func (p *preauth) accept(ctx ssh.Context, conn net.Conn) net.Conn {
	src := sourceOf(conn.RemoteAddr())
	now := p.now()
	p.mu.Lock()
	if until, ok := p.penalties[src]; ok && !now.Before(until) {
		delete(p.penalties, src)
	}
	if until, ok := p.penalties[src]; ok && now.Before(until) && len(p.waiting) >= p.pressure() {
		p.mu.Unlock()
		return nil
	}
	var victim *pending
	switch {
	case p.bySource[src] >= p.perIP:
		if victim = p.oldestBeforeKex(src, now); victim == nil {
			p.mu.Unlock()
			return nil
		}
	case len(p.waiting) >= p.total:
		if victim = p.oldestBeforeKex("", now); victim == nil {
			p.mu.Unlock()
			return nil
		}
	}
	if victim != nil {
		p.remove(victim)
		p.penalise(victim.source, now)
	}
	c := &pending{p: p, source: src, conn: conn, at: now}
	p.waiting[c] = struct{}{}
	p.bySource[src]++
	// No login in time: closed. The timer is armed only once c.timer is set, which
	// its callback reads (done stops it): with a short grace it could fire first.
	c.timer = time.AfterFunc(time.Duration(1<<62), c.expire)
	c.timer.Reset(p.grace)
	p.mu.Unlock()
	if victim != nil {
		victim.timer.Stop()
		victim.conn.Close()
	}
	ctx.SetValue(preauthKey{}, c)
	return &preauthConn{Conn: conn, c: c}
}

// pressure is how many waiting connections make the server refuse penalised sources.
func (p *preauth) pressure() int { return max(1, p.total/2) }

// oldestBeforeKex picks the connection to drop: one that has not finished key
// exchange, from source (any if ""), the most penalised source's first, then the
// oldest; nil if every one has finished it. Caller holds p.mu. The scan is over at
// most MaxUnauthenticated connections.
func (p *preauth) oldestBeforeKex(source string, now time.Time) *pending {
	var best *pending
	var bestPenalty time.Duration
	for c := range p.waiting {
		if c.kexed || (source != "" && c.source != source) {
			continue
		}
		pen := p.penalties[c.source].Sub(now)
		if best == nil || pen > bestPenalty || (pen == bestPenalty && c.at.Before(best.at)) {
			best, bestPenalty = c, pen
		}
	}
	return best
}

// penalise adds penaltyStep to source's penalty. Caller holds p.mu.
func (p *preauth) penalise(source string, now time.Time) {
	until, ok := p.penalties[source]
	if !ok && len(p.penalties) >= maxPenalised {
		for s, u := range p.penalties { // expired ones make room
			if !now.Before(u) {
				delete(p.penalties, s)
			}
		}
		if len(p.penalties) >= maxPenalised {
			return
		}
	}
	if until.Before(now) {
		until = now
	}
	if until = until.Add(penaltyStep); until.After(now.Add(penaltyMax)) {
		until = now.Add(penaltyMax)
	}
	p.penalties[source] = until
}

// remove takes c off the count. Caller holds p.mu.
func (p *preauth) remove(c *pending) {
	if c.gone {
		return
	}
	c.gone = true
	delete(p.waiting, c)
	if p.bySource[c.source]--; p.bySource[c.source] <= 0 {
		delete(p.bySource, c.source)
	}
}

// expire closes a connection that did not log in within the grace time; one that
// did not even finish key exchange costs its source a penalty.
func (c *pending) expire() {
	p := c.p
	p.mu.Lock()
	if !c.gone && !c.kexed {
		p.penalise(c.source, p.now())
	}
	p.remove(c)
	p.mu.Unlock()
	c.conn.Close()
}

// done takes the connection off the count (logged in, or closed).
func (c *pending) done() {
	c.timer.Stop()
	c.p.mu.Lock()
	c.p.remove(c)
	c.p.mu.Unlock()
}

// keyExchanged marks the connection of ctx as past key exchange: no longer among
// the first dropped.
func keyExchanged(ctx ssh.Context) {
	if c, _ := ctx.Value(preauthKey{}).(*pending); c != nil {
		c.p.mu.Lock()
		c.kexed = true
		c.p.mu.Unlock()
	}
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
