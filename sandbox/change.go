package sandbox

import (
	"math"
	"sort"
	"sync"
	"time"
)

// The change model (M2): every article or post changes as a Poisson process with its
// own rate. The rate and the change times are drawn from the page's own generator keyed
// by (seed, host, path) — never the port — so one seed always gives the same history,
// and they are generated lazily, only as far in web time as someone asks.

const webDay = 24 * time.Hour

// rateOf returns the page's change rate in changes per web day (0: never changes).
func (w *Web) rateOf(p page) float64 {
	if !p.leaf() {
		return 0
	}
	k := p.key()
	if unit(k^0x4a7e) < w.cfg.Change.NeverShare {
		return 0
	}
	lo, hi := math.Log(w.cfg.Change.MinRate), math.Log(w.cfg.Change.MaxRate)
	return math.Exp(lo + unit(k^0x4a7f)*(hi-lo))
}

// changeSeq is the lazily extended change history of one page.
type changeSeq struct {
	mu    sync.Mutex
	rng   prng
	mean  float64 // mean gap between changes, in ns of web time
	times []int64 // ns after the epoch, ascending; the last one lies past every query so far
}

// extend generates change times until one lies after t.
func (c *changeSeq) extend(t int64) {
	if len(c.times) == 0 {
		c.times = append(c.times, int64(c.rng.exp()*c.mean))
	}
	for c.times[len(c.times)-1] <= t {
		next := c.times[len(c.times)-1] + int64(c.rng.exp()*c.mean) + 1
		c.times = append(c.times, next)
	}
}

const changeShards = 64

// changeCache holds change histories by page key, in shards so that concurrent
// requests for different pages do not serialise.
type changeCache struct {
	shards [changeShards]struct {
		mu   sync.Mutex
		seqs map[uint64]*changeSeq
	}
}

func (c *changeCache) init() {
	for i := range c.shards {
		c.shards[i].seqs = map[uint64]*changeSeq{}
	}
}

// seq returns the history of a page, or nil if the page never changes.
func (w *Web) seq(p page) *changeSeq {
	rate := w.rateOf(p)
	if rate == 0 {
		return nil
	}
	k := p.key()
	sh := &w.changes.shards[k%changeShards]
	sh.mu.Lock()
	s := sh.seqs[k]
	if s == nil {
		s = &changeSeq{rng: newPRNG(mix(uint64(w.cfg.Seed), k, 0xc4a6)), mean: float64(webDay) / rate}
		sh.seqs[k] = s
	}
	sh.mu.Unlock()
	return s
}

// version returns the number of changes of p up to web time at, and the web time of the
// last one (the epoch for version 0).
func (w *Web) version(p page, at time.Time) (int, time.Time) {
	s := w.seq(p)
	t := int64(at.Sub(w.cfg.Epoch))
	if s == nil || t < 0 {
		return 0, w.cfg.Epoch
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extend(t)
	n := sort.Search(len(s.times), func(i int) bool { return s.times[i] > t })
	if n == 0 {
		return 0, w.cfg.Epoch
	}
	return n, w.cfg.Epoch.Add(time.Duration(s.times[n-1]))
}

// changeTimes returns p's change times in [from, to], as web times.
func (w *Web) changeTimes(p page, from, to time.Time) []time.Time {
	s := w.seq(p)
	if s == nil || to.Before(from) {
		return nil
	}
	lo, hi := int64(from.Sub(w.cfg.Epoch)), int64(to.Sub(w.cfg.Epoch))
	if hi < 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extend(hi)
	i := sort.Search(len(s.times), func(i int) bool { return s.times[i] >= lo })
	var out []time.Time
	for ; i < len(s.times) && s.times[i] <= hi; i++ {
		out = append(out, w.cfg.Epoch.Add(time.Duration(s.times[i])))
	}
	return out
}

// Version returns the content version of url at web time at: the number of real
// changes since the epoch (0 for pages that never change and for unknown URLs).
func (w *Web) Version(url string, at time.Time) int {
	n, _ := w.version(w.lookupURL(url), at)
	return n
}

// ChangeTimes returns the web times in [from, to] at which url's content changed.
func (w *Web) ChangeTimes(url string, from, to time.Time) []time.Time {
	return w.changeTimes(w.lookupURL(url), from, to)
}

// ChangeRate returns url's change rate in changes per web day (0: never changes).
func (w *Web) ChangeRate(url string) float64 { return w.rateOf(w.lookupURL(url)) }
