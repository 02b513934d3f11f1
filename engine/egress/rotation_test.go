package egress

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// fakeClock is the injected clock: tests move it explicitly.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) set(d time.Duration)     { c.now = t0.Add(d) }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// newTestRotation builds a node on a table of n egresses e1..en (bind specs: no I/O).
func newTestRotation(t *testing.T, n int, cfg RotationConfig) (*Rotation, *Table, *fakeClock) {
	t.Helper()
	var specs []string
	for i := 1; i <= n; i++ {
		specs = append(specs, fmt.Sprintf("bind:10.0.0.%d", i))
	}
	parsed, err := ParseSpecs(specs)
	if err != nil {
		t.Fatal(err)
	}
	table, err := OpenTable(&MemoryStore{}, parsed)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{now: t0}
	cfg.Now = clk.Now
	return NewRotation(cfg, table), table, clk
}

// listState renders the node's list as "e1*@10s/y e2@-/n": name, * for current,
// start_time as offset from t0 (- never used), recently_used.
func listState(r *Rotation) string {
	var parts []string
	for _, row := range r.View().Egresses {
		start := "-"
		if !row.StartTime.IsZero() {
			start = row.StartTime.Sub(t0).String()
		}
		cur := ""
		if row.Current {
			cur = "*"
		}
		parts = append(parts, fmt.Sprintf("%s%s@%s/%s", row.Name, cur, start, row.RecentlyUsed))
	}
	return strings.Join(parts, " ")
}

func ban(reason string) Verdict   { return Verdict{Class: SiteBan, Reason: reason} }
func fault(reason string) Verdict { return Verdict{Class: ProxyFault, Reason: reason} }

var okVerdict = Verdict{Class: OK}

// step is one event of a walk through the seed's rotation, and what must follow.
type step struct {
	name    string
	at      time.Duration                   // clock offset from t0
	do      func(r *Rotation) Decision      // the event
	action  Action                          // expected decision
	egress  string                          // expected Decision.Egress ("" = don't care)
	rotated bool                            //
	claimed string                          //
	state   string                          // expected listState after the step
	check   func(t *testing.T, r *Rotation) // extra checks, may be nil
}

func pick(host string) func(*Rotation) Decision {
	return func(r *Rotation) Decision { return r.Pick(host) }
}
func report(e, host string, v Verdict) func(*Rotation) Decision {
	return func(r *Rotation) Decision { return r.Report(e, host, v) }
}

func runSteps(t *testing.T, r *Rotation, clk *fakeClock, steps []step) {
	t.Helper()
	for i, s := range steps {
		t.Run(fmt.Sprintf("%02d_%s", i, s.name), func(t *testing.T) {
			clk.set(s.at)
			d := s.do(r)
			if d.Action != s.action || (s.egress != "" && d.Egress != s.egress) || d.Rotated != s.rotated || d.Claimed != s.claimed {
				t.Fatalf("decision = {%v %s rotated=%v claimed=%q} (%s), want {%v %s rotated=%v claimed=%q}",
					d.Action, d.Egress, d.Rotated, d.Claimed, d.Reason, s.action, s.egress, s.rotated, s.claimed)
			}
			if got := listState(r); s.state != "" && got != s.state {
				t.Fatalf("list = %q, want %q", got, s.state)
			}
			if s.check != nil {
				s.check(t, r)
			}
		})
		if t.Failed() {
			return // later steps depend on this one
		}
	}
}

func disabledState(r *Rotation) string {
	var parts []string
	for _, d := range r.DisabledHosts() {
		parts = append(parts, fmt.Sprintf("%s@%s..%s", d.Host, d.Since.Sub(t0), d.Until.Sub(t0)))
	}
	return strings.Join(parts, " ")
}

func wantDisabled(want string) func(t *testing.T, r *Rotation) {
	return func(t *testing.T, r *Rotation) {
		t.Helper()
		if got := disabledState(r); got != want {
			t.Fatalf("host_disable_list = %q, want %q", got, want)
		}
	}
}

// TestRotationSeedWalk walks seed 003 step 5 (3-1, 3-2-1 .. 3-2-4) and step 3 (round
// start) one event at a time on a node that starts with 2 of 4 egresses.
func TestRotationSeedWalk(t *testing.T) {
	r, table, clk := newTestRotation(t, 4, RotationConfig{})
	if got, want := listState(r), "e1*@0s/y e2@-/n"; got != want {
		t.Fatalf("initial list = %q, want %q (2 per node, start on least recently used)", got, want)
	}
	runSteps(t, r, clk, []step{
		{name: "pick uses current", at: time.Second, do: pick("a.test"), action: Fetch, egress: "e1",
			state: "e1*@0s/y e2@-/n"},
		{name: "success keeps current", at: 2 * time.Second, do: report("e1", "a.test", okVerdict), action: Done,
			state: "e1*@0s/y e2@-/n"},
		{name: "refusal rotates to oldest n", at: 10 * time.Second, do: report("e1", "a.test", ban("403")),
			action: Retry, egress: "e2", rotated: true, state: "e1@0s/y e2*@10s/y"},
		{name: "success marks others n", at: 11 * time.Second, do: report("e2", "a.test", okVerdict), action: Done,
			state: "e1@0s/n e2*@10s/y"},
		{name: "refusal takes the n with oldest start", at: 20 * time.Second, do: report("e2", "b.test", ban("429")),
			action: Retry, egress: "e1", rotated: true, state: "e1*@20s/y e2@10s/y"},
		{name: "all y: new egress from the table", at: 21 * time.Second, do: report("e1", "b.test", fault("proxy down")),
			action: Retry, egress: "e3", rotated: true, claimed: "e3", state: "e1@20s/y e2@10s/y e3*@21s/y",
			check: func(t *testing.T, r *Rotation) {
				if a, _ := table.Account("e3"); a.State != AccountAssigned || a.Node != "local" {
					t.Fatalf("e3 in table = %s/%q, want assigned to local", a.State, a.Node)
				}
			}},
		{name: "all y again: last free egress", at: 22 * time.Second, do: report("e3", "b.test", ban("captcha")),
			action: Retry, egress: "e4", rotated: true, claimed: "e4", state: "e1@20s/y e2@10s/y e3@21s/y e4*@22s/y"},
		{name: "none free: host disabled, others n", at: 23 * time.Second, do: report("e4", "b.test", ban("403")),
			action: DeferHost, egress: "e4", state: "e1@20s/n e2@10s/n e3@21s/n e4*@22s/y",
			check: wantDisabled("b.test@23s..2h0m23s")},
		{name: "disabled host deferred", at: 24 * time.Second, do: pick("b.test"), action: DeferHost,
			check: func(t *testing.T, r *Rotation) {
				if d := r.Pick("b.test"); !d.Until.Equal(t0.Add(2*time.Hour + 23*time.Second)) {
					t.Fatalf("deferred until %v, want t0+2h23s", d.Until.Sub(t0))
				}
			}},
		{name: "other hosts continue", at: 25 * time.Second, do: pick("a.test"), action: Fetch, egress: "e4"},
		{name: "round start keeps young entries", at: time.Hour, do: func(r *Rotation) Decision {
			if removed := r.BeginRound(clk.Now()); len(removed) != 0 {
				t.Fatalf("BeginRound at 1h removed %v", removed)
			}
			return r.Pick("b.test")
		}, action: DeferHost, check: wantDisabled("b.test@23s..2h0m23s")},
		{name: "round start removes expired entries", at: 2*time.Hour + 30*time.Second, do: func(r *Rotation) Decision {
			if removed := r.BeginRound(clk.Now()); len(removed) != 1 || removed[0] != "b.test" {
				t.Fatalf("BeginRound after 2h removed %v, want [b.test]", removed)
			}
			return r.Pick("b.test")
		}, action: Fetch, egress: "e4", check: wantDisabled("")},
	})
	if v := r.View(); v.Rotations != 4 || v.HostsDisabled != 1 {
		t.Errorf("rotations=%d hosts_disabled=%d, want 4 and 1", v.Rotations, v.HostsDisabled)
	}
}

// TestRotationPenalties: a site ban keeps only that (egress, host) pair apart; a proxy
// fault keeps the egress away from every host until its cooldown ends; a refusal
// reported for an egress the node already left retries on the current one.
func TestRotationPenalties(t *testing.T) {
	r, _, clk := newTestRotation(t, 3, RotationConfig{PerNode: 3, PairBanFor: 10 * time.Minute, FaultCooldown: time.Minute})
	rotateNow := func(r *Rotation) Decision { d, _ := r.RotateNow(); return d }
	runSteps(t, r, clk, []step{
		{name: "ban e1 for a", at: time.Second, do: report("e1", "a.test", ban("403")), action: Retry, egress: "e2",
			rotated: true, state: "e1@0s/y e2*@1s/y e3@-/n"},
		{name: "success on e2", at: 2 * time.Second, do: report("e2", "a.test", okVerdict), action: Done,
			state: "e1@0s/n e2*@1s/y e3@-/n"},
		{name: "stale ban from e1 retries on current", at: 3 * time.Second, do: report("e1", "c.test", ban("429")),
			action: Retry, egress: "e2", state: "e1@0s/n e2*@1s/y e3@-/n"},
		{name: "never-used e3 is the oldest n", at: 4 * time.Second, do: report("e2", "b.test", ban("403")),
			action: Retry, egress: "e3", rotated: true, state: "e1@0s/n e2@1s/y e3*@4s/y"},
		{name: "success on e3", at: 5 * time.Second, do: report("e3", "b.test", okVerdict), action: Done,
			state: "e1@0s/n e2@1s/n e3*@4s/y"},
		{name: "operator rotates to e1", at: 6 * time.Second, do: rotateNow, action: Fetch, egress: "e1", rotated: true,
			state: "e1*@6s/y e2@1s/n e3@4s/y"},
		{name: "a avoids e1 (banned for a) without moving the node", at: 7 * time.Second, do: pick("a.test"),
			action: Fetch, egress: "e2", state: "e1*@6s/y e2@1s/n e3@4s/y"},
		{name: "c avoids e1 (stale ban counted)", at: 8 * time.Second, do: pick("c.test"), action: Fetch, egress: "e2"},
		{name: "b may use e1", at: 9 * time.Second, do: pick("b.test"), action: Fetch, egress: "e1"},
		{name: "proxy fault on e1 rotates", at: 10 * time.Second, do: report("e1", "d.test", fault("407")), action: Retry,
			egress: "e2", rotated: true, state: "e1@6s/y e2*@10s/y e3@4s/y"},
		{name: "success marks e1 n", at: 11 * time.Second, do: report("e2", "d.test", okVerdict), action: Done,
			state: "e1@6s/n e2*@10s/y e3@4s/n"},
		{name: "cooling e1 is skipped though n", at: 12 * time.Second, do: report("e2", "d.test", ban("403")),
			action: Retry, egress: "e3", rotated: true, state: "e1@6s/n e2@10s/y e3*@12s/y"},
		{name: "no usable n: d disabled", at: 13 * time.Second, do: report("e3", "d.test", ban("403")),
			action: DeferHost, egress: "e3", state: "e1@6s/n e2@10s/n e3*@12s/y", check: wantDisabled("d.test@13s..2h0m13s")},
		{name: "other hosts avoid cooling e1", at: 20 * time.Second, do: func(r *Rotation) Decision {
			for _, h := range []string{"e.test", "f.test", "g.test"} {
				if d := r.Pick(h); d.Egress == "e1" {
					t.Fatalf("Pick(%s) = e1 during its fault cooldown", h)
				}
			}
			return r.Report("e3", "e.test", ban("403"))
		}, action: Retry, egress: "e2", rotated: true},
		{name: "after its cooldown e1 is chosen again", at: 2 * time.Minute, do: report("e2", "f.test", ban("403")),
			action: Retry, egress: "e1", rotated: true},
		{name: "pair ban on (e1,a) expired after 10m", at: 11 * time.Minute, do: pick("a.test"), action: Fetch, egress: "e1"},
	})
}

// TestRotationRetryAfterExtendsPairBan: a Retry-After longer than PairBanFor is honoured.
func TestRotationRetryAfterExtendsPairBan(t *testing.T) {
	r, _, clk := newTestRotation(t, 2, RotationConfig{PairBanFor: time.Minute})
	r.Report("e1", "a.test", Verdict{Class: SiteBan, RetryAfter: time.Hour})
	r.Report("e2", "a.test", okVerdict)
	r.RotateNow() // node back on e1
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{{30 * time.Minute, "e2"}, {59 * time.Minute, "e2"}, {61 * time.Minute, "e1"}} {
		clk.set(tc.at)
		if d := r.Pick("a.test"); d.Egress != tc.want {
			t.Errorf("at %v Pick(a) = %s, want %s", tc.at, d.Egress, tc.want)
		}
	}
}

// TestRotationNothingWorks: when every egress is cooling down after proxy faults and
// the table is empty, Pick defers hosts (until the first cooldown ends, not 2h) and
// the node recovers when an egress comes back.
func TestRotationNothingWorks(t *testing.T) {
	r, _, clk := newTestRotation(t, 2, RotationConfig{FaultCooldown: time.Minute})
	r.Report("e1", "a.test", fault("down"))
	clk.advance(time.Second)
	if d := r.Report("e2", "a.test", fault("down")); d.Action != DeferHost {
		t.Fatalf("both proxies down: %v, want defer-host", d.Action)
	}
	clk.advance(time.Second)
	d := r.Pick("b.test")
	if d.Action != DeferHost {
		t.Fatalf("Pick(b) with every egress down = %v, want defer-host", d.Action)
	}
	if want := t0.Add(time.Minute); !d.Until.Equal(want) {
		t.Fatalf("b deferred until +%v, want until e1's cooldown ends (+1m)", d.Until.Sub(t0))
	}
	clk.set(time.Minute + time.Second/2) // e1 is back, e2 (faulted 1s later) still cools
	if removed := r.BeginRound(clk.Now()); len(removed) != 1 || removed[0] != "b.test" {
		t.Fatalf("BeginRound removed %v, want [b.test]", removed)
	}
	if d := r.Pick("b.test"); d.Action != Fetch || d.Egress != "e1" || !d.Rotated {
		t.Fatalf("after e1's cooldown Pick(b) = %+v, want fetch e1, rotated", d)
	}
}

// TestRotationAddRemove: egresses added and removed at run time.
func TestRotationAddRemove(t *testing.T) {
	r, table, _ := newTestRotation(t, 4, RotationConfig{})
	r.Remove("e1")
	if r.Current() != "e2" {
		t.Fatalf("removing the current egress left the node on %q, want e2", r.Current())
	}
	if _, err := table.Add("vpn9=bind:10.0.0.9"); err != nil {
		t.Fatal(err)
	}
	// e2 refused: all y, so the node claims a free egress: e3 or e4 come first in
	// table order, then vpn9.
	d := r.Report("e2", "a.test", ban("403"))
	if d.Claimed != "e3" {
		t.Fatalf("claimed %q, want e3", d.Claimed)
	}
	r.Remove("e2")
	r.Remove("e3")
	if r.Current() != "" {
		t.Fatalf("empty list but current = %q", r.Current())
	}
	if d := r.Pick("a.test"); d.Action != Fetch || d.Claimed != "e4" || d.Egress != "e4" {
		t.Fatalf("Pick on an empty list = %+v, want e4 claimed", d)
	}
}

// TestRotationNeverLosesURLs drives a small crawl against a fake web where some
// (egress, host) pairs are banned and one egress is a broken proxy: every URL ends
// fetched or deferred, each within a bounded number of attempts, and no URL is
// fetched through a pair once the rotation has seen it refused.
func TestRotationNeverLosesURLs(t *testing.T) {
	r, _, clk := newTestRotation(t, 4, RotationConfig{FaultCooldown: time.Hour})
	banned := map[[2]string]bool{ // truth of the fake web
		{"e1", "h1"}: true, {"e2", "h1"}: true, {"e3", "h1"}: true, {"e4", "h1"}: true, // h1 bans everyone
		{"e1", "h2"}: true, {"e2", "h3"}: true,
	}
	const broken = "e3"
	hosts := []string{"h1", "h2", "h3", "h4", "h5"}
	fetched, deferred := 0, 0
	deferredHosts := map[string]bool{}
	seenRefused := map[[2]string]bool{}
	const urls = 500
	for i := 0; i < urls; i++ {
		clk.advance(time.Second)
		host := hosts[i%len(hosts)]
		if deferredHosts[host] {
			deferred++
			continue
		}
		d := r.Pick(host)
		for attempt := 0; ; attempt++ {
			if attempt > 8 {
				t.Fatalf("URL %d on %s: no outcome after %d attempts", i, host, attempt)
			}
			if d.Action == DeferHost {
				deferredHosts[host] = true
				deferred++
				break
			}
			pair := [2]string{d.Egress, host}
			if seenRefused[pair] || (seenRefused[[2]string{d.Egress, "*"}]) {
				t.Fatalf("URL %d: sent through %v after it was refused", i, pair)
			}
			var v Verdict
			switch {
			case d.Egress == broken:
				v = fault("CONNECT failed")
				seenRefused[[2]string{d.Egress, "*"}] = true
			case banned[pair]:
				v = ban("403")
				seenRefused[pair] = true
			default:
				v = okVerdict
			}
			d = r.Report(d.Egress, host, v)
			if d.Action == Done {
				fetched++
				break
			}
		}
	}
	if fetched+deferred != urls {
		t.Fatalf("fetched %d + deferred %d != %d URLs", fetched, deferred, urls)
	}
	if !deferredHosts["h1"] || len(deferredHosts) != 1 {
		t.Fatalf("deferred hosts = %v, want only h1 (banned everywhere)", deferredHosts)
	}
	if fetched != urls*4/5 {
		t.Fatalf("fetched %d, want every URL of h2..h5 (%d)", fetched, urls*4/5)
	}
}
