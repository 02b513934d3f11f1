// Package merge adds up what a master's workers report of their own panes into
// the master's: their DNS caches (M5), their egresses and host_disable_lists (M3).
package merge

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// DNS is the workers' DNS caches (M5) added up as the master's DNS pane: counts
// summed, rates recomputed; latency percentiles are the worst worker's; the
// slowest domains and negative entries merged, heaviest first. nil for none.
func DNS(views []*view.DNSView, now time.Time) *view.DNSView {
	var out *view.DNSView
	for _, v := range views {
		if out == nil {
			out = &view.DNSView{At: now}
		}
		a, b := &out.Stats, v.Stats
		a.Lookups += b.Lookups
		a.PositiveHits += b.PositiveHits
		a.NegativeHits += b.NegativeHits
		a.Misses += b.Misses
		a.Rejected += b.Rejected
		a.Prefetched += b.Prefetched
		a.UpstreamQueries += b.UpstreamQueries
		a.UpstreamMessages += b.UpstreamMessages
		a.StaleServed += b.StaleServed
		a.Evicted += b.Evicted
		a.WaitP50Ms = max(a.WaitP50Ms, b.WaitP50Ms)
		a.WaitP99Ms = max(a.WaitP99Ms, b.WaitP99Ms)
		out.Hosts += v.Hosts
		out.Domains += v.Domains
		out.NegativeCount += v.NegativeCount
		out.Backlog += v.Backlog
		out.Workers += v.Workers
		out.InFlight += v.InFlight
		out.UpstreamP50Ms = max(out.UpstreamP50Ms, v.UpstreamP50Ms)
		out.UpstreamP99Ms = max(out.UpstreamP99Ms, v.UpstreamP99Ms)
		out.Slowest = append(out.Slowest, v.Slowest...)
		out.Negative = append(out.Negative, v.Negative...)
	}
	if out == nil {
		return nil
	}
	if l := float64(out.Stats.Lookups); l > 0 {
		out.PositiveRate = float64(out.Stats.PositiveHits) / l
		out.NegativeRate = float64(out.Stats.NegativeHits) / l
		out.MissRate = float64(out.Stats.Misses) / l
		out.Stats.ZeroWaitShare = float64(out.Stats.PositiveHits+out.Stats.NegativeHits) / l
	}
	sort.Slice(out.Slowest, func(i, j int) bool { return out.Slowest[i].MeanMs > out.Slowest[j].MeanMs })
	sort.Slice(out.Negative, func(i, j int) bool { return out.Negative[i].Weight > out.Negative[j].Weight })
	out.Slowest = out.Slowest[:min(len(out.Slowest), 20)]
	out.Negative = out.Negative[:min(len(out.Negative), 20)]
	return out
}

// Disabled is the workers' host_disable_lists as one, by host: a host two
// workers disabled is one host to the operator (the pane's count, ctl status's
// list), disabled from the first worker's entry to the last one's end.
func Disabled(list []egress.DisabledHost) []egress.DisabledHost {
	slices.SortStableFunc(list, func(a, b egress.DisabledHost) int { return strings.Compare(a.Host, b.Host) })
	out := list[:0]
	for _, d := range list {
		if n := len(out); n > 0 && out[n-1].Host == d.Host {
			m := &out[n-1]
			if d.Since.Before(m.Since) {
				m.Since = d.Since
			}
			if d.Until.After(m.Until) {
				m.Until, m.TimeLeft = d.Until, d.TimeLeft
			}
			if m.Why == "" {
				m.Why = d.Why
			}
			continue
		}
		out = append(out, d)
	}
	return out
}

// Worker is one live worker's Egress pane as its last heartbeat reported it.
type Worker struct {
	Name string
	View *view.EgressView
}

// Egress is the master's Egress pane (M3 over nodes): each worker's rotation rows
// under its name, then the master's account table's accounts held by no worker, with
// every worker's disable list and pair bans.
func Egress(workers []Worker, accounts []egress.Account, now time.Time) *view.EgressView {
	v := &view.EgressView{At: now, Node: "master"}
	shown := map[string]bool{}
	for _, wk := range workers {
		name, w := wk.Name, wk.View
		for _, r := range w.Egresses {
			if !r.OnNode {
				continue // the worker's view of the table: the master's own rows below
			}
			r.Node = name
			shown[r.Name] = true
			v.Egresses = append(v.Egresses, r)
		}
		v.Disabled = append(v.Disabled, w.Disabled...)
		v.PairBans = append(v.PairBans, w.PairBans...)
		v.Rotations += w.Rotations
		v.HostsDisabled += w.HostsDisabled
	}
	v.Disabled = Disabled(v.Disabled)
	for _, a := range accounts {
		if shown[a.Name] {
			continue
		}
		state := "free"
		if a.State == egress.AccountAssigned {
			state = "on " + a.Node
		}
		v.Egresses = append(v.Egresses, egress.EgressRow{Name: a.Name, Kind: a.Kind, Address: a.Spec().Masked(),
			Node: a.Node, RecentlyUsed: "n", SuccessRate: 1, State: state})
	}
	return v
}
