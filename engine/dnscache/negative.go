package dnscache

import (
	"cmp"
	"math"
	"net/netip"
	"slices"
	"time"
)

// reasonSlow is the View reason of a negative entry that holds addresses: the answer
// succeeded but took at least SlowThreshold (seed 004 files those as negative).
const reasonSlow = "slow"

// negEntry is one entry of the negative cache (M5): a failure, or a slow success
// with its addresses, plus what the weight is computed from.
type negEntry struct {
	host       string
	kind       string // "" for a slow success, else the failure Kind
	err        error  // cause of the failure, returned on each negative hit
	addrs      []netip.Addr
	ttl        time.Duration // how long the entry was valid for when stored
	expires    time.Time     // RFC 2308 expiry, or the end of the backoff step
	lastAccess time.Time
	took       time.Duration // resolve time (a timeout counts the time waited)
	failures   int           // consecutive transient failures: the backoff step
	// retryConsidered: the sweep has offered this failure's retry to StillNeeded.
	retryConsidered bool
}

func (e *negEntry) reason() string {
	if e.kind == "" {
		return reasonSlow
	}
	return e.kind
}

// weight is what keeping the entry is worth (seed 004: from resolve time, TTL and
// last access):
//
//	weight   = cost × recency × (1 + validity)
//	cost     = 1 + took / SlowThreshold         an answer that was slow to get is dearer to lose
//	recency  = 2^(−idle / NegHalfLife)          idle = now − last access
//	validity = remaining TTL / TTL ∈ [0, 1]     0 once expired
//
// An expired entry (kept only to remember its backoff step) is evicted by the sweep
// once its weight falls below NegEvictWeight: with the defaults, a fast failure after
// two idle half-lives, a 2 s timeout under a 500 ms threshold after about 4.3.
func (e *negEntry) weight(now time.Time, slow, halfLife time.Duration) float64 {
	cost := 1 + float64(e.took)/float64(slow)
	idle := max(now.Sub(e.lastAccess), 0)
	recency := math.Exp2(-float64(idle) / float64(halfLife))
	validity := 0.0
	if left := e.expires.Sub(now); left > 0 && e.ttl > 0 {
		validity = min(float64(left)/float64(e.ttl), 1)
	}
	return cost * recency * (1 + validity)
}

// negativeCache maps host → entry; it is flat, unlike the positive tree, because it
// is read by host only and evicted by weight.
type negativeCache struct {
	entries map[string]*negEntry
}

func newNegativeCache() negativeCache {
	return negativeCache{entries: map[string]*negEntry{}}
}

// evict drops expired entries lighter than minWeight and, if still over limit, the
// lightest entries down to 90% of limit. It returns how many were dropped.
func (n *negativeCache) evict(now time.Time, o *Options) int {
	dropped := 0
	for host, e := range n.entries {
		if !now.Before(e.expires) && e.weight(now, o.SlowThreshold, o.NegHalfLife) < o.NegEvictWeight {
			delete(n.entries, host)
			dropped++
		}
	}
	if len(n.entries) <= o.NegativeCap {
		return dropped
	}
	type weighted struct {
		e *negEntry
		w float64
	}
	all := make([]weighted, 0, len(n.entries))
	for _, e := range n.entries {
		all = append(all, weighted{e, e.weight(now, o.SlowThreshold, o.NegHalfLife)})
	}
	slices.SortFunc(all, func(a, b weighted) int { return cmp.Or(cmp.Compare(a.w, b.w), cmp.Compare(a.e.host, b.e.host)) })
	target := o.NegativeCap - o.NegativeCap/10
	for _, x := range all {
		if len(n.entries) <= target {
			break
		}
		delete(n.entries, x.e.host)
		dropped++
	}
	return dropped
}
