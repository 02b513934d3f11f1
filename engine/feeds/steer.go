package feeds

import (
	"slices"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A removed site's feeds and sitemaps (:site rm). Discovery polls every feed and
// sitemap as long as the crawl runs, whoever's site it is; left alone, a site the
// operator took out of the rounds would keep its feeds read, their articles stored,
// and its share of the Poller's reads. So :site rm stops them: the queued ones are withdrawn
// as the site's entry is (steered_out, counted), the others are parked in the store
// (a restart does not bring them back), and the Poller forgets them, so their share
// goes to the sites still crawled; what it had learned of them is kept (parked). A
// read already in a lane's hand is not polled again. :site add of a site holding
// their hosts puts them back, due at once and at the pace they had. What they
// brought in is kept, as everything else the site held.
//
// A removal goes by the site: the hosts the site book before it gave the removed
// site (sites.Book.SiteOf: the hosts it named, its *.NAME patterns, the rest of its
// registered domain when it was the only site there). Its sibling sites on the
// same registered domain keep theirs; a host the removal hands to a sibling (the
// rest of the domain, once the sibling is the only site left on it) stays parked,
// as the operator took it out. A host stays removed until a site declared after
// the removal holds it, or the removed site is added back by name. A restart
// leaves parked ones parked unless the config declares a site holding their host
// or seeds their registered domain (withdrawParked).

// WithdrawSite stops polling the feeds and sitemaps of the site called name, on the
// hosts the site book before its removal gave it. live: the command was given now
// (not replayed at start, when the store holds them parked already). It returns
// how many queued ones were withdrawn.
func (d *Discovery) WithdrawSite(name string, before *sites.Book, live bool) int {
	if d == nil || name == "" || before == nil || before.Named(name) == nil {
		return 0
	}
	d.follow()
	d.mu.Lock()
	d.removed[name] = before
	held := func(host string) bool { return holds(before, name, host) }
	srcs := d.sourcesWhere(held)
	polled := append(d.entriesWhere(held), srcs...) // its entry is withdrawn with the site (dropSources)
	d.mu.Unlock()
	// What the Poller learned of them is kept for a :site add, replayed at start
	// or live: the site comes back at the pace it had (parked states are stored
	// with the discovery state).
	learned := d.poller.Park(polled)
	d.mu.Lock()
	for u, st := range learned {
		if _, ok := d.parked[u]; !ok { // a state parked before is the one learned at its pace
			d.parked[u] = st
		}
	}
	d.mu.Unlock()
	d.changes.Add(1)
	if !live {
		// Replayed at start: the stored coverage is what the crawl knew when it
		// stopped (a later :site add in the log brings the site back with it).
		return 0
	}
	d.coverMu.Lock()
	units := map[string]bool{}
	for _, src := range polled {
		unit := d.unitOf(hostOf(src))
		d.cover.Forget(unit, src)
		units[unit] = true
	}
	for unit := range units {
		d.applyShadows(unit, d.cover.Shadowed(unit))
	}
	d.coverMu.Unlock()
	if len(srcs) == 0 || d.st == nil {
		return 0
	}
	n := d.c.Withdraw(srcs)
	d.st.SetRevisitNext(srcs, revisit.Never)
	return n
}

// RestoreSite polls again the feeds and sitemaps of the site called name, just
// declared (:site add after :site rm), on the hosts the site book after its adding
// gives it; and every other parked one whose host no removal holds any more. live:
// those parked are due now, whether the removal was this run's or an earlier one's
// (a log that folded an add and a remove away leaves them parked with no removal to
// replay). Replayed at start, the store has them as the live command left them. It
// returns how many were put back in the queue.
func (d *Discovery) RestoreSite(name string, after *sites.Book, live bool) int {
	if d == nil || name == "" {
		return 0
	}
	d.follow()
	d.mu.Lock()
	delete(d.removed, name)
	free := func(host string) bool { return !d.removedHost(host, after) }
	srcs := d.sourcesWhere(func(host string) bool { return holds(after, name, host) && free(host) })
	back := map[string]discover.PollState{}
	units := map[string]bool{}
	for u, st := range d.parked { // feeds, sitemaps and seed pages
		if !free(hostOf(u)) {
			continue
		}
		back[u] = st
		delete(d.parked, u)
		unit := d.unitOf(hostOf(u))
		units[unit] = true
		if _, source := d.sources[u]; source {
			if !slices.Contains(srcs, u) {
				srcs = append(srcs, u)
			}
		} else if !slices.Contains(d.entries[unit], u) {
			d.entries[unit] = append(d.entries[unit], u) // a seed page: kept with the state
		}
	}
	slices.Sort(srcs)
	for _, u := range srcs {
		units[d.unitOf(hostOf(u))] = true
	}
	d.mu.Unlock()
	if live {
		d.poller.Unpark(back) // time has passed: their next read is a backlog
	} else {
		d.poller.Import(back) // replayed at start: as they were stored
	}
	d.coverMu.Lock() // the covered ones among them are read at the longest interval again
	for unit := range units {
		d.applyShadows(unit, d.cover.Shadowed(unit))
	}
	d.coverMu.Unlock()
	if len(back) > 0 {
		d.changes.Add(1)
	}
	if len(srcs) == 0 {
		return 0
	}
	d.c.KeepSources(srcs)
	if !live || d.st == nil {
		return 0
	}
	states, err := d.st.Revisits(srcs)
	if err != nil {
		d.c.Logf(view.LevelWarn, "", "site add: its feeds and sitemaps: %v", err)
		return 0
	}
	// Parked, or withdrawn before their first read (no revisit state: requeue
	// takes those ended steered_out back).
	parked := slices.Clone(srcs)
	for _, s := range states {
		if s.Next.Before(revisit.Never) {
			parked = slices.DeleteFunc(parked, func(u string) bool { return u == s.URL })
		}
	}
	if len(parked) == 0 {
		return 0
	}
	n, err := d.c.Requeue(parked, d.c.Now())
	if err != nil {
		d.c.Logf(view.LevelWarn, "", "site add: its feeds and sitemaps: %v", err)
	}
	return n
}

// holds says whether book b gives host to the site called name.
func holds(b *sites.Book, name, host string) bool {
	s := b.SiteOf(host)
	return s != nil && s.Name == name
}

// removedHost says whether host belongs to a removed site: a removal's book gave it
// to the removed site, and no site declared since holds it under book now (a
// sibling that took it in with the rest of the domain was declared before: the
// host stays out). Caller holds d.mu.
func (d *Discovery) removedHost(host string, now *sites.Book) bool {
	if len(d.removed) == 0 {
		return false
	}
	cur := now.SiteOf(host)
	for name, before := range d.removed {
		if !holds(before, name, host) {
			continue
		}
		if cur != nil && before.Named(cur.Name) == nil {
			continue // declared since the removal: the host is that site's now
		}
		return true
	}
	return false
}

// sourcesWhere lists the feeds and sitemaps (indexes too) on the hosts keep
// accepts, whichever units they are kept under. Caller holds d.mu.
func (d *Discovery) sourcesWhere(keep func(host string) bool) []string {
	var out []string
	for _, s := range d.sites {
		for _, list := range []map[string]bool{s.feeds, s.sitemaps} {
			for u := range list {
				if keep(hostOf(u)) {
					out = append(out, u)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// entriesWhere lists the polled seed pages on the hosts keep accepts. Caller
// holds d.mu.
func (d *Discovery) entriesWhere(keep func(host string) bool) []string {
	var out []string
	for _, urls := range d.entries {
		for _, u := range urls {
			if keep(hostOf(u)) {
				out = append(out, u)
			}
		}
	}
	slices.Sort(out)
	return out
}

// removedSource says whether src is a feed, sitemap or seed page of a removed
// site: read once more (it was in a lane's hand), it is parked rather than
// scheduled.
func (d *Discovery) removedSource(src string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.removedHost(hostOf(src), d.book())
}
