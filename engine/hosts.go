package engine

import (
	"net"
	"sort"

	"golang.org/x/net/publicsuffix"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// siteOf is the site a task's host is reported under: its declared site, else its
// registered domain (the host itself for an IP address or a name with no public
// suffix).
func siteOf(t frontier.Task) string {
	if t.Site != "" {
		return t.Site
	}
	h := t.Host
	if hp, _, err := net.SplitHostPort(h); err == nil {
		h = hp
	}
	if net.ParseIP(h) != nil {
		return h
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(h); err == nil {
		return d
	}
	return h
}

// hostsView is the hosts report with what is live now: the politeness gap of every
// host a lane holds (and why), and each host's pages this round against its budget.
// Caller holds e.mu; groups are the snapshot's.
func (e *Engine) hostsView(groups []Group) *view.HostsView {
	v := e.hosts.View()
	rows := v.Hosts
	if n := len(rows); n > 0 && rows[n-1].Name == view.OtherHosts {
		rows = rows[:n-1] // sorted by name but for this one
	}
	find := func(h string) *view.HostRow {
		i := sort.Search(len(rows), func(i int) bool { return rows[i].Name >= h })
		if i < len(rows) && rows[i].Name == h {
			return &rows[i]
		}
		return nil
	}
	for _, g := range groups {
		for _, h := range g.Hosts {
			if r := find(h.Host); r != nil {
				r.Gap, r.GapWhy = h.Gap, h.GapWhy
			}
		}
	}
	if e.budget.active() {
		for i := range rows {
			rows[i].BudgetUsed, rows[i].Budget = e.budget.hostUsed(rows[i].Name)
		}
	}
	return v
}
