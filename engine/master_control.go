package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// The operator's controls on a master (M4): lanes and hosts live on workers, so a
// lane or host control goes to the worker that holds it, and a crawl-wide one to
// every live worker. The console numbers lanes with master-wide IDs (laneRef).

// laneRef is a worker's lane, under the ID the master's console shows.
type laneRef struct {
	node string
	lane int
}

// globalLane returns the console ID of a worker's lane, giving it one on first
// sight. Caller holds e.mu.
func (m *masterRuntime) globalLane(node string, lane int) int {
	ref := laneRef{node, lane}
	if id, ok := m.laneIDs[ref]; ok {
		return id
	}
	m.nextLane++
	m.laneIDs[ref] = m.nextLane
	m.laneRefs[m.nextLane] = ref
	return m.nextLane
}

// forgetLanes drops the IDs of a worker's lanes that its last heartbeat no longer
// lists. Caller holds e.mu.
func (m *masterRuntime) forgetLanes(node string, live map[int]bool) {
	for ref, id := range m.laneIDs {
		if ref.node == node && !live[ref.lane] {
			delete(m.laneIDs, ref)
			delete(m.laneRefs, id)
		}
	}
}

func (m *masterRuntime) lane(id int) (laneRef, error) {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	ref, ok := m.laneRefs[id]
	if !ok {
		return laneRef{}, fmt.Errorf("no lane %d", id)
	}
	return ref, nil
}

// pauseLane pauses or resumes a worker's lane.
func (m *masterRuntime) pauseLane(id int, paused bool) error {
	ref, err := m.lane(id)
	if err != nil {
		return err
	}
	return m.control(ref.node, &wire.Control{Op: wire.OpPauseLane, Lane: ref.lane, Paused: paused}, &wire.ControlReply{})
}

// rotateLane moves a worker's lane to another of its egresses.
func (m *masterRuntime) rotateLane(id int) (string, error) {
	ref, err := m.lane(id)
	if err != nil {
		return "", err
	}
	var reply wire.ControlReply
	if err := m.control(ref.node, &wire.Control{Op: wire.OpRotateLane, Lane: ref.lane}, &reply); err != nil {
		return "", err
	}
	return reply.Result, nil
}

// hostControl sends a host control (pause_host, disable_host) to every live worker:
// a host's URLs are with the worker holding its site, and a social site's search host
// with every worker holding one of its keyword shards.
func (m *masterRuntime) hostControl(op, host string, on bool) error {
	if host == "" {
		return errors.New("no host given")
	}
	_, err := m.everyWorker(&wire.Control{Op: op, Host: host, Paused: on})
	return err
}

// everyWorker sends a control to every live worker and sums their numeric results;
// the first error is returned with the others' results.
func (m *masterRuntime) everyWorker(c *wire.Control) (int, error) {
	m.e.mu.Lock()
	var names []string
	for name, n := range m.nodes {
		if n.state != NodeDead {
			names = append(names, name)
		}
	}
	m.e.mu.Unlock()
	if len(names) == 0 {
		return 0, errors.New("no live worker")
	}
	total := 0
	var first error
	for _, name := range names {
		var reply wire.ControlReply
		if err := m.control(name, c, &reply); err != nil {
			if first == nil {
				first = fmt.Errorf("worker %s: %w", name, err)
			}
			continue
		}
		n, _ := strconv.Atoi(reply.Result)
		total += n
	}
	return total, first
}

// errOnWorkers answers controls a master cannot carry out itself yet.
func errOnWorkers(what string) error {
	return fmt.Errorf("%s: on a distributed crawl each worker does this for itself (seed-003 rebalancing over workers is not built yet)", what)
}

// addEgress puts an egress in the account table: a worker gets it when it claims one.
func (m *masterRuntime) addEgress(spec string) (string, error) {
	a, err := m.table.Add(spec)
	if err != nil {
		return "", err
	}
	m.e.logf(LevelInfo, 0, "", "egress %s added to the account table by operator", a.Name)
	return a.Name, nil
}

// removeEgress takes an egress out of the table and off the worker it was granted to.
func (m *masterRuntime) removeEgress(name string) error {
	m.e.mu.Lock()
	holder := ""
	for _, n := range m.nodes {
		if i := slices.Index(n.grants, name); i >= 0 {
			holder = n.name
			n.grants = slices.Delete(n.grants, i, i+1)
		}
	}
	m.e.mu.Unlock()
	if holder != "" {
		if err := m.control(holder, &wire.Control{Op: wire.OpRemoveEgress, Host: name}, &wire.ControlReply{}); err != nil {
			return fmt.Errorf("worker %s: %w", holder, err)
		}
	}
	if err := m.table.Remove(name); err != nil {
		return err
	}
	m.e.logf(LevelInfo, 0, "", "egress %s removed by operator", name)
	return nil
}

// egressView is the master's Egress pane (M3 over nodes): each live worker's rotation
// rows under its name, then the account table's egresses held by no worker, with
// every worker's disable list and pair bans. Caller holds e.mu.
func (m *masterRuntime) egressView(now time.Time) *EgressView {
	v := &EgressView{At: now, Node: "master"}
	shown := map[string]bool{}
	for _, name := range sortedKeys(m.nodes) {
		n := m.nodes[name]
		if n.state == NodeDead || n.hb.Egress == nil {
			continue
		}
		w := n.hb.Egress
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
	for _, a := range m.table.Accounts() {
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

// workerRefusals sums the refusals workers rerouted: they never reach the master as
// results. Caller holds e.mu.
func (m *masterRuntime) workerRefusals() int64 {
	var n int64
	for _, nd := range m.nodes {
		n += nd.hb.Refused + nd.refusedBefore
	}
	return n
}

// dnsView is the master's DNS pane (M5 over nodes): the live workers' caches added
// up (counts summed, rates recomputed; latency percentiles are the worst worker's;
// the slowest domains and negative entries merged, heaviest first). nil when no
// worker reported one. Caller holds e.mu.
func (m *masterRuntime) dnsView(now time.Time) *DNSView {
	var out *DNSView
	for _, name := range sortedKeys(m.nodes) {
		n := m.nodes[name]
		v := n.hb.DNS
		if n.state == NodeDead || v == nil {
			continue
		}
		if out == nil {
			out = &DNSView{At: now}
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
