package fake

import (
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// nodeShape is how the fake's i-th worker stands (M4): its state and the age of
// its last heartbeat. Workers past the list are active with a fresh heartbeat.
var nodeShape = []struct {
	state view.NodeState
	age   time.Duration
}{
	{view.NodeActive, 2 * time.Second},
	{view.NodeActive, 12 * time.Second}, // missed two beats: the pane marks it
	{view.NodePaused, 3 * time.Second},  // paused workers still send heartbeats
	{view.NodeDead, 67 * time.Second},   // its hosts went to the others
	{view.NodeLeaving, 1 * time.Second},
}

func nodeName(i int) string { return fmt.Sprintf("worker-%d", i+1) }

// buildNodes turns s into a distributed crawl's snapshot (M4): cfg.Workers workers,
// the lanes and groups dealt round-robin over the live ones, each lane leaving from
// one of its worker's egresses (worker i owns egresses i, i+W, i+2W, ...).
func buildNodes(s *view.Snapshot, cfg Config) {
	w := cfg.Workers
	var live []int
	for i := range w {
		n := view.Node{
			Name:     nodeName(i),
			State:    view.NodeActive,
			LanesMax: max(cfg.LanesMax/2, 1),
			Joined:   Epoch.Add(-time.Hour - time.Duration(i)*7*time.Minute),
			Results:  int64(1200 + i*3517),
			Late:     int64(i * 3),
		}
		age := time.Second
		if i < len(nodeShape) {
			n.State, age = nodeShape[i].state, nodeShape[i].age
		}
		n.Heartbeat = Epoch.Add(-age)
		for e := i; e < cfg.Egresses; e += w {
			n.Egresses = append(n.Egresses, egressName(e))
		}
		switch {
		case cfg.Direct:
			n.Egresses = []string{"direct"}
		case len(n.Egresses) == 0: // fewer egresses than workers: they share
			n.Egresses = []string{egressName(i % cfg.Egresses)}
		}
		if n.State != view.NodeDead {
			live = append(live, i)
		} else {
			n.Egresses = nil // the master took its grants back: a dead worker holds none
		}
		s.Nodes = append(s.Nodes, n)
	}
	s.HeartbeatEvery = 5 * time.Second // the master's default
	if len(live) == 0 {
		return
	}
	hosts := make([]map[string]bool, w)
	for i := range s.Lanes {
		ni := live[i%len(live)]
		n := &s.Nodes[ni]
		l, g := &s.Lanes[i], &s.Groups[i]
		eg := n.Egresses[n.Lanes%len(n.Egresses)]
		l.Node, l.Egress = n.Name, eg
		g.Node, g.Egress = n.Name, eg
		if n.State == view.NodePaused {
			l.Status, l.NextFetch = view.LanePaused, time.Time{}
		}
		n.Lanes++
		n.LanesMax = max(n.LanesMax, n.Lanes)
		n.Queue += l.Queued
		if hosts[ni] == nil {
			hosts[ni] = map[string]bool{}
		}
		for _, h := range l.Hosts {
			hosts[ni][h] = true
		}
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		n.Hosts = len(hosts[i])
		n.Sites, n.Keywords = (n.Hosts+1)/2, i%3 // a site per two hosts; some keyword shards
		n.Weight = float64(n.Sites+n.Keywords) / 20
		n.Cost = time.Duration(n.Sites+n.Keywords) * 7 * time.Second
		if n.State == view.NodeActive || n.State == view.NodeLeaving {
			n.PagesPerSec = float64(n.Lanes) * (3.1 + float64(i%3)*0.7)
		}
	}
}

// tickNodes moves the workers on by one second: the live ones heartbeat and the
// active ones deliver results; the caller holds mu.
func (c *Control) tickNodes() {
	for i := range c.snap.Nodes {
		n := &c.snap.Nodes[i]
		if n.State == view.NodeDead {
			continue
		}
		n.Heartbeat = n.Heartbeat.Add(time.Second)
		if n.State == view.NodeActive {
			n.Results += int64(n.Lanes)
		}
	}
}
