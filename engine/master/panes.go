package master

import (
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/merge"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// What the master's console shows of its workers: the Nodes pane, the workers'
// lanes under master-wide IDs, and the Egress and DNS panes added up over workers.

// Lane is the worker and its own lane number behind a console lane ID.
func (t *Table) Lane(id int) (node string, lane int, err error) { return t.lanes.Lane(id) }

// View returns the Nodes pane rows and the workers' lanes.
func (t *Table) View() ([]view.Node, []view.Lane) {
	var nodes []view.Node
	var rows []view.Lane
	held := make([]string, 0, len(t.units))
	for u, q := range t.units {
		if q.owner != "" {
			held = append(held, u)
		}
	}
	weights := t.costs.Weights(held)
	for _, name := range sortedKeys(t.nodes) {
		n := t.nodes[name]
		row := view.Node{Name: name, State: n.shown(), Heartbeat: n.heard, Joined: n.joined,
			Egresses: n.hb.Egresses, Lanes: n.hb.Lanes, LanesMax: n.hb.LanesMax, PagesPerSec: n.hb.PagesPerSec,
			Queue: len(n.held), Results: n.results, Late: n.late}
		if n.state == view.NodeDead {
			// Its last heartbeat is history: a dead worker holds no egress (bury
			// gave its grants back to the table), runs no lane and fetches nothing.
			// What it did (results, late) stays.
			row.Egresses, row.Lanes, row.PagesPerSec = nil, 0, 0
		}
		hosts := map[string]bool{}
		for u := range n.units {
			row.Weight += weights[u]
			row.Cost += t.costs.Current(u)
			if strings.Contains(u, " · ") {
				row.Keywords++
			} else {
				row.Sites++
			}
			if q := t.units[u]; q != nil {
				for h := range q.hosts {
					hosts[h] = true
				}
			}
		}
		row.Hosts = len(hosts)
		nodes = append(nodes, row)
		if n.state != view.NodeDead {
			for _, r := range n.hb.Rows {
				r.Node = name
				rows = append(rows, r)
			}
		}
	}
	return nodes, rows
}

// EgressView is the master's Egress pane (M3 over nodes): each live worker's rotation
// rows under its name, then the account table's egresses held by no worker, with
// every worker's disable list and pair bans (merge.Egress).
func (t *Table) EgressView(now time.Time) *view.EgressView {
	var workers []merge.Worker
	for _, name := range sortedKeys(t.nodes) {
		if n := t.nodes[name]; n.state != view.NodeDead && n.hb.Egress != nil {
			workers = append(workers, merge.Worker{Name: name, View: n.hb.Egress})
		}
	}
	var accounts []egress.Account
	if t.accounts != nil {
		accounts = t.accounts.Accounts()
	}
	return merge.Egress(workers, accounts, now)
}

// WorkerRefusals sums the refusals workers rerouted: they never reach the master as
// results.
func (t *Table) WorkerRefusals() int64 {
	var n int64
	for _, nd := range t.nodes {
		n += nd.hb.Refused + nd.refusedBefore
	}
	return n
}

// DNSView is the master's DNS pane (M5 over nodes): the live workers' caches added
// up (merge.DNS). nil when no worker reported one.
func (t *Table) DNSView(now time.Time) *view.DNSView {
	var views []*view.DNSView
	for _, name := range sortedKeys(t.nodes) {
		if n := t.nodes[name]; n.state != view.NodeDead && n.hb.DNS != nil {
			views = append(views, n.hb.DNS)
		}
	}
	return merge.DNS(views, now)
}
