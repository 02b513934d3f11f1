package master

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/balance"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The operator's controls on a master (M4): lanes and hosts live on workers, so a
// lane or host control goes to the worker that holds it, and a crawl-wide one to
// every live worker. The console numbers lanes with master-wide IDs (Table.Lane).

func (l *Link) lane(id int) (string, int, error) {
	l.host.Lock()
	defer l.host.Unlock()
	return l.book.Lane(id)
}

// PauseLane pauses or resumes a worker's lane.
func (l *Link) PauseLane(id int, paused bool) error {
	node, lane, err := l.lane(id)
	if err != nil {
		return err
	}
	return l.Control(node, &wire.Control{Op: wire.OpPauseLane, Lane: lane, Paused: paused}, &wire.ControlReply{})
}

// RotateLane moves a worker's lane to another of its egresses.
func (l *Link) RotateLane(id int) (string, error) {
	node, lane, err := l.lane(id)
	if err != nil {
		return "", err
	}
	var reply wire.ControlReply
	if err := l.Control(node, &wire.Control{Op: wire.OpRotateLane, Lane: lane}, &reply); err != nil {
		return "", err
	}
	return reply.Result, nil
}

// PauseHost holds or lets go a host's requests on every worker.
func (l *Link) PauseHost(host string, paused bool) error {
	return l.HostControl(wire.OpPauseHost, host, paused, 0)
}

// SetMaxLanes sets lanes.max on every worker. A worker not live now (joining, or
// declared dead and rejoining) gets it with its join's reply: recorded before the
// live workers are listed, so a join answered after that carries it, and one
// answered before is listed.
func (l *Link) SetMaxLanes(n int) error {
	if n < 1 {
		return fmt.Errorf("lanes.max must be at least 1, got %d", n)
	}
	l.host.Lock()
	l.lanesSeq++
	l.lanesMax = n
	seq := l.lanesSeq
	l.host.Unlock()
	_, err := l.EveryWorker(&wire.Control{Op: wire.OpSetLanes, N: n, Seq: seq})
	return err
}

// LanesMax is the operator's last lanes.max for the workers, 0 if none was set.
// Caller holds the host's lock (the crawl's).
func (l *Link) LanesMax() int { return l.lanesMax }

// HostControl sends a host control (pause_host, disable_host) to every live worker:
// a host's URLs are with the worker holding its site, and a social site's search host
// with every worker holding one of its keyword shards. A worker not live now gets it
// with its join's reply (PausedHosts, DisabledHosts), as lanes.max (SetMaxLanes):
// recorded and numbered before the live workers are listed. A disable lasts lasts,
// rotation.disable_for if 0 (lasts > 0: what is left of one the last run kept). A
// worker's failure is a crew.Unanswered: the master holds the control all the same.
func (l *Link) HostControl(op, host string, on bool, lasts time.Duration) error {
	if host == "" {
		return errors.New("no host given")
	}
	if op != wire.OpDisableHost || !on {
		lasts = 0
	} else if lasts <= 0 {
		lasts = l.host.Settings().Rotation.DisableFor
	}
	l.host.Lock()
	l.hostsSeq++
	seq := l.hostsSeq
	if on {
		if l.hostsOn[op] == nil {
			l.hostsOn[op] = map[string]bool{}
		}
		l.hostsOn[op][host] = true
		if lasts > 0 {
			l.disabledUntil[host] = l.host.Now().Add(lasts)
		}
	} else {
		delete(l.hostsOn[op], host)
		delete(l.disabledUntil, host)
	}
	if op == wire.OpPauseHost {
		l.book.SetHostPaused(host, on)
	}
	l.host.Unlock()
	_, err := l.EveryWorker(&wire.Control{Op: op, Host: host, Paused: on, Seq: seq, For: lasts})
	if errors.Is(err, errNoLiveWorker) {
		return nil // the workers to come get it with their join
	}
	if op == wire.OpPauseHost && on {
		// What the workers queued of it comes back to wait at the master (the
		// table deals none while it is paused): it would hold their windows.
		l.Recall(func(t frontier.Task) bool { return t.Host == host })
	}
	if err != nil {
		return &crew.Unanswered{Err: err} // held here all the same, for the joins to come
	}
	return nil
}

// hostsHeld lists, sorted, the hosts the operator holds with op (pause_host,
// disable_host), a disable until its end. Caller holds the lock.
func (l *Link) hostsHeld(op string) []string {
	for h := range l.hostsOn[op] {
		if until, ok := l.disabledUntil[h]; ok && op == wire.OpDisableHost && !l.host.Now().Before(until) {
			delete(l.hostsOn[op], h)
			delete(l.disabledUntil, h)
		}
	}
	if len(l.hostsOn[op]) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(l.hostsOn[op]))
}

// errNoLiveWorker is EveryWorker's error when no worker is live.
var errNoLiveWorker = errors.New("no live worker")

// EveryWorker sends a control to every live worker and sums their numeric results;
// the first error is returned with the others' results.
func (l *Link) EveryWorker(c *wire.Control) (int, error) {
	l.host.Lock()
	names := l.book.LiveNames()
	l.host.Unlock()
	if len(names) == 0 {
		return 0, errNoLiveWorker
	}
	total := 0
	var first error
	for _, name := range names {
		var reply wire.ControlReply
		if err := l.Control(name, c, &reply); err != nil {
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

// AddEgress puts an egress in the account table: a worker gets it when it claims one.
func (l *Link) AddEgress(spec string) (string, error) {
	a, err := l.accts.Add(spec)
	if err != nil {
		return "", err
	}
	l.host.Logf(view.LevelInfo, "egress %s added to the account table by operator", a.Name)
	return a.Name, nil
}

// RemoveEgress takes an egress out of the table and off the worker it was granted to.
func (l *Link) RemoveEgress(name string) error {
	l.host.Lock()
	holder := l.book.Ungrant(name)
	l.host.Unlock()
	if holder != "" {
		if err := l.Control(holder, &wire.Control{Op: wire.OpRemoveEgress, Host: name}, &wire.ControlReply{}); err != nil {
			return fmt.Errorf("worker %s: %w", holder, err)
		}
	}
	if err := l.accts.Remove(name); err != nil {
		return err
	}
	l.host.Logf(view.LevelInfo, "egress %s removed by operator", name)
	return nil
}

// Balancing over workers (M4, package master): a plan is computed on the table and
// shown; applying it moves units, and asks their old owners to release thel.

// PlanRebalance computes the re-deal of the units over the live workers.
func (l *Link) PlanRebalance() view.RebalancePlan {
	l.host.Lock()
	defer l.host.Unlock()
	p, err := l.book.PlanBalance(balance.Options{Threshold: l.o.BalanceThreshold,
		CounterThreshold: l.balance.CounterThreshold, IterationThreshold: l.balance.IterationThreshold,
		Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		p.Summary = "no plan: " + err.Error()
	}
	return p
}

// ApplyRebalance carries out a plan over workers: each unit still held by the plan's
// From moves to its To once From reported its tasks of it (released now).
func (l *Link) ApplyRebalance(p view.RebalancePlan) error {
	if !p.Workers {
		return errOnWorkers("rebalance lanes over egresses")
	}
	l.host.Lock()
	a, err := l.book.ApplyBalance(p)
	if err == nil {
		l.SaveCosts()
	}
	l.host.Unlock()
	if err != nil {
		return err
	}
	l.releaseAll(a.Release)
	var paused []string
	for _, name := range sortedKeys(a.Paused) {
		paused = append(paused, fmt.Sprintf("; %d %s: %s was paused since the plan", a.Paused[name], plural.Noun(a.Paused[name], "stays", "stay"), name))
	}
	l.host.Logf(view.LevelInfo, "rebalance over workers: %d of %s moving (%s)%s", a.Moved,
		plural.Count(len(p.Units), "site/keyword shard", "sites/keyword shards"), p.Summary, strings.Join(paused, ""))
	return nil
}

// BalanceDaily applies a plan when the workers' totals drifted apart (daily).
func (l *Link) BalanceDaily(time.Time) {
	p := l.PlanRebalance()
	if len(p.Units) == 0 {
		return
	}
	if err := l.ApplyRebalance(p); err != nil && !errors.Is(err, ErrBalancing) {
		l.host.Logf(view.LevelWarn, "daily rebalance: %v", err)
	}
}
