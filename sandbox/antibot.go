package sandbox

import (
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// The anti-bot rule of seed 000 (M1), judged per client IP — the source address of the
// TCP connection — and per host. A request to page u is a violation when the same IP
// has another request to a page adjacent to u (same host, or same parent page) in
// flight when it starts, or one that ended less than HumanGap before it starts. More
// than MaxViolations violations on one host within Window ban the IP from that host for
// BanFor. On top sits a plain request quota per (IP, host) and, on social hosts, a
// search quota. All windows are web durations, applied here in real time (÷ Scale).

// banStyle is how a host answers a banned client.
type banStyle uint8

const (
	banDeny    banStyle = iota // 403 with a deny page
	banTooMany                 // 429 with Retry-After
	banCaptcha                 // 200 with a "verify you are human" page
)

// Ban reasons, as they appear in Ban.Reason.
const (
	BanAdjacency   = "adjacency"    // too many adjacent requests too close together (M1)
	BanSearchQuota = "search-quota" // search quota spent on a host that bans for it
)

// verdict is the anti-bot decision on one request.
type verdict struct {
	violation  bool
	banned     bool      // answer with the host's ban response
	until      time.Time // end of the ban (real)
	limited    bool      // answer 429: quota spent
	retryAfter time.Duration
	newBan     *Ban // the ban this request triggered
}

// adjTrack is the activity of one IP on one adjacency group (a host or a parent page).
type adjTrack struct {
	inFlight int
	lastEnd  time.Time
}

// busy tells whether a request starting at t would be adjacent to this group's activity.
func (a *adjTrack) busy(t time.Time, gap time.Duration) bool {
	return a.inFlight > 0 || (!a.lastEnd.IsZero() && t.Sub(a.lastEnd) < gap)
}

type hostTrack struct {
	adjTrack
	violations  []time.Time
	bannedUntil time.Time
	quotaStart  time.Time
	quotaCount  int
	searchStart time.Time
	searchCount int
}

type clientState struct {
	hosts   map[*vhost]*hostTrack
	parents map[uint64]*adjTrack
	sweepAt int // size of parents that triggers the next sweep of idle entries
}

const botShards = 64

type antiBot struct {
	cfg                           AntiBotConfig
	search                        SearchConfig
	gap, window, banFor, quotaWin time.Duration // real
	searchWin                     time.Duration // real
	shards                        [botShards]struct {
		mu  sync.Mutex
		ips map[string]*clientState
	}
}

func newAntiBot(w *Web) *antiBot {
	a := &antiBot{
		cfg:       w.cfg.AntiBot,
		search:    w.cfg.Search,
		gap:       w.realDur(w.cfg.AntiBot.HumanGap),
		window:    w.realDur(w.cfg.AntiBot.Window),
		banFor:    w.realDur(w.cfg.AntiBot.BanFor),
		quotaWin:  w.realDur(w.cfg.AntiBot.QuotaWindow),
		searchWin: w.realDur(w.cfg.Search.QuotaWindow),
	}
	for i := range a.shards {
		a.shards[i].ips = map[string]*clientState{}
	}
	return a
}

func (a *antiBot) shard(ip string) *struct {
	mu  sync.Mutex
	ips map[string]*clientState
} {
	return &a.shards[xxhash.Sum64String(ip)%botShards]
}

// begin judges a request of ip to page p (on host h, parent key pk) starting at t, and
// marks it in flight. Every begin must be followed by end.
func (a *antiBot) begin(ip string, h *vhost, pk uint64, search bool, t time.Time) verdict {
	sh := a.shard(ip)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cs := sh.ips[ip]
	if cs == nil {
		cs = &clientState{hosts: map[*vhost]*hostTrack{}, parents: map[uint64]*adjTrack{}, sweepAt: 1024}
		sh.ips[ip] = cs
	}
	ht := cs.hosts[h]
	if ht == nil {
		ht = &hostTrack{}
		cs.hosts[h] = ht
	}
	var pt *adjTrack
	if pk != 0 {
		if pt = cs.parents[pk]; pt == nil {
			if len(cs.parents) >= cs.sweepAt {
				a.sweep(cs, t)
			}
			pt = &adjTrack{}
			cs.parents[pk] = pt
		}
	}
	var v verdict
	defer func() {
		ht.inFlight++
		if pt != nil {
			pt.inFlight++
		}
	}()
	if t.Before(ht.bannedUntil) {
		v.banned, v.until = true, ht.bannedUntil
		return v
	}
	if !ht.bannedUntil.IsZero() { // the ban is over: start with a clean record
		ht.bannedUntil = time.Time{}
		ht.violations = ht.violations[:0]
	}
	// M1: adjacent = same host, or same parent page.
	if ht.busy(t, a.gap) || (pt != nil && pt.busy(t, a.gap)) {
		v.violation = true
		keep := ht.violations[:0]
		for _, vt := range ht.violations {
			if t.Sub(vt) < a.window {
				keep = append(keep, vt)
			}
		}
		ht.violations = append(keep, t)
		if len(ht.violations) > a.cfg.MaxViolations {
			return a.ban(v, ht, ip, h, t, BanAdjacency)
		}
	}
	if ht.quotaStart.IsZero() || t.Sub(ht.quotaStart) >= a.quotaWin {
		ht.quotaStart, ht.quotaCount = t, 0
	}
	ht.quotaCount++
	if ht.quotaCount > a.cfg.Quota {
		v.limited, v.retryAfter = true, ht.quotaStart.Add(a.quotaWin).Sub(t)
		return v
	}
	if search {
		if ht.searchStart.IsZero() || t.Sub(ht.searchStart) >= a.searchWin {
			ht.searchStart, ht.searchCount = t, 0
		}
		ht.searchCount++
		if ht.searchCount > a.search.Quota {
			if h.searchBan {
				return a.ban(v, ht, ip, h, t, BanSearchQuota)
			}
			v.limited, v.retryAfter = true, ht.searchStart.Add(a.searchWin).Sub(t)
		}
	}
	return v
}

func (a *antiBot) ban(v verdict, ht *hostTrack, ip string, h *vhost, t time.Time, reason string) verdict {
	ht.bannedUntil = t.Add(a.banFor)
	v.banned, v.until = true, ht.bannedUntil
	v.newBan = &Ban{IP: ip, Host: h.name, At: t, Until: ht.bannedUntil, Reason: reason}
	return v
}

// end marks the request finished at t.
func (a *antiBot) end(ip string, h *vhost, pk uint64, t time.Time) {
	sh := a.shard(ip)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cs := sh.ips[ip]
	ht := cs.hosts[h]
	ht.inFlight--
	if t.After(ht.lastEnd) {
		ht.lastEnd = t
	}
	if pk != 0 {
		if pt := cs.parents[pk]; pt != nil {
			pt.inFlight--
			if t.After(pt.lastEnd) {
				pt.lastEnd = t
			}
		}
	}
}

// sweep forgets parent groups that can no longer cause a violation, so a long crawl
// keeps memory proportional to its recent activity.
func (a *antiBot) sweep(cs *clientState, t time.Time) {
	for k, pt := range cs.parents {
		if pt.inFlight == 0 && !pt.busy(t, a.gap) {
			delete(cs.parents, k)
		}
	}
	cs.sweepAt = 2*len(cs.parents) + 1024
}
