package dnscache

import (
	"cmp"
	"net/netip"
	"slices"
	"time"
)

// hostEntry is one fast, successful answer in the positive cache (M5).
type hostEntry struct {
	host       string
	domain     string // registered domain the host is filed under
	addrs      []netip.Addr
	ttl        time.Duration // clamped TTL the entry was stored with
	expires    time.Time
	lastAccess time.Time
	took       time.Duration // resolve time of the answer
	// failedAt is when the last refresh of this answer failed transiently (zero if
	// none since it was stored). Once set, an expired entry is served stale at once
	// and retried in the background at most every StaleRetry (RFC 8767).
	failedAt time.Time
}

// positiveCache files answers as the seed's tree: registered domain → hosts → entry.
// Go maps stand in for the seed's hash tables and binary tree; the flat index gives
// the fetch path one map lookup per hit.
type positiveCache struct {
	domains map[string]map[string]*hostEntry
	hosts   map[string]*hostEntry
}

func newPositiveCache() positiveCache {
	return positiveCache{domains: map[string]map[string]*hostEntry{}, hosts: map[string]*hostEntry{}}
}

func (p *positiveCache) len() int { return len(p.hosts) }

// put stores e, replacing any entry for its host, then enforces the per-domain cap.
// It returns how many other hosts were dropped.
func (p *positiveCache) put(e *hostEntry, perDomainCap int) int {
	p.remove(e.host)
	tree := p.domains[e.domain]
	if tree == nil {
		tree = map[string]*hostEntry{}
		p.domains[e.domain] = tree
	}
	tree[e.host] = e
	p.hosts[e.host] = e
	return p.trimDomain(e.domain, perDomainCap, e)
}

func (p *positiveCache) remove(host string) bool {
	e, ok := p.hosts[host]
	if !ok {
		return false
	}
	delete(p.hosts, host)
	tree := p.domains[e.domain]
	delete(tree, host)
	if len(tree) == 0 {
		delete(p.domains, e.domain)
	}
	return true
}

// trimDomain applies M5's rule when a domain holds more than limit hosts: drop the
// hosts whose last access is older than the domain's median last access. Ties at the
// median can leave the domain over the cap; the oldest are then dropped one by one.
// keep (the entry just stored) is never dropped.
func (p *positiveCache) trimDomain(domain string, limit int, keep *hostEntry) int {
	tree := p.domains[domain]
	if len(tree) <= limit {
		return 0
	}
	entries := make([]*hostEntry, 0, len(tree))
	for _, e := range tree {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *hostEntry) int { return a.lastAccess.Compare(b.lastAccess) })
	median := entries[len(entries)/2].lastAccess
	dropped := 0
	for _, e := range entries {
		if e != keep && e.lastAccess.Before(median) {
			p.remove(e.host)
			dropped++
		}
	}
	for _, e := range entries {
		if len(p.domains[domain]) <= limit {
			break
		}
		if e != keep && p.hosts[e.host] == e {
			p.remove(e.host)
			dropped++
		}
	}
	return dropped
}

// trimGlobal keeps the whole cache under limit: when over it, expired entries go
// first (they only serve stale), then the least recently used, down to 90% of limit
// so the sort is paid once per tenth of the cap, not on every insert.
func (p *positiveCache) trimGlobal(limit int, now time.Time, keep *hostEntry) int {
	if len(p.hosts) <= limit {
		return 0
	}
	target := limit - limit/10
	entries := make([]*hostEntry, 0, len(p.hosts))
	for _, e := range p.hosts {
		if e != keep {
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b *hostEntry) int {
		ae, be := !now.Before(a.expires), !now.Before(b.expires)
		if ae != be {
			if ae {
				return -1
			}
			return 1
		}
		return cmp.Or(a.lastAccess.Compare(b.lastAccess), cmp.Compare(a.host, b.host))
	})
	dropped := 0
	for _, e := range entries {
		if len(p.hosts) <= target {
			break
		}
		p.remove(e.host)
		dropped++
	}
	return dropped
}
