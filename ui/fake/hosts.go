package fake

import (
	"fmt"
	"slices"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// buildHosts is a hosts report of n hosts in name order, the first 40 named as the
// lanes' hosts are, with sites and egresses added up: some hosts refuse (429s), some
// fail (5xx), most answer.
func buildHosts(n, egresses int) (*view.HostsView, []view.HostRow) {
	v := &view.HostsView{Live: map[string]view.HostLive{}}
	var flat []view.HostRow
	names := make([]string, n)
	for i := range n {
		names[i] = hostName(i)
		if i >= 40 {
			names[i] = fmt.Sprintf("site-%05d.crawl.test", i)
		}
	}
	slices.Sort(names)
	sites := map[string]*view.HostRow{}
	egs := map[string]*view.HostRow{}
	for i, h := range names {
		r := view.HostRow{Name: h, Site: fmt.Sprintf("site-%02d", i%7), Egress: egressName(i % max(egresses, 1))}
		r.Classes[view.Class2xx] = int64(50 + (i*37)%400)
		r.Classes[view.Class3xx] = int64(i % 5)
		r.Classes[view.Class4xx] = int64((i * 7) % 9)
		if i%6 == 2 {
			r.Classes[view.Class4xx] += 120 // a host that blocks: 429s
			r.Refused = 120
			r.Kinds = append(r.Kinds, view.KindCount{Kind: "refused", Count: 120})
		}
		if i%9 == 4 {
			r.Classes[view.Class5xx] = 17
			r.Errors = 17
			r.Kinds = append(r.Kinds, view.KindCount{Kind: "http_5xx", Count: 17})
		}
		if i%4 == 1 {
			r.Skipped = int64(3 + i%11)
			r.Kinds = append(r.Kinds, view.KindCount{Kind: "robots_disallowed", Count: r.Skipped, Skip: true})
		}
		for _, c := range r.Classes {
			r.Fetched += c
		}
		r.Stored = r.Classes[view.Class2xx] - int64(i%3)
		var l view.HostLive
		if i%3 == 0 {
			l.Gap, l.GapWhy = fakeGap(i)
		}
		if i%5 == 0 {
			l.BudgetUsed, l.Budget = 10+i%40, 50
		}
		if l != (view.HostLive{}) {
			v.Live[h] = l
		}
		flat = append(flat, r)
		for _, agg := range []struct {
			m    map[string]*view.HostRow
			name string
		}{{sites, r.Site}, {egs, r.Egress}} {
			a := agg.m[agg.name]
			if a == nil {
				a = &view.HostRow{Name: agg.name}
				agg.m[agg.name] = a
			}
			a.Fetched += r.Fetched
			a.Stored += r.Stored
			for c := range a.Classes {
				a.Classes[c] += r.Classes[c]
			}
			a.Skipped += r.Skipped
			a.Errors += r.Errors
			a.Refused += r.Refused
		}
	}
	for _, m := range []struct {
		from map[string]*view.HostRow
		to   *[]view.HostRow
	}{{sites, &v.Sites}, {egs, &v.Egresses}} {
		for _, r := range m.from {
			*m.to = append(*m.to, *r)
		}
		slices.SortFunc(*m.to, func(a, b view.HostRow) int {
			if a.Name < b.Name {
				return -1
			}
			return 1
		})
	}
	v.Hosts = view.HostRowsOf(slices.Clone(flat))
	return v, flat
}

// hostsSnapshot copies the report as the engine's does: the chunks of rows no host
// moved in since the last snapshot are shared, the others copied (the caller holds mu).
func (c *Control) hostsSnapshot() *view.HostsView {
	if c.snap.Hosts == nil {
		return nil
	}
	v := *c.snap.Hosts
	if len(c.hostsDirty) > 0 {
		chunks := slices.Clone(v.Hosts.Chunks())
		for ch := range c.hostsDirty {
			from := ch * view.HostRowsChunk
			chunks[ch] = slices.Clone(c.hostsFlat[from:min(from+view.HostRowsChunk, len(c.hostsFlat))])
		}
		clear(c.hostsDirty)
		c.snap.Hosts.Hosts = view.NewHostRows(chunks)
		v.Hosts = c.snap.Hosts.Hosts
	}
	v.Sites = slices.Clone(v.Sites)
	v.Egresses = slices.Clone(v.Egresses)
	return &v
}

// tickHosts moves a few hosts' figures, as a second of crawling would.
func (c *Control) tickHosts() {
	if len(c.hostsFlat) == 0 {
		return
	}
	t := int(c.snap.At.Unix())
	for j := range 16 {
		i := (t*31 + j*977) % len(c.hostsFlat)
		r := &c.hostsFlat[i]
		r.Fetched++
		r.Stored++
		r.Classes[view.Class2xx]++
		c.hostsDirty[i/view.HostRowsChunk] = true
	}
}
