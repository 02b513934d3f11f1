package engine

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
)

// The operator's controls on a master (M4): lanes and hosts live on workers, so a
// lane or host control goes to the worker that holds it, and a crawl-wide one to
// every live worker. The console numbers lanes with master-wide IDs (master.Table.Lane).

func (m *masterRuntime) lane(id int) (string, int, error) {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	return m.book.Lane(id)
}

// pauseLane pauses or resumes a worker's lane.
func (m *masterRuntime) pauseLane(id int, paused bool) error {
	node, lane, err := m.lane(id)
	if err != nil {
		return err
	}
	return m.control(node, &wire.Control{Op: wire.OpPauseLane, Lane: lane, Paused: paused}, &wire.ControlReply{})
}

// rotateLane moves a worker's lane to another of its egresses.
func (m *masterRuntime) rotateLane(id int) (string, error) {
	node, lane, err := m.lane(id)
	if err != nil {
		return "", err
	}
	var reply wire.ControlReply
	if err := m.control(node, &wire.Control{Op: wire.OpRotateLane, Lane: lane}, &reply); err != nil {
		return "", err
	}
	return reply.Result, nil
}

// pauseHost holds or lets go a host's requests on every worker.
func (m *masterRuntime) pauseHost(host string, paused bool) error {
	return m.hostControl(wire.OpPauseHost, host, paused)
}

// setMaxLanes sets lanes.max on every worker.
func (m *masterRuntime) setMaxLanes(n int) error {
	if n < 1 {
		return fmt.Errorf("lanes.max must be at least 1, got %d", n)
	}
	_, err := m.everyWorker(&wire.Control{Op: wire.OpSetLanes, N: n})
	return err
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
	names := m.book.LiveNames()
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
	a, err := m.accts.Add(spec)
	if err != nil {
		return "", err
	}
	m.e.logf(LevelInfo, 0, "", "egress %s added to the account table by operator", a.Name)
	return a.Name, nil
}

// removeEgress takes an egress out of the table and off the worker it was granted to.
func (m *masterRuntime) removeEgress(name string) error {
	m.e.mu.Lock()
	holder := m.book.Ungrant(name)
	m.e.mu.Unlock()
	if holder != "" {
		if err := m.control(holder, &wire.Control{Op: wire.OpRemoveEgress, Host: name}, &wire.ControlReply{}); err != nil {
			return fmt.Errorf("worker %s: %w", holder, err)
		}
	}
	if err := m.accts.Remove(name); err != nil {
		return err
	}
	m.e.logf(LevelInfo, 0, "", "egress %s removed by operator", name)
	return nil
}
