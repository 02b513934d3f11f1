package sandbox

import (
	"math"

	"github.com/cespare/xxhash/v2"
)

// Everything the sandbox web "decides" (names, links, change times, faults, content) is
// drawn from small deterministic generators keyed by the seed and the thing's identity,
// so that the same seed always builds the same web and any page can be produced lazily
// without generating the others.

// mix folds values into a 64-bit key (splitmix64 finaliser over a running state).
func mix(vals ...uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range vals {
		h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h = splitmix(h)
	}
	return h
}

// strKey hashes a string for use in mix.
func strKey(s string) uint64 { return xxhash.Sum64String(s) }

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// prng is a tiny splitmix64 generator: deterministic, allocation-free, not for crypto.
type prng struct{ s uint64 }

func newPRNG(key uint64) prng { return prng{s: key} }

func (p *prng) next() uint64 {
	p.s += 0x9e3779b97f4a7c15
	x := p.s
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// float returns a uniform value in [0, 1).
func (p *prng) float() float64 { return float64(p.next()>>11) / (1 << 53) }

// intn returns a uniform value in [0, n); n must be > 0.
func (p *prng) intn(n int) int { return int(p.next() % uint64(n)) }

// between returns a uniform integer in [lo, hi].
func (p *prng) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + p.intn(hi-lo+1)
}

// exp returns an exponential variate with mean 1.
func (p *prng) exp() float64 {
	u := p.float()
	return -math.Log1p(-u)
}

// unit returns a uniform value in [0, 1) derived from a key, for one-off draws.
func unit(key uint64) float64 { return float64(splitmix(key)>>11) / (1 << 53) }
