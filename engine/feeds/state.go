package feeds

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Discovery state kept across a restart: what the Poller learned of each feed and
// sitemap (its publishing rate and last poll), which sources of a site cover which
// (Coverage), each site's date-trust evidence, and what each sitemap may speak for
// (the index above it, the hosts vouching for it, the pages its last read refused). Without it a restarted crawl
// polls every feed at the prior's pace until it learns again, reads every covered
// source at its own rate again, and trusts a site whose lastmod lied until it has
// caught it again. It lives in the store's meta table under discoveryMetaKey (one
// JSON document; a few hundred bytes per feed or sitemap, 1.4 KiB more for each
// source of a site that has two or more), written at stop and at most once a minute
// while something changed, and read when the engine is built.

// discoveryMetaKey is the store meta key of the discovery state.
const discoveryMetaKey = "discovery"

// discoverySaveEvery is how often the state is written while the crawl runs, at
// most: a crash loses no more than this much of what was learned.
const discoverySaveEvery = time.Minute

// discoveryState is the stored form.
type discoveryState struct {
	Sources map[string]sourceState `json:"sources,omitempty"` // by feed or sitemap URL
	// Trust, Coverage and SitemapReads are by unit (units.go): a declared site's
	// name, else a registered domain; a store written before sites were units keyed
	// them all by registered domain. restore maps either to today's units.
	Trust map[string]discover.TrustState `json:"trust,omitempty"`
	// Entries are the seed pages polled like feeds (PollEntry), by URL: they share
	// the Poller's polls with the feeds and sitemaps (the square-root split).
	Entries map[string]discover.PollState `json:"entries,omitempty"`
	// Parked are the sources and seed pages of removed sites (:site rm), by URL:
	// what the Poller had learned of them, for a :site add.
	Parked map[string]discover.PollState `json:"parked,omitempty"`
	// Coverage is, by site, which of its sources list what another lists as soon
	// (discover.Coverage): a covered source stays read at the longest interval
	// from the start rather than until 8 new URLs show it again.
	Coverage map[string]discover.CoverState `json:"coverage,omitempty"`
	// SitemapReads is, by site, how many of its sitemap reads the crawl has seen (at
	// most 2 kept): one read cannot show a lastmod that is always "now", so a site's
	// dates are relied on from its second (AwaitHint), and a restart must not make
	// that its first again.
	SitemapReads map[string]int `json:"sitemap_reads,omitempty"`
	// Parents is, by sitemap URL, the index that listed it, and Cross the hosts
	// whose robots.txt names a sitemap (cross-submission): what a sitemap may
	// speak for (siteWideOK, crossOf). A child sitemap read after a restart before
	// its index, or before the vouching host's robots.txt, refused its pages as
	// off_host and opened a false gap in the site's coverage.
	Parents map[string]string   `json:"parents,omitempty"`
	Cross   map[string][]string `json:"cross,omitempty"`
}

// sourceState is one feed or sitemap: its kind (so that a 304 after the restart is
// known for a source's) and what its polls taught.
type sourceState struct {
	Kind discover.Kind       `json:"kind"`
	Poll *discover.PollState `json:"poll,omitempty"`
	// Refused is, for a sitemap read, how many pages of its site's own hosts its
	// last read had to refuse (off_host): while any, the sitemaps do not cover the
	// site and its entry pages are polled (discovery.covers). Without it a restart
	// took such a site for covered and dropped what its entry pages' polls had
	// learned at their first fetch.
	Refused *int `json:"refused,omitempty"`
	// Site is the unit the source was kept under when that is a declared site
	// (units.go); empty: its registered domain (and in every older store). restore
	// follows it to hand the unit's trust, coverage and sitemap reads to the units
	// its sources belong to now.
	Site string `json:"site,omitempty"`
}

// export gathers the state to store.
func (d *Discovery) export() discoveryState {
	d.follow()
	polls := d.poller.Export()
	covered := d.cover.Export()
	d.mu.Lock()
	defer d.mu.Unlock()
	st := discoveryState{Sources: map[string]sourceState{}, Trust: map[string]discover.TrustState{}}
	if len(covered) > 0 {
		st.Coverage = covered
	}
	for u, k := range d.sources {
		s := sourceState{Kind: k}
		if p, ok := polls[u]; ok {
			s.Poll = &p
		}
		unit := d.unitOf(hostOf(u))
		if sd := d.sites[unit]; sd != nil {
			if n, read := sd.refused[u]; read {
				s.Refused = &n
			}
		}
		if unit != frontier.Site(hostOf(u)) {
			s.Site = unit
		}
		st.Sources[u] = s
	}
	for name, sd := range d.sites {
		if ts := sd.trust.State(); len(ts.Hints) > 0 || len(ts.NowLike) > 0 {
			st.Trust[name] = ts
		}
		if sd.sitemapReads > 0 {
			if st.SitemapReads == nil {
				st.SitemapReads = map[string]int{}
			}
			st.SitemapReads[name] = min(sd.sitemapReads, 2)
		}
	}
	if len(d.parked) > 0 {
		st.Parked = maps.Clone(d.parked)
	}
	if len(d.parent) > 0 {
		st.Parents = maps.Clone(d.parent)
	}
	if len(d.cross) > 0 {
		st.Cross = maps.Clone(d.cross)
	}
	for _, urls := range d.entries {
		for _, u := range urls {
			if p, ok := polls[u]; ok {
				if st.Entries == nil {
					st.Entries = map[string]discover.PollState{}
				}
				st.Entries[u] = p
			}
		}
	}
	return st
}

// restore takes an earlier run's state back: sources (with the Sites pane's feeds and
// sitemaps), their poll state, and the sites' trust evidence and sitemap reads. It returns how many
// poll states were unusable.
//
// Each source goes to its unit under today's site book. A unit the store names
// (a declared site then, or a registered domain, as every store written before
// sites were units names them) hands its trust evidence and sitemap reads to the
// units its sources belong to now: an old registered-domain key to each site
// declared on it that holds one of its sources, or to the domain itself where its
// sources are undeclared. Which source earned the evidence is not kept, so each
// gets all of it. Its coverage goes to the one unit all its sources belong to now,
// and is learned again where they split.
func (d *Discovery) restore(st discoveryState) (skipped int) {
	polls := map[string]discover.PollState{}
	went := map[string]map[string]bool{} // stored unit -> today's units of its sources
	d.mu.Lock()
	for u, s := range st.Sources {
		host := hostOf(u)
		if host == "" {
			skipped++
			continue
		}
		d.sources[u] = s.Kind
		was, now := s.Site, d.unitOf(host)
		if was == "" {
			was = frontier.Site(host)
		}
		if went[was] == nil {
			went[was] = map[string]bool{}
		}
		went[was][now] = true
		sd := d.row(now)
		if s.Kind == discover.KindFeed {
			sd.feeds[u] = true
		} else {
			sd.sitemaps[u] = true
		}
		if s.Refused != nil && *s.Refused >= 0 {
			sd.refused[u] = *s.Refused
		}
		if s.Poll != nil {
			polls[u] = afterRestart(*s.Poll)
		}
	}
	// A unit's own evidence first; a unit that takes in another's sources takes its
	// evidence only when it has none of its own (inherit).
	stored := sortedKeys(st.Trust)
	own := map[string]bool{}
	for _, name := range stored {
		tos := d.storedUnitNow(went, name)
		own[name] = len(tos) == 1 && tos[0] == name
	}
	slices.SortStableFunc(stored, func(a, b string) int { return cmpBool(!own[a], !own[b]) })
	for _, name := range stored {
		for _, to := range d.storedUnitNow(went, name) {
			inherit(d.row(to), &siteDiscovery{trust: trustOf(st.Trust[name])})
		}
	}
	for u, idx := range st.Parents {
		if _, ok := d.parent[u]; !ok {
			d.parent[u] = idx
		}
	}
	for u, hosts := range st.Cross {
		for _, h := range hosts {
			if !slices.Contains(d.cross[u], h) {
				d.cross[u] = append(d.cross[u], h)
			}
		}
	}
	for name, n := range st.SitemapReads {
		for _, to := range d.storedUnitNow(went, name) {
			if sd := d.row(to); n > sd.sitemapReads {
				sd.sitemapReads = n
			}
		}
	}
	for u, p := range st.Parked {
		if p.Last.IsZero() || hostOf(u) == "" {
			skipped++
			continue
		}
		d.parked[u] = p
	}
	for u, p := range st.Entries {
		if host := hostOf(u); host != "" {
			site := d.unitOf(host)
			d.entries[site] = append(d.entries[site], u)
			polls[u] = afterRestart(p)
		}
	}
	covered := d.coverageNow(st.Coverage)
	d.mu.Unlock()
	skipped += d.poller.Import(polls)
	skipped += d.cover.Import(covered)
	d.coverMu.Lock()
	for site := range covered {
		d.applyShadows(site, d.cover.Shadowed(site))
	}
	d.coverMu.Unlock()
	return skipped
}

// storedUnitNow is where the state a store kept under unit name goes now: the
// units its sources belong to (went), else the site of that name if one is still
// declared, else the unit of name as a host (a registered domain).
func (d *Discovery) storedUnitNow(went map[string]map[string]bool, name string) []string {
	if tos := went[name]; len(tos) > 0 {
		return sortedKeys(tos)
	}
	if b := d.book(); b != nil && b.Named(name) != nil {
		return []string{name}
	}
	return []string{d.unitOf(name)}
}

// coverageNow re-keys stored coverage to today's units: a unit's coverage whose
// sources all belong to one unit now goes to it; one whose sources split over
// several is left out (their coverage is learned again). Caller holds d.mu.
func (d *Discovery) coverageNow(stored map[string]discover.CoverState) map[string]discover.CoverState {
	out := map[string]discover.CoverState{}
	for _, name := range sortedKeys(stored) {
		cs := stored[name]
		units := map[string]bool{}
		for _, s := range cs.Sources {
			units[d.unitOf(hostOf(s.URL))] = true
		}
		if len(units) != 1 {
			continue
		}
		for to := range units {
			if _, taken := out[to]; !taken || to == name {
				out[to] = cs
			}
		}
	}
	return out
}

// trustOf is a Trust holding the stored evidence ts.
func trustOf(ts discover.TrustState) discover.Trust {
	var t discover.Trust
	t.Restore(ts)
	return t
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// afterRestart is a source's poll state as a restarted crawl takes it: its rate and
// last poll as learned, so it is next read at its learned pace; and its next read
// only starts the watch again (as after a pause, discover.Poller.Unpark). Nothing
// tells that read what the last one before the restart listed (newSinceLastRead),
// and the dedupe filter starts empty, so every entry would count as news: a quiet
// feed taken for full was read again at min_poll, then several times faster than it
// had learned until a day's decay wore the burst off.
func afterRestart(p discover.PollState) discover.PollState {
	p.Resumed = true
	return p
}

// Load reads the state an earlier run kept (New, before anything is
// fetched). A damaged document is reported and discovery starts afresh; nothing
// else depends on it.
func (d *Discovery) Load() {
	if d.st == nil {
		return
	}
	b, err := d.st.GetMeta(discoveryMetaKey)
	if err != nil || len(b) == 0 {
		return
	}
	var st discoveryState
	if err := json.Unmarshal(b, &st); err != nil {
		d.c.Logf(view.LevelWarn, "", "feed/sitemap poll state of an earlier run unreadable (%v): polls and date trust are learned afresh", err)
		return
	}
	if n := d.restore(st); n > 0 {
		d.c.Logf(view.LevelWarn, "", "feed/sitemap poll state: %d sources' state unusable, learned afresh", n)
	}
	d.saved = d.changes.Load()
	d.withdrawParked()
}

// withdrawParked keeps the parked feeds, sitemaps and seed pages of removed sites
// out of the queue at start. One a lane had in hand at the stop is put back in the
// queue by the store, and when the site's add and remove folded away in the steering
// log no removal is replayed to withdraw it: it would be read again. One whose host
// a site of the config holds, or, held by none, whose registered domain the config
// seeds, is left alone (the config speaks last); :site add brings the others back
// (keepSources, RestoreSite). Called at Load, when the book is the config's.
func (d *Discovery) withdrawParked() {
	seeded := map[string]bool{}
	for _, domain := range d.opts.Seeded {
		seeded[domain] = true
	}
	book := d.book()
	var out []string
	d.mu.Lock()
	for u := range d.parked {
		host := hostOf(u)
		if book.SiteOf(host) == nil && !seeded[frontier.Site(host)] {
			out = append(out, u)
		}
	}
	d.mu.Unlock()
	if len(out) > 0 {
		d.c.MarkOut(out)
	}
}

// Save writes the state to the store when it changed since the last write.
func (d *Discovery) Save(now time.Time) {
	v := d.changes.Load()
	if v == d.saved {
		return
	}
	b, err := json.Marshal(d.export())
	if err != nil {
		return
	}
	d.st.SetMeta(discoveryMetaKey, b)
	d.saved, d.savedAt = v, now
}

// Keep writes the state at most every discoverySaveEvery (from tick).
func (d *Discovery) Keep(now time.Time) {
	if d == nil || d.st == nil || now.Sub(d.savedAt) < discoverySaveEvery {
		return
	}
	d.Save(now)
}
