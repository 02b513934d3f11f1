package dnscache

import (
	"cmp"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Entry is one cached answer as the engine persists it (in the store's meta table),
// so a restarted crawl starts warm with the answers still inside their TTL.
type Entry struct {
	Host      string        `json:"host"`             // canonical name (punycode, lower case)
	Addrs     []netip.Addr  `json:"addrs,omitempty"`  // empty for nxdomain / no_address
	Expires   time.Time     `json:"expires"`          // absolute, so time spent stopped counts
	TTL       time.Duration `json:"ttl"`              // clamped TTL it was stored with
	Reason    string        `json:"reason,omitempty"` // "" positive; "slow", "nxdomain" or "no_address" negative
	ResolveMs float64       `json:"resolve_ms"`       // resolve time of the answer
}

// Export lists the entries still inside their TTL, sorted by host: positive answers,
// slow answers and RFC 2308 negative answers. Transient failures and stale answers are
// left out: they say nothing reliable about the name after a restart.
func (c *Cache) Export() []Entry {
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Entry, 0, c.pos.len())
	for _, e := range c.pos.hosts {
		if now.Before(e.expires) {
			out = append(out, Entry{Host: e.host, Addrs: slices.Clone(e.addrs), Expires: e.expires, TTL: e.ttl, ResolveMs: ms(e.took)})
		}
	}
	for _, e := range c.neg.entries {
		if now.Before(e.expires) && !transient(e.kind) {
			reason := e.reason()
			out = append(out, Entry{Host: e.host, Addrs: slices.Clone(e.addrs), Expires: e.expires, TTL: e.ttl, Reason: reason, ResolveMs: ms(e.took)})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// Import loads entries from an earlier Export. Entries already expired, with an
// invalid name or inconsistent content are skipped, and so is any host the cache
// already holds; the caps apply as for fresh answers. Imports are not lookups.
func (c *Cache) Import(entries []Entry) {
	now := c.opts.Now()
	o := &c.opts
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range entries {
		name, err := canonicalName(in.Host)
		if err != nil || !now.Before(in.Expires) || c.pos.hosts[name] != nil || c.neg.entries[name] != nil {
			continue
		}
		addrs := make([]netip.Addr, 0, len(in.Addrs))
		for _, a := range in.Addrs {
			if a.IsValid() {
				addrs = append(addrs, a.Unmap())
			}
		}
		left := in.Expires.Sub(now)
		ttl := in.TTL
		if ttl < left {
			ttl = left
		}
		took := time.Duration(in.ResolveMs * float64(time.Millisecond))
		switch in.Reason {
		case "":
			if len(addrs) == 0 {
				continue
			}
			// Clamp again: the options of this run may be tighter than the last one's.
			left = min(left, o.MaxTTL)
			e := &hostEntry{host: name, domain: registeredDomain(name), addrs: addrs, ttl: min(ttl, o.MaxTTL),
				expires: now.Add(left), lastAccess: now, took: took}
			c.st.evicted.Add(int64(c.pos.put(e, o.PerDomainCap)))
			c.st.evicted.Add(int64(c.pos.trimGlobal(o.GlobalCap, now, e)))
		case reasonSlow:
			if len(addrs) == 0 {
				continue
			}
			left = min(left, o.MaxTTL)
			c.putNegLocked(&negEntry{host: name, addrs: addrs, ttl: min(ttl, o.MaxTTL), expires: now.Add(left),
				lastAccess: now, took: took}, now)
		case KindNXDomain, KindNoAddress:
			left = min(left, o.NegMaxTTL)
			c.putNegLocked(&negEntry{host: name, kind: in.Reason, ttl: min(ttl, o.NegMaxTTL), expires: now.Add(left),
				lastAccess: now, took: took, err: errors.New(strings.ReplaceAll(in.Reason, "_", " ") + " (cached by an earlier run)")}, now)
		}
	}
}

// Flush drops the cached answers (positive and negative) of domain and every name
// under it, or of everything when domain is empty (the console's `:dns flush`). It
// returns how many entries were dropped.
func (c *Cache) Flush(domain string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if domain == "" {
		n := c.pos.len() + len(c.neg.entries)
		c.pos, c.neg = newPositiveCache(), newNegativeCache()
		return n
	}
	name, err := canonicalName(domain)
	if err != nil {
		return 0
	}
	under := func(host string) bool { return host == name || strings.HasSuffix(host, "."+name) }
	n := 0
	for host := range c.pos.hosts {
		if under(host) && c.pos.remove(host) {
			n++
		}
	}
	for host := range c.neg.entries {
		if under(host) {
			delete(c.neg.entries, host)
			n++
		}
	}
	return n
}
