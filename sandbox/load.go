package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// LoadConfig makes hosts answer to the pressure a crawler puts on them, so
// a politeness policy can be judged by what the server went through:
//   - a fragile host's latency grows with the request rate it receives, as a server
//     that queues does: latency = Service ÷ (1 − busy), busy = requests started in the
//     last Window × Service ÷ Window (capped at 90%);
//   - a throttling host answers 429 without Retry-After for ThrottleFor after its
//     first page request (any client), then recovers;
//   - the cookie rule (opt-in) hands each client address a session cookie for the
//     site on its first visit and bans an address that keeps fetching without
//     returning it, or that returns a cookie given to another address, as Incapsula
//     or Akamai would.
//
// Which hosts are fragile or throttling is drawn from the seed; Fragile and
// Throttling tell. robots.txt is never slowed or throttled (its rules are another
// matter). All durations here are real time, not scaled.
type LoadConfig struct {
	// FragileShare is the share of hosts that are fragile (default 0).
	FragileShare float64
	// FragileHosts are host names that are fragile whatever the share draws.
	FragileHosts []string
	// ThrottleHosts are host names that throttle whatever the share draws.
	ThrottleHosts []string
	// Service is a fragile host's latency when idle (default 100 ms).
	Service time.Duration
	// Window is how far back a fragile host counts requests (default 2 s).
	Window time.Duration
	// ThrottleShare is the share of hosts that throttle (default 0).
	ThrottleShare float64
	// ThrottleFor is how long a throttling host answers 429 (default 10 s).
	ThrottleFor time.Duration
	// CookieRule turns the cookie rule on (default off).
	CookieRule bool
	// CookieStrikes is how many requests without the address's cookie a site
	// tolerates after giving it one; one more bans the address from the site's hosts
	// for AntiBot.BanFor (default 3).
	CookieStrikes int
}

// BanCookie is Ban.Reason for the cookie rule.
const BanCookie = "cookie"

// CookieName is the session cookie the cookie rule hands out.
const CookieName = "sbx_visid"

// Request.Cookie values.
const (
	CookieOwn   = "own"   // the session given to the request's own address
	CookieOther = "other" // a session given to another address
)

func (c LoadConfig) withDefaults() LoadConfig {
	if c.Service <= 0 {
		c.Service = 100 * time.Millisecond
	}
	if c.Window <= 0 {
		c.Window = 2 * time.Second
	}
	if c.ThrottleFor <= 0 {
		c.ThrottleFor = 10 * time.Second
	}
	if c.CookieStrikes <= 0 {
		c.CookieStrikes = 3
	}
	return c
}

// load is the state of the load-aware hosts and of the cookie rule.
type load struct {
	cfg    LoadConfig
	banFor time.Duration // real
	mu     sync.Mutex
	starts map[*vhost][]time.Time // fragile hosts: recent request starts
	first  map[*vhost]time.Time   // throttling hosts: first page request
	visits map[string]*visitor    // cookie rule: by IP and site domain
}

type visitor struct {
	value       string    // cookie given to this address
	givenAt     time.Time // end of the first response that carried it
	strikes     int
	bannedUntil time.Time
}

func newLoad(w *Web) *load {
	return &load{cfg: w.cfg.Load.withDefaults(), banFor: w.realDur(w.cfg.AntiBot.BanFor),
		starts: map[*vhost][]time.Time{}, first: map[*vhost]time.Time{}, visits: map[string]*visitor{}}
}

// draw is a host's fixed uniform number in [0,1) for a trait, from the seed.
func draw(h *vhost, trait uint64) float64 {
	return float64((h.key^trait*0x9e3779b97f4a7c15)*0xbf58476d1ce4e5b9>>11) / (1 << 53)
}

func (l *load) fragile(h *vhost) bool {
	return draw(h, 1) < l.cfg.FragileShare || slices.Contains(l.cfg.FragileHosts, h.name)
}

func (l *load) throttles(h *vhost) bool {
	return draw(h, 2) < l.cfg.ThrottleShare || slices.Contains(l.cfg.ThrottleHosts, h.name)
}

// latency is how long a fragile host takes to answer a request starting at t, given
// the requests it started in the last Window; it records this one. 0 for others.
func (l *load) latency(h *vhost, t time.Time) time.Duration {
	if !l.fragile(h) {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	recent := l.starts[h][:0]
	for _, s := range l.starts[h] {
		if t.Sub(s) < l.cfg.Window {
			recent = append(recent, s)
		}
	}
	busy := float64(len(recent)) * float64(l.cfg.Service) / float64(l.cfg.Window)
	l.starts[h] = append(recent, t)
	return time.Duration(float64(l.cfg.Service) / (1 - min(busy, 0.9)))
}

// throttled says a throttling host answers 429 without Retry-After at t.
func (l *load) throttled(h *vhost, t time.Time) bool {
	if !l.throttles(h) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.first[h]
	if !ok {
		l.first[h], f = t, t
	}
	return t.Sub(f) < l.cfg.ThrottleFor
}

// cookie judges a request of ip to host h under the cookie rule: the cookie to set
// ("" none), and whether the address is banned (until when) and is newly so.
func (l *load) cookie(r *http.Request, ip string, h *vhost, t time.Time) (set string, banned bool, until time.Time, newBan bool) {
	if !l.cfg.CookieRule {
		return "", false, time.Time{}, false
	}
	domain := h.site.Domain
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.visits[ip+" "+domain]
	if v == nil {
		v = &visitor{value: visitorID(ip, domain)}
		l.visits[ip+" "+domain] = v
		return v.setCookie(domain), false, time.Time{}, false // first visit: here is your session
	}
	if t.Before(v.bannedUntil) {
		return "", true, v.bannedUntil, false
	}
	got, err := r.Cookie(CookieName)
	if err == nil && got.Value == v.value {
		v.strikes = 0
		return "", false, time.Time{}, false
	}
	if v.givenAt.IsZero() || t.Before(v.givenAt) {
		return v.setCookie(domain), false, time.Time{}, false // it has not reached the client yet
	}
	v.strikes++ // no cookie, or another address's: a new visitor every time is a bot
	if v.strikes > l.cfg.CookieStrikes {
		v.bannedUntil, v.strikes = t.Add(l.banFor), 0
		return "", true, v.bannedUntil, true
	}
	return v.setCookie(domain), false, time.Time{}, false
}

// given notes that a response carrying ip's cookie for h's site ended at t: from
// then on the client has it.
func (l *load) given(ip string, h *vhost, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v := l.visits[ip+" "+h.site.Domain]; v != nil && v.givenAt.IsZero() {
		v.givenAt = t
	}
}

func (v *visitor) setCookie(domain string) string {
	return (&http.Cookie{Name: CookieName, Value: v.value, Domain: domain, Path: "/", HttpOnly: true}).String()
}

// visitorID is the address's session for a site: stable, and different per address.
func visitorID(ip, domain string) string {
	s := sha256.Sum256([]byte(ip + "\x00" + domain))
	return hex.EncodeToString(s[:12])
}

// Fragile says whether host is a fragile host (LoadConfig.FragileShare).
func (s *Sandbox) Fragile(host string) bool {
	h := s.web.hostOf(host)
	return h != nil && s.load.fragile(h)
}

// Throttling says whether host is a throttling host (LoadConfig.ThrottleShare).
func (s *Sandbox) Throttling(host string) bool {
	h := s.web.hostOf(host)
	return h != nil && s.load.throttles(h)
}

// serveThrottled answers 429 with no Retry-After: the server is overloaded and does
// not say for how long, the case the engine's overload back-off is for.
func serveThrottled(w http.ResponseWriter, x *exchange) {
	hdr := w.Header()
	hdr["Content-Type"] = hdrHTML
	body := "<!DOCTYPE html><html><head><title>Too busy</title></head><body><h1>Too busy</h1><p>Please try later.</p></body></html>\n"
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	x.finish(http.StatusTooManyRequests)
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write([]byte(body)) //nolint:errcheck // client may be gone
}
