package egress

import (
	"sync"
	"time"
)

// Corroboration (a soft signal does not disable a host on its own): a
// soft refusal that repeats on its refetch condemns that one URL only — a page that
// reads like a block to every client (an "e-mail verified" notice, 邮箱验证成功) would
// repeat too. The (egress, host) pair is punished, and the rotation told, once a
// second URL of the host repeats a soft refusal through the same egress within
// corroborationWindow: a site blocking a client blocks its next request as well.

// corroborationWindow is how long one URL's confirmed soft refusal waits for another
// URL to corroborate it.
const corroborationWindow = 10 * time.Minute

// maxSoftMarks bounds the memory of soft refusals (one per pair).
const maxSoftMarks = 4096

type softKey struct{ egress, host string }

type softMark struct {
	url    string
	at     time.Time
	reason string
}

type softTrail struct {
	mu sync.Mutex
	m  map[softKey]softMark
}

// Corroborated reports whether another URL of host repeated a soft refusal through
// egress lately, and that refusal's evidence.
func (c *Classifier) Corroborated(egress, host, url string) (string, bool) {
	c.soft.mu.Lock()
	defer c.soft.mu.Unlock()
	m, ok := c.soft.m[softKey{egress, host}]
	if !ok || m.url == url || c.now().Sub(m.at) > corroborationWindow {
		return "", false
	}
	return m.url + " (" + m.reason + ")", true
}

// NoteSoft records that url's soft refusal repeated on its refetch through egress.
func (c *Classifier) NoteSoft(egress, host, url, reason string) {
	c.soft.mu.Lock()
	defer c.soft.mu.Unlock()
	if c.soft.m == nil {
		c.soft.m = map[softKey]softMark{}
	}
	if len(c.soft.m) >= maxSoftMarks {
		for k := range c.soft.m { // any one: a bound, not a policy
			delete(c.soft.m, k)
			break
		}
	}
	c.soft.m[softKey{egress, host}] = softMark{url: url, at: c.now(), reason: reason}
}
