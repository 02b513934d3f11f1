package lanes

import (
	"net/url"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Rows are the Lanes and Groups panes' rows for views (Board.View): each lane with
// what it is doing and the politeness gap of the host it fetches, each adjacency
// group with its hosts' gaps and its parent pages, named by parentURL ("" when not
// remembered). Mu held (lock order: Mu, then the gate's).
func (r *Runner) Rows(views []LaneView, parentURL func(hash uint64) string) ([]view.Lane, []view.Group) {
	rows := make([]view.Lane, 0, len(views))
	groups := make([]view.Group, 0, len(views))
	for _, v := range views {
		ls := r.Slot(v.ID)
		row := view.Lane{ID: v.ID, Egress: v.Egress, Hosts: sortedKeys(v.Hosts), Parents: len(v.Parents),
			Queued: v.Queued, Done: v.Done, Paused: v.Paused}
		if ls != nil {
			row.Status, row.Current, row.NextFetch = ls.Status, ls.Current, ls.NextFetch
			row.Rendering, row.Rendered, row.RenderTime = ls.Rendering, ls.Rendered, ls.RenderTime
		}
		if v.Paused {
			row.Status = view.LanePaused
		}
		if h := gapHost(row); h != "" {
			gap, why := r.hostGap(h)
			row.Gap, row.GapWhy = gap, string(why)
		}
		rows = append(rows, row)
		g := view.Group{Lane: v.ID, Egress: v.Egress}
		for _, h := range row.Hosts {
			gap, why := r.hostGap(h)
			g.Hosts = append(g.Hosts, view.HostRef{Host: h, Tasks: v.Hosts[h], Gap: gap, GapWhy: string(why)})
		}
		for p, n := range v.Parents {
			g.Parents = append(g.Parents, view.ParentRef{Hash: p, URL: parentURL(p), Tasks: n})
		}
		sort.Slice(g.Parents, func(i, j int) bool { return g.Parents[i].URL < g.Parents[j].URL })
		groups = append(groups, g)
	}
	return rows, groups
}

// hostGap is the current gap of a host and why; none without a gate (a master's
// lanes are its workers').
func (r *Runner) hostGap(host string) (time.Duration, Reason) {
	if r.Gate == nil || host == "" {
		return 0, ""
	}
	return r.Gate.Gap(host)
}

// gapHost is the host whose gap a lane's row shows: the one it fetches (or fetched
// last), else the first it holds.
func gapHost(l view.Lane) string {
	if l.Current != "" {
		if u, err := url.Parse(l.Current); err == nil && u.Hostname() != "" {
			return u.Hostname()
		}
	}
	if len(l.Hosts) > 0 {
		return l.Hosts[0]
	}
	return ""
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
