package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// hostsView is the hosts report with what is live now for every host a lane holds:
// its politeness gap (and why), its pages this round against its budget. Caller
// holds e.mu; groups are the snapshot's.
func (e *Engine) hostsView(groups []view.Group) *view.HostsView {
	v := e.hosts.View()
	v.Live = map[string]view.HostLive{}
	for _, g := range groups {
		for _, h := range g.Hosts {
			l := view.HostLive{Gap: h.Gap, GapWhy: h.GapWhy}
			if e.budget.Active() {
				l.BudgetUsed, l.Budget = e.budget.HostUsed(h.Host)
			}
			v.Live[h.Host] = l
		}
	}
	if rd := e.lanes.Renderer; rd != nil { // the renderer's own lock, taken under e.mu (it never takes e.mu)
		hs := rd.Hosts()
		v.Render = make(map[string]view.RenderHost, len(hs))
		for _, h := range hs {
			v.Render[h.Host] = view.RenderHost{Host: h.Host, Renders: h.Renders, Failed: h.Failed, Requests: h.Requests,
				Seconds: h.Time.Seconds(), Unsettled: h.Unsettled}
		}
	}
	return v
}
