package discover

import (
	"math"
	"sync"
	"time"
)

// Poller decides when each feed, sitemap (or entry page standing in for a site with
// neither) is fetched again. It learns each source's publishing rate from the new
// URLs its polls bring — a count, which tells more than the changed/unchanged bit the
// page revisit estimator (revisit.EstimateRate, Cho & Garcia-Molina) has to work
// with — decayed with a half-life of RateHalfLife so that a newsroom's busy day
// shows at once and fades.
//
// The polls are split by the square-root rule: for items arriving as Poisson
// processes of rates r_i, polling at frequencies f_i with Σ f_i = F, the mean delay to
// discovery Σ r_i/(2 f_i) is least when f_i ∝ √r_i (Lagrange; the same result as
// Coffman, Liu & Weber, "Optimal robot scheduling for web search engines", J.
// Scheduling 1998). F is the poll budget (polls per hour over all sources) when one
// is set; with a fetch budget B instead (fetches per hour for the reads and the new
// URLs they bring), what the new URLs expected leave of it, B − Σ r_i; with neither it
// is one poll per TargetItems new URLs expected over all
// sources, Σ r_i / TargetItems — what polling each source once per TargetItems of its
// own new URLs would spend, moved from the busy sources to the quiet ones where a
// poll saves more delay (live discovery bench: p95 6,413 s against 10,246–10,522 at
// the same 19.3 fetches per web hour). Intervals are clamped to [MinInterval,
// MaxInterval]. A poll whose document was full of new URLs (some may have scrolled
// off) asks for the next poll at MinInterval.
//
// The bench's goal is the p95 delay, not the mean, and for Poisson sources the reads
// that minimise the p95 are different: the sources that hold 95% of the items at one
// common interval, the rest at MaxInterval (a linear program; the square-root rule
// reads the middle of a log-uniform mix, whose items are the tail, several times less
// often than the busiest). Both were tried on the live bench and lost to this rule.
// Read at MaxInterval, a site that was quiet for a day and then starts a busy run
// (publishing is heavy-tailed) is noticed a day late: seed 1 p95 34,000 s, 15,600 s
// with the quiet ones read at least every 8 served intervals, 6,700 at 4, against
// 6,055 here. The continuous compromise (one interval above the 95% cut, the
// square-root rule below it: 13% lower p95 on stationary Poisson sources) won on
// one seed of three (2x budget, half a read per article: 11,498 s against 14,461)
// and lost on the others (seed 3: 5,489 against 5,016; seed 3 at 3x: 3,222 against
// 2,545), the one common interval sending the busiest sources' items to the lane in
// larger batches. Counting a URL another path had brought in first at a quarter
// (so that a source shadowed by another is read less, but never looks dead) moved
// along the same frontier rather than past it: 3-7% fewer fetches per new article at
// 3x, p95 5,900 s against 6,084-6,194 on seed 1 but 5,817 against 4,839-5,014 on
// seed 2. What did move past it is reading a source another of its site covers at
// MaxInterval only (Coverage, Shadow): at 2x and half a read per article, p95
// 10,442-11,981 / 8,384-9,193 / 4,571-4,835 s on seeds 1-3 (three runs each) against
// 14,461 / 9,624 / 5,016 before. With
// it, a flatter split (f ∝ r^0.3) gave 10,140 / 8,291 / 4,790 s: noise, not adopted.
// Reads timed by a source's age, the time since its last read that brought news
// (publishing has a decreasing hazard: the sandbox's gaps are Pareto, shape 1.5),
// each interval the split's times (age / mean gap)^k, normalised by the source's
// own history to keep its reads per hour, did not lower the p95 in the simulation
// (3x budget, seed 1, at equal reads within 2%: k 0.25 p95 3,012 s against 2,967
// at even intervals, 5,338 against 5,520 at 0.7 of the budget; k 0.5 3,304; k 1
// 6,587): the p95 is the articles that end a quiet spell, which such reads find
// later. Schedules that know each site's mean gap and least gap and every
// article's date do better (bench/discovery_hazard.go: 4,167 s against 4,585 for
// their periodic member on the live bench's seed 1 at 0.7), much of it from not
// reading in the least gap after an article, which real newsrooms do not keep.
//
// It is safe for concurrent use.
type Poller struct {
	Budget float64 // polls per hour over all sources; 0: from FetchBudget, else Σ rates / TargetItems
	// FetchBudget is fetches per hour for the reads and the new URLs they bring:
	// without a Budget, the reads get what the new URLs expected (Σ rates) leave of
	// it, and at least fetchBudgetFloor of it, so that a crawl told its fetch budget
	// spends it as its rates are learned, without being told them.
	FetchBudget float64
	// KeepPace takes a read's lateness off its next interval: how much longer than
	// asked its last read came (queued behind other fetches), up to half the
	// interval. Measured from the read alone, every wait in a busy lane's queue
	// lengthens the interval after it, and the reads fall short of a budget: a
	// crawl told a fetch budget spent 13% fewer reads than it was given (live
	// discovery bench, lane 92% busy). The engine sets it with a budget.
	KeepPace     bool
	TargetItems  float64       // new URLs per poll aimed at over all sources without a budget (default 1)
	MinInterval  time.Duration // default 1 minute
	MaxInterval  time.Duration // default 1 day
	RateHalfLife time.Duration // default 1 day

	mu      sync.Mutex
	sources map[string]*pollSource
	// Σ √rate and Σ rate over the sources not shadowed, kept as each source's
	// rate changes (a read costs O(1), not O(sources): 87 µs a read at 10,000
	// sources before), and summed afresh every sumRefresh changes against drift.
	sumSqrt, sumRate float64
	// sumFresh is Σ fresh rate over the same sources: the pages the reads bring
	// that are new to the crawl, what a fetch budget pays for besides the reads.
	sumFresh float64
	changes  int
	dirty    bool // sums to be summed afresh (every sumRefresh changes)
}

// sumRefresh is how many incremental changes the sums take before they are summed
// afresh.
const sumRefresh = 4096

type pollSource struct {
	last   time.Time
	items  float64 // decayed new URLs seen
	fresh  float64 // decayed URLs seen that were new to the crawl (each fetched once)
	span   float64 // decayed time watched, hours
	full   bool
	shadow bool // another source lists what it lists, as soon (Coverage)
	// resumed: taken back after a pause (Unpark); its next poll's URLs are what
	// was published while it was not read, a backlog, not a rate.
	resumed bool
	// cSqrt, cRate and cFresh are its terms in the Poller's sums.
	cSqrt, cRate, cFresh float64
	// want is the interval its last read gave before lateness; asked is the one
	// Interval gave then (want less late, with KeepPace), the read's due time;
	// late is how much later than due its last read came, at most half of want.
	// Measured from want instead of asked, a steady wait comes off every other
	// interval only, and the reads fall short of the budget by half the wait.
	want, asked, late time.Duration
}

// update puts s's current rate in the sums in place of its old terms (gone: takes
// them out). Caller holds p.mu.
func (p *Poller) update(s *pollSource, gone bool) {
	var sq, r, f float64
	if !gone && !s.shadow {
		r = p.rate(s)
		sq = math.Sqrt(r)
		f = p.freshRate(s)
	}
	p.sumSqrt += sq - s.cSqrt
	p.sumRate += r - s.cRate
	p.sumFresh += f - s.cFresh
	s.cSqrt, s.cRate, s.cFresh = sq, r, f
	if p.changes++; p.changes >= sumRefresh {
		p.dirty = true
	}
}

// fetchBudgetFloor is the least share of a FetchBudget the reads keep when the new
// URLs expected would take all of it: without reads there are no new URLs.
const fetchBudgetFloor = 0.3

// priorItems starts every source at one item per half the longest interval (12 h by
// default), so a new source is polled at a moderate pace until it shows its own rate.
const priorItems = 1

func (p *Poller) defaults() (lo, hi, half time.Duration, target float64) {
	lo, hi, half, target = p.MinInterval, p.MaxInterval, p.RateHalfLife, p.TargetItems
	if lo <= 0 {
		lo = time.Minute
	}
	if hi <= 0 {
		hi = 24 * time.Hour
	}
	if half <= 0 {
		half = 24 * time.Hour
	}
	if target <= 0 {
		target = 1
	}
	return
}

// Observe records one poll of src at at that found newItems URLs not seen before;
// full says the document held nothing but new URLs (it may have overflowed).
// It is ObserveRead with every new URL new to the crawl too.
func (p *Poller) Observe(src string, at time.Time, newItems int, full bool) {
	p.ObserveRead(src, at, newItems, newItems, full)
}

// ObserveRead records one read of src at at: newItems URLs it listed that its last
// read did not (its publishing rate, which sets its share of the reads), of which
// fresh were new to the crawl. A fetch budget pays for the fresh ones only: a site
// whose feed and sitemap both list each article, or whose entry page is read beside
// its sitemap, brings each article twice as news but fetches it once, and counting
// it twice took the reads' part of the budget for fetches that never came (live
// discovery bench, seed 1 at 0.7 of the budget: 94% of it spent, the busiest sites
// read 31 times in 36 web hours where their true rates give 49).
func (p *Poller) ObserveRead(src string, at time.Time, newItems, fresh int, full bool) {
	_, hi, half, _ := p.defaults()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sources == nil {
		p.sources = map[string]*pollSource{}
	}
	s := p.sources[src]
	if s == nil {
		// The first poll's URLs are the backlog, not a rate.
		s = &pollSource{last: at, items: priorItems, fresh: priorItems, span: hi.Hours() / 2}
		p.sources[src] = s
		p.update(s, false)
		return
	}
	if s.resumed {
		// The pause is neither watched time nor a rate: start again from here.
		s.last, s.full, s.resumed = at, false, false
		p.update(s, false)
		return
	}
	s.late = 0
	if s.want > 0 {
		asked := s.asked
		if asked <= 0 {
			asked = s.want
		}
		s.late = max(0, min(at.Sub(s.last)-asked, s.want/2))
	}
	dt := at.Sub(s.last).Hours()
	if dt < 0 {
		dt = 0
	}
	decay := math.Exp2(-dt / half.Hours())
	s.items = s.items*decay + float64(newItems)
	s.fresh = s.fresh*decay + float64(min(fresh, newItems))
	s.span = s.span*decay + dt
	s.last, s.full = at, full && newItems > 0
	p.update(s, false)
	s.want = p.interval(s)
	s.asked = s.want
	if p.KeepPace && s.late > 0 && !s.shadow {
		lo, _, _, _ := p.defaults()
		s.asked = max(lo, s.want-s.late)
	}
}

// Forget drops src: it is no longer polled (an entry page whose site its feeds and
// sitemaps now cover), so it no longer takes a share of the polls.
func (p *Poller) Forget(src string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.sources[src]; ok {
		p.update(s, true)
		delete(p.sources, src)
	}
}

// Shadow marks src as shadowed (Coverage: another source of its site lists what it
// lists, at least as soon) or not. A shadowed source is polled at MaxInterval, to
// keep watching it, and takes no share of the polls.
func (p *Poller) Shadow(src string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.sources[src]; s != nil && s.shadow != on {
		s.shadow = on
		p.update(s, false)
	}
}

// Knows says whether src is a source the Poller reads (observed, not forgotten).
func (p *Poller) Knows(src string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sources[src] != nil
}

// Shadowed says whether src is shadowed.
func (p *Poller) Shadowed(src string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sources[src]
	return s != nil && s.shadow
}

// Rate is src's estimated new URLs per hour.
func (p *Poller) Rate(src string) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rate(p.sources[src])
}

func (p *Poller) rate(s *pollSource) float64 {
	if s == nil || s.span <= 0 {
		_, hi, _, _ := p.defaults()
		return priorItems / (hi.Hours() / 2)
	}
	return s.items / s.span
}

// freshRate is s's estimated URLs new to the crawl per hour.
func (p *Poller) freshRate(s *pollSource) float64 {
	if s == nil || s.span <= 0 {
		_, hi, _, _ := p.defaults()
		return priorItems / (hi.Hours() / 2)
	}
	return s.fresh / s.span
}

// Interval is how long after its last poll src is due again.
// With KeepPace, less its last read's lateness.
func (p *Poller) Interval(src string) time.Duration {
	lo, _, _, _ := p.defaults()
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sources[src]
	d := p.interval(s)
	if p.KeepPace && s != nil && s.late > 0 && !s.shadow {
		d = max(lo, d-s.late)
	}
	return d
}

// interval is Interval before lateness. Caller holds p.mu.
func (p *Poller) interval(s *pollSource) time.Duration {
	lo, hi, _, target := p.defaults()
	if s != nil && s.shadow {
		return hi
	}
	if s != nil && s.full {
		return lo
	}
	r := p.rate(s)
	if p.dirty {
		p.sumSqrt, p.sumRate, p.sumFresh, p.changes = 0, 0, 0, 0
		for _, o := range p.sources {
			o.cSqrt, o.cRate, o.cFresh = 0, 0, 0
			p.update(o, false)
		}
		p.changes, p.dirty = 0, false
	}
	budget := p.Budget
	if budget <= 0 && p.FetchBudget > 0 {
		budget = max(p.FetchBudget-max(p.sumFresh, p.freshRate(s)), fetchBudgetFloor*p.FetchBudget)
	}
	if budget <= 0 {
		budget = max(p.sumRate, r) / target // r: a source not yet observed is in neither sum
	}
	// f_i = F √r_i / Σ √r_j polls per hour.
	f := budget * math.Sqrt(r) / max(p.sumSqrt, math.Sqrt(r), 1e-9)
	hours := 1 / f
	d := time.Duration(hours * float64(time.Hour))
	return max(lo, min(d, hi))
}

// Next is when src is due: its last poll plus Interval (the zero time for a source
// never polled: due now).
func (p *Poller) Next(src string) time.Time {
	p.mu.Lock()
	s := p.sources[src]
	p.mu.Unlock()
	if s == nil {
		return time.Time{}
	}
	return s.last.Add(p.Interval(src))
}

// PollState is what the Poller learned of one source, kept across a restart so that
// a restarted crawl polls each feed at the pace it had learned rather than the
// prior's.
type PollState struct {
	Last  time.Time `json:"last"`  // its last poll
	Items float64   `json:"items"` // decayed new URLs seen
	// Known is the part of Items that another path had brought to the crawl
	// first (decayed): Items less Known is what the source's reads cost in fetches.
	Known float64 `json:"known,omitempty"`
	Span  float64 `json:"span_h"`         // decayed time watched, hours
	Full  bool    `json:"full,omitempty"` // its last poll held nothing but new URLs
	// Resumed: taken back after a pause (Unpark) and not polled since; its next
	// poll's URLs are a backlog.
	Resumed bool `json:"resumed,omitempty"`
}

func (s *pollSource) state() PollState {
	return PollState{Last: s.last, Items: s.items, Known: max(0, s.items-s.fresh), Span: s.span, Full: s.full, Resumed: s.resumed}
}

// Export returns every source's learned state.
func (p *Poller) Export() map[string]PollState {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]PollState, len(p.sources))
	for src, s := range p.sources {
		out[src] = s.state()
	}
	return out
}

// Park forgets srcs (a site the operator removed: they are no longer polled and
// take no share of the polls) and returns what was learned of them, for Unpark.
func (p *Poller) Park(srcs []string) map[string]PollState {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]PollState{}
	for _, src := range srcs {
		if s := p.sources[src]; s != nil {
			out[src] = s.state()
			p.update(s, true)
			delete(p.sources, src)
		}
	}
	return out
}

// Unpark takes back sources Park returned (the site added again): each keeps the
// rate it had learned, and its next poll, whatever it brings, only starts the
// watch again (what was published while it was parked is a backlog).
func (p *Poller) Unpark(states map[string]PollState) {
	back := make(map[string]PollState, len(states))
	for src, st := range states {
		st.Resumed = true
		back[src] = st
	}
	p.Import(back)
}

// Import takes back states Export gave (an earlier run's). A state that cannot be
// one (negative or not a number: a damaged store) is left out, so that source
// starts from the prior as a new one would.
func (p *Poller) Import(states map[string]PollState) (skipped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sources == nil {
		p.sources = map[string]*pollSource{}
	}
	for src, st := range states {
		if st.Last.IsZero() || !(st.Items >= 0) || !(st.Span >= 0) || math.IsInf(st.Items, 0) || math.IsInf(st.Span, 0) {
			skipped++
			continue
		}
		if old := p.sources[src]; old != nil {
			p.update(old, true)
		}
		fresh := st.Items
		if st.Known > 0 && st.Known <= st.Items {
			fresh = st.Items - st.Known
		}
		s := &pollSource{last: st.Last, items: st.Items, fresh: fresh, span: st.Span, full: st.Full, resumed: st.Resumed}
		p.sources[src] = s
		p.update(s, false)
	}
	return skipped
}
