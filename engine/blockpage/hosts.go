package blockpage

import (
	"math"
	"slices"
	"sync"
)

// Hosts keeps, per host, the usual template of its ordinary pages: the median size
// and link count of the last pages judged ordinary. A block page is far below both;
// a short page of the site still carries the template's links. Safe for concurrent
// use.
type Hosts struct {
	mu sync.Mutex
	m  map[string]*template
}

// NewHosts returns an empty host history.
func NewHosts() *Hosts { return &Hosts{m: map[string]*template{}} }

// Thresholds of the host history: a template is known after minSamples pages; the
// last window pages count. maxHosts bounds memory on a crawl of many hosts (the
// oldest-learnt hosts are forgotten first, in insertion order).
const (
	minSamples = 8
	window     = 32
	maxHosts   = 1 << 16
)

type template struct {
	sizes, links [window]float32
	n            int
}

// usualTemplate is a host's median page size and link count.
type usualTemplate struct{ size, links float64 }

// Learn records an ordinary page of host (only pages judged ordinary: a block page
// must not become the host's usual template).
func (h *Hosts) Learn(host string, size int64, links int) {
	if h == nil || host == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.m[host]
	if t == nil {
		if len(h.m) >= maxHosts {
			for k := range h.m { // any one: a bound, not a policy
				delete(h.m, k)
				break
			}
		}
		t = &template{}
		h.m[host] = t
	}
	t.sizes[t.n%window] = float32(size)
	t.links[t.n%window] = float32(links)
	t.n++
}

// Known reports whether host's template is known (enough ordinary pages seen).
func (h *Hosts) Known(host string) bool {
	_, ok := h.usual(host)
	return ok
}

func (h *Hosts) usual(host string) (usualTemplate, bool) {
	if h == nil {
		return usualTemplate{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.m[host]
	if t == nil || t.n < minSamples {
		return usualTemplate{}, false
	}
	k := min(t.n, window)
	return usualTemplate{size: median(t.sizes[:k]), links: median(t.links[:k])}, true
}

func median(v []float32) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return math.Round(float64(s[n/2-1]+s[n/2]) / 2)
}
