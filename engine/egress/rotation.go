package egress

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// RotationConfig sets the node's rotation rules. Zero fields take the defaults noted.
type RotationConfig struct {
	// Node names this crawl node in the account table. Default "local".
	Node string
	// PerNode is how many egresses the node starts with (seed 003: 2).
	PerNode int
	// DisableFor is how long a host stays on the host_disable_list when every egress
	// was refused (seed 003: 2 hours).
	DisableFor time.Duration
	// PairBanFor is how long a site ban keeps one (egress, host) pair apart when the
	// site sent no longer Retry-After. Default 30 minutes.
	PairBanFor time.Duration
	// FaultCooldown is how long a proxy fault keeps an egress out for every host; it
	// doubles with each fault in a row up to FaultCooldownMax. Defaults 30s and 10m.
	FaultCooldown    time.Duration
	FaultCooldownMax time.Duration
	// Now is the clock. Default time.Now; tests inject a fake one.
	Now func() time.Time
}

// DefaultRotationConfig returns the rotation defaults (seed 003 where it says, else
// this package's choice); the engine's rotation options start from them.
func DefaultRotationConfig() RotationConfig {
	return RotationConfig{
		Node:             "local",
		PerNode:          2,
		DisableFor:       2 * time.Hour,
		PairBanFor:       30 * time.Minute,
		FaultCooldown:    30 * time.Second,
		FaultCooldownMax: 10 * time.Minute,
		Now:              time.Now,
	}
}

// withDefaults fills zero fields from DefaultRotationConfig.
func (c RotationConfig) withDefaults() RotationConfig {
	d := DefaultRotationConfig()
	if c.Node == "" {
		c.Node = d.Node
	}
	if c.PerNode <= 0 {
		c.PerNode = d.PerNode
	}
	if c.DisableFor <= 0 {
		c.DisableFor = d.DisableFor
	}
	if c.PairBanFor <= 0 {
		c.PairBanFor = d.PairBanFor
	}
	if c.FaultCooldown <= 0 {
		c.FaultCooldown = d.FaultCooldown
	}
	if c.FaultCooldownMax <= 0 {
		c.FaultCooldownMax = d.FaultCooldownMax
	}
	if c.Now == nil {
		c.Now = d.Now
	}
	return c
}

// Master hands egresses to nodes: the egress account table's role (seed 003 table 4;
// on one box the local Table).
type Master interface {
	// Assign returns the node's initial list: those already assigned to it, topped up
	// with unassigned ones to n.
	Assign(node string, n int) []string
	// Claim assigns one more unassigned egress to node, if any is left.
	Claim(node string) (string, bool)
}

// Action is what the engine must do after a decision.
type Action int

// Actions.
const (
	Fetch     Action = iota // fetch the URL through Decision.Egress
	Retry                   // fetch the same URL again through Decision.Egress
	Done                    // the outcome stands: go on with the next URL
	DeferHost               // host disabled until Decision.Until: set aside its URLs (keep them)
)

// String names the action for logs.
func (a Action) String() string {
	if a < Fetch || a > DeferHost {
		return "action(" + strconv.Itoa(int(a)) + ")"
	}
	return [...]string{"fetch", "retry", "done", "defer-host"}[a]
}

// Decision is the rotation's answer to Pick or Report.
type Decision struct {
	Action  Action
	Egress  string    // egress to use (Fetch, Retry)
	Host    string    // the host asked about
	Until   time.Time // DeferHost: when the host may be tried again
	Rotated bool      // the node switched its current egress
	Claimed string    // an egress newly taken from the account table, if any
	Reason  string    // one line for the event log
}

// slot is one row of the node's egress list (seed 003 table 5) plus counters.
type slot struct {
	name        string
	start       time.Time // start_time: when the node last switched to it
	used        bool      // recently_used: y since it was switched to in a refusal streak
	faultUntil  time.Time // proxy-fault cooldown: out for every host until then
	faultStreak int
	requests    int64
	ok          int64
	refusals    int64 // site bans
	faults      int64 // proxy faults
}

type pairKey struct{ egress, host string }

// pairBan is one (egress, host) pair kept apart: since when, until when, and the
// evidence of the last refusal (the Egress pane says why).
type pairBan struct {
	at, until time.Time
	why       string
}

type disabledHost struct {
	since, until time.Time
	why          string // the refusal that disabled it, "" when the operator did
}

// Rotation is one node's egress rotation, M3 / seed 003 step 5 (3-2), as a
// deterministic state machine: the engine asks Pick before a fetch and Report after
// it. On top of the seed it keeps a ban per (egress, host) pair for site bans and a
// cooldown per egress for proxy faults, and skips those when choosing. Safe for
// concurrent use; all times come from the injected clock.
type Rotation struct {
	cfg    RotationConfig
	master Master

	mu        sync.Mutex
	list      []*slot // the node's list, in the order egresses joined it
	current   string  // the egress the node is on
	bans      map[pairKey]pairBan
	disabled  map[string]disabledHost
	rotations int64
	disables  int64
	listVer   int64 // bumped on every change of the disable list (persistence)
	// listed is len(disabled), read without mu: every request's hold check
	// (Listed) skips the lock while no host is on the list, the usual case.
	listed atomic.Int32
}

// NewRotation starts a node: it takes its initial list from master and starts on the
// least recently used egress (seed 003 step 3). An empty list is allowed; the node
// then claims an egress when it first needs one.
func NewRotation(cfg RotationConfig, master Master) *Rotation {
	cfg = cfg.withDefaults()
	r := &Rotation{cfg: cfg, master: master, bans: map[pairKey]pairBan{}, disabled: map[string]disabledHost{}}
	for _, name := range master.Assign(cfg.Node, cfg.PerNode) {
		r.list = append(r.list, &slot{name: name})
	}
	if s := r.oldest(func(s *slot) bool { return !s.used }); s != nil {
		r.switchTo(s, cfg.Now())
	}
	return r
}

// Pick chooses the egress for a request to host: the current one unless it is
// banned for host or cooling down after a proxy fault, else the least recently used
// egress that may serve host (claiming one from the master if none), else the host
// is deferred.
func (r *Rotation) Pick(host string) Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Now()
	if d, ok := r.disabled[host]; ok && now.Before(d.until) {
		return Decision{Action: DeferHost, Host: host, Until: d.until, Reason: "host on host_disable_list"}
	}
	cur := r.slot(r.current)
	if cur != nil && r.usable(cur, host, now) {
		return Decision{Action: Fetch, Egress: cur.name, Host: host}
	}
	dec := Decision{Action: Fetch, Host: host}
	alt := r.oldestUsable(host, now)
	if alt == nil {
		if name, ok := r.master.Claim(r.cfg.Node); ok {
			alt = r.join(name)
			dec.Claimed = name
		}
	}
	if alt == nil {
		until := r.nextUsable(host, now)
		r.disable(host, now, until)
		return Decision{Action: DeferHost, Host: host, Until: until, Reason: "no egress may serve the host now"}
	}
	if cur == nil || now.Before(cur.faultUntil) {
		// The current egress is out for every host: move the node, as on a refusal.
		r.switchTo(alt, now)
		r.rotations++
		dec.Rotated = true
		dec.Reason = "current egress unavailable; rotated to least recently used"
	} else {
		dec.Reason = "current egress banned for host; using least recently used"
	}
	dec.Egress = alt.name
	return dec
}

// Report records the verdict of a request through egress to host and says what to
// do with the URL. OK marks the other egresses n (seed 3-2-2) if egress is current;
// SiteError changes nothing; SiteBan and ProxyFault rotate (seed 3-2-1 .. 3-2-4):
// to the n egress with the oldest start_time, else to a new one from the master,
// else the host goes on the host_disable_list and its URLs are deferred.
func (r *Rotation) Report(egress, host string, v Verdict) Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Now()
	s := r.slot(egress)
	if s != nil {
		s.requests++
	}
	switch v.Class {
	case OK:
		if s != nil {
			s.ok++
			s.faultStreak = 0
			s.faultUntil = time.Time{}
			if egress == r.current {
				r.markOthersN()
			}
		}
		return Decision{Action: Done, Egress: egress, Host: host}
	case SiteError:
		return Decision{Action: Done, Egress: egress, Host: host, Reason: v.Reason}
	case SiteBan:
		if s != nil {
			s.refusals++
		}
		k := pairKey{egress, host}
		b := r.bans[k]
		if !now.Before(b.until) {
			b.at = now // a new ban; a report while one is in force keeps when it began
		}
		b.until = now.Add(max(v.RetryAfter, r.cfg.PairBanFor))
		b.why = v.Reason
		r.bans[k] = b
	case ProxyFault:
		if s != nil {
			s.faults++
			s.faultStreak++
			cool := r.cfg.FaultCooldown << min(s.faultStreak-1, 20)
			s.faultUntil = now.Add(min(cool, r.cfg.FaultCooldownMax))
		}
	}
	if cur := r.slot(r.current); egress != r.current && cur != nil && r.usable(cur, host, now) {
		// A report from before the node moved on: retry on where it is now.
		return Decision{Action: Retry, Egress: cur.name, Host: host, Reason: v.Class.String() + " on a previous egress"}
	}
	d := r.rotate(host, now, v.Class.String()+" ("+v.Reason+")")
	if dh, ok := r.disabled[host]; ok && d.Action == DeferHost && v.Class == SiteBan {
		dh.why = v.Reason
		r.disabled[host] = dh
	}
	return d
}

// rotate is seed 003 step 3-2-1 .. 3-2-4 for a refusal of host.
func (r *Rotation) rotate(host string, now time.Time, why string) Decision {
	dec := Decision{Host: host}
	for {
		// 3-2-1: among egresses marked n (that may serve host), the oldest start_time.
		if s := r.oldest(func(s *slot) bool { return !s.used && r.usable(s, host, now) }); s != nil {
			r.switchTo(s, now)
			r.rotations++
			dec.Action, dec.Egress, dec.Rotated = Retry, s.name, true
			dec.Reason = why + "; rotated to " + s.name
			return dec
		}
		// 3-2-3: all y: ask the master for another egress, add it as n, back to 3-2-1.
		if name, ok := r.master.Claim(r.cfg.Node); ok {
			r.join(name)
			dec.Claimed = name
			continue
		}
		// 3-2-4: none left: disable the host, defer its URLs, mark the others n.
		until := now.Add(r.cfg.DisableFor)
		r.disable(host, now, until)
		r.markOthersN()
		dec.Action, dec.Until, dec.Egress = DeferHost, until, r.current
		dec.Reason = why + "; every egress refused: host disabled"
		return dec
	}
}

// RotateNow moves the node to the least recently used other egress (the console's
// `e` key), n before y. It reports false when there is no other egress.
func (r *Rotation) RotateNow() (Decision, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Now()
	other := func(s *slot) bool { return s.name != r.current && !now.Before(s.faultUntil) }
	s := r.oldest(func(s *slot) bool { return other(s) && !s.used })
	if s == nil {
		s = r.oldest(other)
	}
	if s == nil {
		return Decision{}, false
	}
	r.switchTo(s, now)
	r.rotations++
	return Decision{Action: Fetch, Egress: s.name, Rotated: true, Reason: "rotated by operator"}, true
}

// BeginRound starts a crawl round (seed 003 step 3): disable-list entries that have
// expired by now are removed and returned; younger ones keep their hosts skipped.
// Expired pair bans are forgotten too.
func (r *Rotation) BeginRound(now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var removed []string
	for h, d := range r.disabled {
		if !now.Before(d.until) {
			removed = append(removed, h)
			delete(r.disabled, h)
			r.listVer++
			r.listed.Store(int32(len(r.disabled)))
		}
	}
	for k, b := range r.bans {
		if !now.Before(b.until) {
			delete(r.bans, k)
		}
	}
	slices.Sort(removed)
	return removed
}

// Disable puts host on the host_disable_list for d (the console's `x` key); d <= 0
// means the configured DisableFor.
func (r *Rotation) Disable(host string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d <= 0 {
		d = r.cfg.DisableFor
	}
	now := r.cfg.Now()
	r.disable(host, now, now.Add(d))
}

// Enable takes host off the host_disable_list and forgets its pair bans.
func (r *Rotation) Enable(host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.disabled[host]; ok {
		delete(r.disabled, host)
		r.listVer++
		r.listed.Store(int32(len(r.disabled)))
	}
	for k := range r.bans {
		if k.host == host {
			delete(r.bans, k)
		}
	}
}

// Add puts an egress on the node's list (n, never used) if it is not there yet.
func (r *Rotation) Add(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.join(name)
	if r.current == "" {
		r.switchTo(r.slot(name), r.cfg.Now())
	}
}

// Remove takes an egress off the node's list; if it was current, the node moves to
// the least recently used remaining one.
func (r *Rotation) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = slices.DeleteFunc(r.list, func(s *slot) bool { return s.name == name })
	for k := range r.bans {
		if k.egress == name {
			delete(r.bans, k)
		}
	}
	if r.current == name {
		r.current = ""
		if s := r.oldest(func(s *slot) bool { return !s.used }); s != nil {
			r.switchTo(s, r.cfg.Now())
		} else if s := r.oldest(func(*slot) bool { return true }); s != nil {
			r.switchTo(s, r.cfg.Now())
		}
	}
}

// Current is the egress the node is on ("" when it has none).
func (r *Rotation) Current() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

// DisabledHosts returns the host_disable_list, sorted by host, for persistence and
// display.
func (r *Rotation) DisabledHosts() []DisabledHost {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.disabledView(r.cfg.Now())
}

// RestoreDisabled loads a persisted host_disable_list (entries already expired are
// kept until the next BeginRound, as if the node had never stopped).
func (r *Rotation) RestoreDisabled(list []DisabledHost) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range list {
		r.disabled[d.Host] = disabledHost{since: d.Since, until: d.Until, why: d.Why}
	}
	r.listVer++
	r.listed.Store(int32(len(r.disabled)))
}

// disabledVersion changes whenever the host_disable_list does.
func (r *Rotation) disabledVersion() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listVer
}

// --- internals; callers hold r.mu ---

func (r *Rotation) slot(name string) *slot {
	for _, s := range r.list {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (r *Rotation) join(name string) *slot {
	if s := r.slot(name); s != nil {
		return s
	}
	s := &slot{name: name}
	r.list = append(r.list, s)
	return s
}

// usable: not cooling down after a proxy fault and not banned for host.
func (r *Rotation) usable(s *slot, host string, now time.Time) bool {
	if now.Before(s.faultUntil) {
		return false
	}
	b, banned := r.bans[pairKey{s.name, host}]
	return !banned || !now.Before(b.until)
}

// oldest returns the slot with the oldest start_time among those ok accepts; a
// never-used egress (zero start_time) is the oldest; ties go to list order.
func (r *Rotation) oldest(ok func(*slot) bool) *slot {
	var best *slot
	for _, s := range r.list {
		if ok(s) && (best == nil || s.start.Before(best.start)) {
			best = s
		}
	}
	return best
}

// oldestUsable is the least recently used egress that may serve host, n before y.
func (r *Rotation) oldestUsable(host string, now time.Time) *slot {
	if s := r.oldest(func(s *slot) bool { return !s.used && r.usable(s, host, now) }); s != nil {
		return s
	}
	return r.oldest(func(s *slot) bool { return r.usable(s, host, now) })
}

// nextUsable is when some egress may serve host again, at most DisableFor away.
func (r *Rotation) nextUsable(host string, now time.Time) time.Time {
	until := now.Add(r.cfg.DisableFor)
	for _, s := range r.list {
		t := s.faultUntil
		if b, ok := r.bans[pairKey{s.name, host}]; ok && b.until.After(t) {
			t = b.until
		}
		if t.After(now) && t.Before(until) {
			until = t
		}
	}
	return until
}

// switchTo makes s current: start_time = now, recently_used = y (seed 3-2-1).
func (r *Rotation) switchTo(s *slot, now time.Time) {
	s.start = now
	s.used = true
	r.current = s.name
}

func (r *Rotation) markOthersN() {
	for _, s := range r.list {
		if s.name != r.current {
			s.used = false
		}
	}
}

func (r *Rotation) disable(host string, now, until time.Time) {
	if d, ok := r.disabled[host]; ok && now.Before(d.until) && !until.After(d.until) {
		return
	}
	r.disabled[host] = disabledHost{since: now, until: until}
	r.disables++
	r.listVer++
	r.listed.Store(int32(len(r.disabled)))
}

// Serves reports whether egress is on the node's list and may serve host now: no
// proxy-fault cooldown and no pair ban. The engine's lanes live on egress addresses
// (M1); this is their filter when a host's tasks are placed or moved.
func (r *Rotation) Serves(egress, host string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.slot(egress)
	return s != nil && r.usable(s, host, r.cfg.Now())
}

// Listed reports whether any host is on the host_disable_list, expired or not:
// false means DisabledUntil is false for every host, without taking the lock.
func (r *Rotation) Listed() bool { return r.listed.Load() > 0 }

// DisabledUntil reports whether host is on the host_disable_list now, and until when.
func (r *Rotation) DisabledUntil(host string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.disabled[host]
	if !ok || !r.cfg.Now().Before(d.until) {
		return time.Time{}, false
	}
	return d.until, true
}
