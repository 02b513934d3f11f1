package egress

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// View is what the console's Egress pane shows (M3's "VPN rotation state"): the
// node's list with the account table, and the host_disable_list. It holds no secret:
// addresses are masked. Safe to JSON-encode.
type View struct {
	At            time.Time      `json:"at"`
	Node          string         `json:"node"`
	Current       string         `json:"current"`        // egress the node is on
	Egresses      []EgressRow    `json:"egresses"`       // node's list in join order, then the rest of the table
	Disabled      []DisabledHost `json:"disabled_hosts"` // host_disable_list, by host
	PairBans      []PairBan      `json:"pair_bans"`      // (egress, host) pairs kept apart now, by egress then host
	Rotations     int64          `json:"rotations"`      // times the node switched egress
	HostsDisabled int64          `json:"hosts_disabled"` // times a host went on the disable list
}

// EgressRow is one egress in the pane.
type EgressRow struct {
	Name         string    `json:"name"`
	Kind         Kind      `json:"kind"`
	Address      string    `json:"address"`       // masked spec
	Node         string    `json:"node"`          // assigned node, "" when free
	OnNode       bool      `json:"on_node"`       // on this node's list
	Current      bool      `json:"current"`       // the node is on it now
	StartTime    time.Time `json:"start_time"`    // seed's start_time (zero: never used)
	RecentlyUsed string    `json:"recently_used"` // seed's y/n
	Requests     int64     `json:"requests"`
	Refusals     int64     `json:"refusals"`      // site bans
	Faults       int64     `json:"faults"`        // proxy faults
	SuccessRate  float64   `json:"success_rate"`  // share of requests not refused; 1 before any
	BannedHosts  int       `json:"banned_hosts"`  // hosts this egress is banned for now
	CoolingUntil time.Time `json:"cooling_until"` // proxy-fault cooldown end, zero when none
	State        string    `json:"state"`         // "in use", "ready", "cooling", "free"
}

// Stats are the egress figures of --stats-json ("egress": {...}).
type Stats struct {
	Rotations     int64 `json:"rotations"`      // times the node switched egress
	HostsDisabled int64 `json:"hosts_disabled"` // times a host went on the host_disable_list
}

// Stats returns the rotation's counters.
func (r *Rotation) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Rotations: r.rotations, HostsDisabled: r.disables}
}

// DisabledHost is one host_disable_list entry.
type DisabledHost struct {
	Host     string        `json:"host"`
	Since    time.Time     `json:"since"`
	Until    time.Time     `json:"until"`
	TimeLeft time.Duration `json:"time_left"`     // 0 once expired (removed at the next round)
	Why      string        `json:"why,omitempty"` // vendor and evidence of the refusal that disabled it, shown in the Egress pane
}

// PairBan is one (egress, host) pair the rotation keeps apart after a site ban (M3):
// the host refused that egress, so no lane on it fetches the host until Until.
type PairBan struct {
	Egress string    `json:"egress"`
	Host   string    `json:"host"`
	At     time.Time `json:"at"`    // when the ban was set; a refusal while it holds extends Until, not At
	Until  time.Time `json:"until"` // max(Retry-After, PairBanFor) after the last refusal
	Why    string    `json:"why"`   // vendor and evidence of the last refusal
}

// PairBans returns the pair bans in force now, by egress then host. Benchmarks
// compare them with the site's own record of its bans (when each began matters for
// "detected within n requests").
func (r *Rotation) PairBans() []PairBan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pairBans(r.cfg.Now())
}

func (r *Rotation) pairBans(now time.Time) []PairBan {
	out := make([]PairBan, 0, len(r.bans))
	for k, b := range r.bans {
		if now.Before(b.until) {
			out = append(out, PairBan{Egress: k.egress, Host: k.host, At: b.at, Until: b.until, Why: b.why})
		}
	}
	slices.SortFunc(out, func(a, b PairBan) int {
		return cmp.Or(cmp.Compare(a.Egress, b.Egress), cmp.Compare(a.Host, b.Host))
	})
	return out
}

// View returns the node's side of the pane (names only; Pool.View adds the table).
func (r *Rotation) View() View {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Now()
	v := View{At: now, Node: r.cfg.Node, Current: r.current, Rotations: r.rotations, HostsDisabled: r.disables}
	banned := map[string]int{}
	for k, b := range r.bans {
		if now.Before(b.until) {
			banned[k.egress]++
		}
	}
	for _, s := range r.list {
		row := EgressRow{
			Name: s.name, Node: r.cfg.Node, OnNode: true, Current: s.name == r.current,
			StartTime: s.start, RecentlyUsed: yn(s.used), Requests: s.requests,
			Refusals: s.refusals, Faults: s.faults, BannedHosts: banned[s.name], SuccessRate: 1,
		}
		if s.requests > 0 {
			row.SuccessRate = float64(s.requests-s.refusals-s.faults) / float64(s.requests)
		}
		switch {
		case now.Before(s.faultUntil):
			row.State, row.CoolingUntil = "cooling", s.faultUntil
		case row.Current:
			row.State = "in use"
		default:
			row.State = "ready"
		}
		v.Egresses = append(v.Egresses, row)
	}
	v.Disabled = r.disabledView(now)
	v.PairBans = r.pairBans(now)
	return v
}

func (r *Rotation) disabledView(now time.Time) []DisabledHost {
	out := make([]DisabledHost, 0, len(r.disabled))
	for h, d := range r.disabled {
		out = append(out, DisabledHost{Host: h, Since: d.since, Until: d.until, TimeLeft: max(d.until.Sub(now), 0), Why: d.why})
	}
	sortBy(out, func(d DisabledHost) string { return d.Host })
	return out
}

func yn(b bool) string {
	if b {
		return "y"
	}
	return "n"
}

// VPNsNeeded is seed 003's sizing estimate: egresses needed ≈ ceil(keywords × search
// pages per keyword ÷ pages one IP may fetch). It returns 0 when pagesPerIP is not
// positive (quota unknown).
func VPNsNeeded(keywords, pagesPerKeyword, pagesPerIP int) int {
	if pagesPerIP <= 0 || keywords <= 0 || pagesPerKeyword <= 0 {
		return 0
	}
	return int(math.Ceil(float64(keywords) * float64(pagesPerKeyword) / float64(pagesPerIP)))
}

// sortBy sorts s by a string key, stably, so views are deterministic.
func sortBy[T any](s []T, key func(T) string) {
	slices.SortStableFunc(s, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}
