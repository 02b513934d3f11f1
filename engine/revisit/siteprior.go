package revisit

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// FirstPlanner is a Policy that can plan a page's first revisit itself, instead of
// the tracker's fixed Config.Initial (seed 001: next = now + initial).
type FirstPlanner interface {
	// First returns the interval from a page's first fetch at now to its second, or 0
	// to keep Config.Initial. It may count p in the policy's budget (p.Freq).
	First(p *Page, now time.Time) time.Duration
}

// Pages of one site tend to change alike: a news site's articles seldom change once
// published, a social site's pages often. M2 refetches every new page Initial after
// its first fetch to learn its rate, and for a site that publishes many pages a day
// those first refetches, which the budget does not plan, can outnumber every other
// revisit (the live discovery bench: 0.4 refetches per new article, more than the
// feeds' reads). The estimator policy therefore learns, per site, the distribution of
// change rates its pages' first comparisons showed (sitePrior: the same rate grid as
// the population prior, a running mean of the posteriors of the site's last
// siteMemory first comparisons), and once siteEvidence of them are in, a new page of
// the site is planned like a page with that distribution and no history of its own:
// the frequency its expected marginal is worth at the current fetch price, counted in
// the budget from its first fetch. A site whose pages proved slow so waits about
// what the budget affords a page (ten days at the default 0.1), one whose pages
// change fast keeps M2's Initial (First never plans sooner than it). One new page in
// siteProbeEvery is still refetched after Initial, so the site's evidence stays
// current. A site with no evidence yet (the first pages of every crawl) keeps
// Initial. The priors are held for at most siteCap sites (least recently used
// dropped) and kept across a restart (ExportSitePriors, ImportSitePriors: the engine
// stores them), so a restarted crawl does not refetch each site's first
// siteEvidence new pages blind again.
type sitePrior struct {
	w      [rateGridN]float64 // share of the site's new pages at each grid rate
	n      int                // first comparisons that weighed in
	firsts int                // first fetches planned or probed since evidence
}

const (
	siteEvidence   = 8
	siteMemory     = 32
	siteProbeEvery = 32
	siteCap        = 20000
)

// siteKey is the registered domain of u's host ("" for an unparsable URL).
func siteKey(u string) string {
	h := frontier.Hostname(u)
	if h == "" {
		return ""
	}
	return frontier.Site(h)
}

// learnSiteLocked folds a page's first comparison (its history's log-likelihood)
// into the prior of its site, key.
func (e *EstimatorPolicy) learnSiteLocked(key string, logl *[rateGridN]float64) {
	sp, ok := e.sites.Get(key)
	if !ok {
		sp = &sitePrior{w: e.prior}
		e.sites.Add(key, sp)
	}
	var post [rateGridN]float64
	posterior(&sp.w, logl, &post)
	eta := max(1/float64(sp.n+1), 1.0/siteMemory)
	for k := range sp.w {
		sp.w[k] = (1-eta)*sp.w[k] + eta*post[k]
	}
	sp.n++
	e.siteVersion++
}

// First plans p's first revisit from its site's prior (see sitePrior), or returns 0
// (Initial) for a site without enough evidence and for every siteProbeEvery-th page.
func (e *EstimatorPolicy) First(p *Page, now time.Time) time.Duration {
	key := siteKey(p.URL)
	if key == "" {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.price == 0 {
		return 0
	}
	sp, ok := e.sites.Get(key)
	if !ok || sp.n < siteEvidence {
		return 0
	}
	sp.firsts++
	if sp.firsts%siteProbeEvery == 0 {
		e.probed++
		return 0
	}
	e.untrackLocked(p)
	e.pages++
	e.shareLocked(p, &sp.w)
	e.planned++
	e.repriceLocked()
	e.foreseeLocked(p, &sp.w)
	return e.duration(1 / p.Freq)
}

// FirstPlans returns how many new pages had their first revisit planned from their
// site's prior, and how many of those sites' new pages were refetched after Initial
// to keep the evidence current.
func (e *EstimatorPolicy) FirstPlans() (planned, probed int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.planned, e.probed
}

// First asks the page's class plan.
func (c *ClassPolicy) First(p *Page, now time.Time) time.Duration {
	return c.of(p.Class).First(p, now)
}

// FirstPlans sums FirstPlans over the class plans.
func (c *ClassPolicy) FirstPlans() (planned, probed int64) {
	planned, probed = c.base.FirstPlans()
	for _, e := range c.plans {
		a, b := e.FirstPlans()
		planned, probed = planned+a, probed+b
	}
	return planned, probed
}

// SitePriorState is what the estimator policy learned of one site's new pages
// (sitePrior), kept across a restart: about 260 bytes of JSON a site.
type SitePriorState struct {
	Site string `json:"site"`
	// W is the share of its new pages at each rate of the grid, little-endian
	// float32s (base64 in JSON: a third of the size of a JSON number list).
	W      []byte `json:"w"`
	N      int    `json:"n"`                // first comparisons that weighed in
	Firsts int    `json:"firsts,omitempty"` // new pages planned or probed since the evidence
}

// SitePriorKeeper is a Policy whose site priors can be kept across a restart.
// Plans are keyed by class ("" the base plan; ClassPolicy has one per class).
type SitePriorKeeper interface {
	// ExportSitePriors returns each plan's site priors, least recently used first.
	ExportSitePriors() map[string][]SitePriorState
	// ImportSitePriors takes back what ExportSitePriors gave (an earlier run's); a
	// state that cannot be one (a damaged store) is skipped and counted.
	ImportSitePriors(map[string][]SitePriorState) (skipped int)
	// SitePriorsVersion changes whenever a site's evidence does (not for the
	// count of its new pages planned, which only paces the probes): a caller
	// keeping the priors writes them only then.
	SitePriorsVersion() int64
}

// exportSites returns the site priors, least recently used first.
func (e *EstimatorPolicy) exportSites() []SitePriorState {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]SitePriorState, 0, e.sites.Len())
	for _, key := range e.sites.Keys() {
		sp, ok := e.sites.Peek(key)
		if !ok {
			continue
		}
		st := SitePriorState{Site: key, W: make([]byte, 4*rateGridN), N: sp.n, Firsts: sp.firsts}
		for k, w := range sp.w {
			binary.LittleEndian.PutUint32(st.W[4*k:], math.Float32bits(float32(w)))
		}
		out = append(out, st)
	}
	return out
}

// importSites adds states in order (the last is the most recently used).
func (e *EstimatorPolicy) importSites(states []SitePriorState) (skipped int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, st := range states {
		sp, ok := sitePriorOf(st)
		if !ok {
			skipped++
			continue
		}
		e.sites.Add(st.Site, sp)
	}
	return skipped
}

// sitePriorOf checks a stored state: a site, a weight for every grid rate, none
// negative or not a number, some above zero (normalised), counts not negative.
func sitePriorOf(st SitePriorState) (*sitePrior, bool) {
	if st.Site == "" || len(st.W) != 4*rateGridN || st.N < 0 || st.Firsts < 0 {
		return nil, false
	}
	sp := &sitePrior{n: st.N, firsts: st.Firsts}
	sum := 0.0
	for k := range sp.w {
		v := float64(math.Float32frombits(binary.LittleEndian.Uint32(st.W[4*k:])))
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, false
		}
		sp.w[k] = v
		sum += v
	}
	if !(sum > 0) {
		return nil, false
	}
	for k := range sp.w {
		sp.w[k] /= sum
	}
	return sp, true
}

// ExportSitePriors implements SitePriorKeeper: the one plan, keyed "".
func (e *EstimatorPolicy) ExportSitePriors() map[string][]SitePriorState {
	return map[string][]SitePriorState{"": e.exportSites()}
}

// ImportSitePriors implements SitePriorKeeper. Plans other than "" are another
// configuration's (revisit.classes changed): their sites are taken in all the same,
// a site's pages having changed alike whatever plan counted them, in the order of
// the plans' names (so past siteCap the base plan's go first, and a site in two
// plans keeps the later one's).
func (e *EstimatorPolicy) ImportSitePriors(plans map[string][]SitePriorState) (skipped int) {
	for _, class := range slices.Sorted(maps.Keys(plans)) {
		skipped += e.importSites(plans[class])
	}
	return skipped
}

// SitePriorsVersion implements SitePriorKeeper.
func (e *EstimatorPolicy) SitePriorsVersion() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.siteVersion
}

// ExportSitePriors implements SitePriorKeeper: the base plan under "", each class
// plan under its class.
func (c *ClassPolicy) ExportSitePriors() map[string][]SitePriorState {
	out := map[string][]SitePriorState{"": c.base.exportSites()}
	for class, p := range c.plans {
		out[class] = p.exportSites()
	}
	return out
}

// ImportSitePriors implements SitePriorKeeper: each plan's to that plan, those of a
// plan no longer configured to the base.
func (c *ClassPolicy) ImportSitePriors(plans map[string][]SitePriorState) (skipped int) {
	for _, class := range slices.Sorted(maps.Keys(plans)) {
		p, ok := c.plans[class]
		if !ok {
			p = c.base
		}
		skipped += p.importSites(plans[class])
	}
	return skipped
}

// SitePriorsVersion implements SitePriorKeeper.
func (c *ClassPolicy) SitePriorsVersion() int64 {
	v := c.base.SitePriorsVersion()
	for _, p := range c.plans {
		v += p.SitePriorsVersion()
	}
	return v
}
