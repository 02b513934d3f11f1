package main

// go run ./bench revisit — adaptive revisit (M2) at an equal fetch budget.
//
// Pages come from the sandbox's content model (sandbox.NewWeb, no servers): articles
// and posts that change as Poisson processes (25% never; the rest log-uniform in
// 0.05..48 changes per day; a change rewrites half the article), rendered with
// boilerplate that churns on every request (clock, rotating ad, view counter, request
// id) and with the sandbox's content faults (malformed HTML, invalid UTF-8, redirect
// chains, slow bodies; pages that never deliver their content are left out). Time is
// simulated: the web is asked for each page as served at the simulated instant.
//
// The crawl discovers the pages at a steady pace over the first days and fetches each
// once. From then on every policy has a fetcher of the same capacity, budget × known
// pages fetches per day, spent each hour on the pages first by ascending next (the
// scheduler's order). When fewer pages are due than the capacity, the spare fetches go
// to the soonest-due pages early, as a crawler does not leave paid bandwidth idle
// ("early" in the table: fetched over an hour before the policy asked). Bodies are
// always fetched in full (no conditional GET), so every fetch exercises change
// detection.
//
// Policies:
//
//	seed           seed 001: next = last + t/x
//	fixed          every page every 1/budget days
//	nutch          Nutch AdaptiveFetchSchedule: interval ×1.4 when not modified, ×0.8
//	               when modified, "modified" = exact digest (MD5 of the body, Nutch's
//	               default signature); default/min/max (30 d / 60 s / 365 d) scaled so
//	               that the default is 1/budget days
//	nutch_simhash  (with -policies) the same schedule fed our SimHash verdict instead
//	freshness      revisit.EstimatorPolicy, objective freshness: Cho & Garcia-Molina
//	               change model and freshness-optimal allocation, learned
//	age            the same, age-optimal allocation
//	balanced       the same, freshness less weighted age: the package default
//	               (revisit.DefaultObjective); -weights adds balanced_wK runs with
//	               BalanceWeight K, to trace the front
//	oracle         the freshness-optimal allocation from the true rates, known from
//	               the start; oracle_age and oracle_balanced likewise
//
// Measured after the warm-up: freshness (time-averaged share of pages whose stored
// copy is the live version), age (mean days since the live page first differed from
// the copy, 0 when fresh, over all pages: Cho & Garcia-Molina's age), captured (the
// share of the changes made after the warm-up whose new content some fetch saw
// before the page changed again), the estimators' own forecast of freshness and age
// at the end (revisit.Outlook, what the Revisit pane shows), and change detection
// against the model's true versions:
// false_change_rate = comparisons counted as "changed" whose content had not changed,
// over all comparisons whose content had not changed (missed_change_rate likewise).

import (
	"crypto/md5"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("revisit", runRevisitBench) }

// revisitPolicies in table order; revisitDefault runs unless -policies says otherwise.
var (
	revisitPolicies = []string{"seed", "fixed", "nutch", "nutch_simhash", "freshness", "age", "balanced",
		"oracle", "oracle_age", "oracle_balanced"}
	revisitDefault = "seed,fixed,nutch,freshness,age,balanced,oracle,oracle_age,oracle_balanced"
)

// revisitDefaultPolicy is the bench policy that runs the package default
// (revisit.DefaultPolicy with revisit.DefaultObjective).
const revisitDefaultPolicy = revisit.DefaultObjective

// revisitSkipFaults never deliver the page's content (Render serves a huge page as
// 64 KiB of filler that does not follow its versions), so a copy of them cannot be
// fresh or stale. Giant and binary bodies are covered by the package's unit tests.
var revisitSkipFaults = map[string]bool{
	sandbox.FaultReset: true, sandbox.Fault5xx: true, sandbox.FaultRedirectLoop: true,
	sandbox.FaultBinary: true, sandbox.FaultHuge: true,
}

const revisitDay = 24 * time.Hour

// revisitBands group pages by true change rate for the -bands table.
var revisitBands = []struct {
	name   string
	lo, hi float64
}{{"static", 0, 0}, {"<0.2/d", 1e-9, 0.2}, {"0.2-1.25/d", 0.2, 1.25}, {"1.25-5/d", 1.25, 5}, {">5/d", 5, math.Inf(1)}}

func revisitBand(rate float64) int {
	for i, b := range revisitBands {
		if rate == b.lo || rate >= b.lo && rate < b.hi {
			return i
		}
	}
	return len(revisitBands) - 1
}

type revisitSetup struct {
	web       *sandbox.Web
	urls      []string
	rates     []float64 // true change rates, per day
	start     time.Time // the epoch: discovery begins
	warm      time.Time // measuring starts
	end       time.Time
	slot      time.Duration // the fetcher's accounting period
	discovery time.Duration // pages are found at a steady pace over this
}

// revisitResult is one (budget, policy) run.
type revisitResult struct {
	budget   float64
	policy   string
	fresh    float64          // freshness
	age      float64          // mean age, days
	changes  int              // changes made after the warm-up
	captured int              // of which some fetch saw the new content before the next change
	outlook  *revisit.Outlook // the estimator's own forecast at the end, all classes
	fetches  int              // revisit fetches over the whole run
	measured int              // revisit fetches after the warm-up
	early    int              // measured fetches over a slot before the policy's own next
	unknown  int              // measured fetches without a usable fingerprint
	// change detection against the true versions (measured comparisons)
	sameN, falseChanged     int
	diffN, missed           int
	digestSame, digestFalse int // nutch: the MD5 verdict on the same comparisons
	bandFresh, bandFreq     []float64
	elapsed                 time.Duration
}

func runRevisitBench(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("revisit", flag.ContinueOnError)
	nPages := fs.Int("pages", 400, "pages in the simulation")
	days := fs.Float64("days", 365, "simulated days")
	warmup := fs.Float64("warmup", 180, "days before measuring (the estimator learns, the others settle)")
	budgetList := fs.String("budgets", "0.1,0.3", "fetch budgets, fetches per page per day")
	seed := fs.Int64("seed", 1, "sandbox and sampling seed")
	workers := fs.Int("workers", 2, "runs in parallel")
	policyList := fs.String("policies", revisitDefault, "policies to run, of "+strings.Join(revisitPolicies, ","))
	weightList := fs.String("weights", "", "also run the balanced objective at these BalanceWeights (e.g. 0.1,0.5,1)")
	bands := fs.Bool("bands", false, "also print freshness and fetch rate by true change rate")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var budgets []float64
	for _, s := range strings.Split(*budgetList, ",") {
		b, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || b <= 0 {
			return nil, fmt.Errorf("-budgets: %q is not a positive number", s)
		}
		budgets = append(budgets, b)
	}
	var policies []string
	for _, p := range strings.Split(*policyList, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(revisitPolicies, p) {
			return nil, fmt.Errorf("-policies: unknown policy %q (have %v)", p, revisitPolicies)
		}
		policies = append(policies, p)
	}
	if *weightList != "" {
		for _, w := range strings.Split(*weightList, ",") {
			k, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
			if err != nil || !(k > 0) || math.IsInf(k, 0) {
				return nil, fmt.Errorf("-weights: %q is not a positive number", w)
			}
			policies = append(policies, "balanced_w"+revisitKey(k))
		}
	}
	if *warmup >= *days || *nPages < 10 || *workers < 1 {
		return nil, errors.New("need -warmup < -days, -pages >= 10, -workers >= 1")
	}
	began := time.Now()
	setup, err := revisitBuild(*nPages, *days, *warmup, *seed)
	if err != nil {
		return nil, err
	}

	type job struct {
		budget float64
		policy string
	}
	var jobs []job
	for _, b := range budgets {
		for _, p := range policies {
			jobs = append(jobs, job{b, p})
		}
	}
	// The costliest runs first, so that two workers finish together.
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].budget > jobs[j].budget })
	results := make([]revisitResult, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = revisitRun(setup, jobs[i].budget, jobs[i].policy)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return revisitReport(setup, budgets, policies, results, *bands, time.Since(began)), nil
}

// revisitBuild makes the sandbox web and samples the pages.
func revisitBuild(n int, days, warmup float64, seed int64) (*revisitSetup, error) {
	cfg := sandbox.DefaultConfig()
	cfg.Seed = seed
	cfg.HTTPAddr = "127.0.0.1:0" // no server: URLs without a port
	var web *sandbox.Web
	var eligible []sandbox.PageInfo
	for hosts := 60; ; hosts *= 2 {
		cfg.Hosts = hosts
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("sandbox config: %w", err)
		}
		web = sandbox.NewWeb(cfg)
		eligible = eligible[:0]
		for _, p := range web.Pages() {
			if (p.Kind == sandbox.KindArticle || p.Kind == sandbox.KindPost) && !revisitSkipFaults[p.Fault] {
				eligible = append(eligible, p)
			}
		}
		if len(eligible) >= n || hosts > 100_000 {
			break
		}
	}
	if len(eligible) < n {
		return nil, fmt.Errorf("sandbox has only %d eligible pages", len(eligible))
	}
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })
	eligible = eligible[:n] // in discovery order
	s := &revisitSetup{web: web, start: web.Epoch(), slot: time.Hour}
	s.warm = s.start.Add(time.Duration(warmup * float64(revisitDay)))
	s.end = s.start.Add(time.Duration(days * float64(revisitDay)))
	s.discovery = min(time.Duration(warmup/4*float64(revisitDay)), 15*revisitDay)
	for _, p := range eligible {
		s.urls = append(s.urls, p.URL)
		s.rates = append(s.rates, p.ChangeRate)
	}
	return s, nil
}

// revisitPage is one page's state in one run.
type revisitPage struct {
	url         string
	rate        float64
	st          revisit.Page
	hasCopy     bool
	copyAt      time.Time     // fetch time of the stored copy
	accounted   time.Time     // freshness accounted up to here
	hashVersion int           // true version when st.Hash was taken
	seenVersion int           // true version of the last fetch that brought content
	warmVersion int           // true version at the warm-up's end
	digest      [16]byte      // MD5 of the last body (Nutch's signature)
	fresh       time.Duration // measured time fresh
	measured    int           // measured fetches
}

// revisitNewPolicy builds the named policy for a run.
func revisitNewPolicy(s *revisitSetup, name string, budget float64, initial time.Duration) (revisit.Policy, error) {
	switch name {
	case "seed":
		return revisit.SeedPolicy{}, nil
	case "fixed":
		return revisitFixed(initial), nil
	case "nutch", "nutch_simhash":
		return newRevisitNutch(initial, name == "nutch"), nil
	case "freshness", "age", "balanced":
		return revisit.NewPolicy(revisit.PolicyEstimator, revisit.EstimatorOptions{Budget: budget, Objective: name})
	case "oracle", "oracle_age", "oracle_balanced":
		objective := strings.TrimPrefix(strings.TrimPrefix(name, "oracle"), "_")
		if objective == "" {
			objective = revisit.ObjectiveFreshness
		}
		o, err := revisit.NewObjective(objective, budget)
		if err != nil {
			return nil, err
		}
		return revisitOracleFor(s, o, budget), nil
	}
	if k, ok := strings.CutPrefix(name, "balanced_w"); ok {
		w, err := strconv.ParseFloat(k, 64)
		if err != nil {
			return nil, fmt.Errorf("policy %q: %w", name, err)
		}
		return revisit.NewPolicy(revisit.PolicyEstimator, revisit.EstimatorOptions{Budget: budget,
			Objective: revisit.ObjectiveBalanced, BalanceWeight: w})
	}
	return nil, fmt.Errorf("unknown policy %q", name)
}

// revisitOracleFor allocates budget over the true rates for objective o: every page
// gets the frequency at which o's marginal equals one price μ (TODS 2003, section
// 5), μ bisected until the frequencies spend the budget.
func revisitOracleFor(s *revisitSetup, o revisit.Objective, budget float64) revisitOracle {
	freqAt := func(rate, price float64) float64 {
		const lo = 1e-6
		if o.Marginal(rate, lo) <= price {
			return 0
		}
		a, b := math.Log(lo), math.Log(1e4)
		for range 60 {
			m := (a + b) / 2
			if o.Marginal(rate, math.Exp(m)) > price {
				a = m
			} else {
				b = m
			}
		}
		return math.Exp(b)
	}
	total := budget * float64(len(s.rates))
	lo, hi := math.Log(1e-12), math.Log(1e12)
	for range 80 {
		mid := (lo + hi) / 2
		spent := 0.0
		for _, r := range s.rates {
			spent += freqAt(r, math.Exp(mid))
		}
		if spent > total {
			lo = mid
		} else {
			hi = mid
		}
	}
	out := revisitOracle{}
	for i, u := range s.urls {
		out[u] = freqAt(s.rates[i], math.Exp(hi))
	}
	return out
}

// revisitRun simulates one policy at one budget.
func revisitRun(s *revisitSetup, budget float64, policyName string) (revisitResult, error) {
	began := time.Now()
	res := revisitResult{budget: budget, policy: policyName,
		bandFresh: make([]float64, len(revisitBands)), bandFreq: make([]float64, len(revisitBands))}
	n := len(s.urls)
	initial := time.Duration(float64(revisitDay) / budget)
	policy, err := revisitNewPolicy(s, policyName, budget, initial)
	if err != nil {
		return res, err
	}
	nutch, _ := policy.(*revisitNutch)
	tr, err := revisit.NewTracker(revisit.Config{Initial: initial, Windows: revisit.Windows{}}, policy)
	if err != nil {
		return res, err
	}
	store := revisit.NewMemStore()
	pages := make(map[string]*revisitPage, n)
	var reqNo int64
	var freshDur, totalDur time.Duration
	var ageDays2 float64 // ∫ age dt, in day²

	// account adds [p.accounted, to] ∩ [warm, end] to the freshness and age integrals.
	account := func(p *revisitPage, to time.Time) {
		from := p.accounted
		p.accounted = to
		lo, hi := revisitMaxTime(from, s.warm), revisitMinTime(to, s.end)
		if !hi.After(lo) {
			return
		}
		totalDur += hi.Sub(lo)
		if !p.hasCopy {
			return // no copy at all: stale, with no defined age
		}
		changes := s.web.ChangeTimes(p.url, p.copyAt.Add(time.Nanosecond), hi)
		if len(changes) == 0 {
			freshDur += hi.Sub(lo)
			p.fresh += hi.Sub(lo)
			return
		}
		c := changes[0]
		if c.After(lo) {
			freshDur += c.Sub(lo)
			p.fresh += c.Sub(lo)
		}
		a, b := revisitMaxTime(c, lo).Sub(c).Hours()/24, hi.Sub(c).Hours()/24
		ageDays2 += (b*b - a*a) / 2
	}

	fetch := func(p *revisitPage, at time.Time, measured bool) {
		reqNo++
		status, header, body := s.web.Render(p.url, at, reqNo)
		for hops := 0; status >= 300 && status < 400 && hops < 5; hops++ {
			status, header, body = s.web.Render(header.Get("Location"), at, reqNo)
		}
		account(p, at)
		version := s.web.Version(p.url, at)
		var out revisit.Outcome
		if status == http.StatusOK {
			out.Hash, out.OK = page.Fingerprint(body, header.Get("Content-Type"))
			p.hasCopy, p.copyAt = true, at
			// Captured: this fetch saw a version made after the warm-up that no earlier
			// fetch saw (the page had not changed again before it).
			if version > p.seenVersion && version > p.warmVersion && !at.Before(s.warm) {
				res.captured++
			}
			p.seenVersion = max(p.seenVersion, version)
			if nutch != nil && nutch.digest {
				d := md5.Sum(body)
				nutch.changed = d != p.digest
				p.digest = d
			}
		}
		if measured && !out.OK {
			res.unknown++
		}
		hadHash, prevVersion := p.st.HasHash, p.hashVersion
		verdict := tr.Observe(&p.st, at, out)
		if measured && hadHash && (verdict == revisit.VerdictChanged || verdict == revisit.VerdictUnchanged) {
			if version == prevVersion {
				res.sameN++
				if verdict == revisit.VerdictChanged {
					res.falseChanged++
				}
				if nutch != nil && nutch.digest {
					res.digestSame++
					if nutch.changed {
						res.digestFalse++
					}
				}
			} else {
				res.diffN++
				if verdict == revisit.VerdictUnchanged {
					res.missed++
				}
			}
		}
		if out.OK {
			p.hashVersion = version
		}
		store.Set(p.url, p.st.Next)
	}

	// Discovery: the crawl finds the pages at a steady pace over s.discovery and
	// fetches each once outside the revisit budget (a synchronised start would make
	// every page due at the same instant).
	discovered := 0
	discover := func(until time.Time) {
		for ; discovered < n; discovered++ {
			at := s.start.Add(s.discovery * time.Duration(discovered) / time.Duration(n))
			if at.After(until) {
				return
			}
			u := s.urls[discovered]
			p := &revisitPage{url: u, rate: s.rates[discovered], st: revisit.Page{URL: u}, accounted: at,
				warmVersion: s.web.Version(u, s.warm)}
			pages[u] = p
			fetch(p, at, false)
		}
	}
	credit := 0.0
	for now := s.start; now.Before(s.end); now = now.Add(s.slot) {
		discover(now)
		// The budget is per known page: capacity grows with discovery.
		credit += budget * float64(discovered) * s.slot.Hours() / 24
		k := int(credit)
		credit -= float64(k)
		if k == 0 {
			continue
		}
		due, _ := store.Due(k)
		for i, e := range due {
			at := now.Add(s.slot * time.Duration(i) / time.Duration(len(due)))
			p := pages[e.URL]
			measured := !at.Before(s.warm)
			fetch(p, at, measured)
			res.fetches++
			if measured {
				res.measured++
				p.measured++
				if e.Next.After(at.Add(s.slot)) {
					res.early++
				}
			}
		}
	}
	var bandN = make([]int, len(revisitBands))
	measuredDays := s.end.Sub(s.warm).Hours() / 24
	for _, p := range pages {
		account(p, s.end)
		res.changes += s.web.Version(p.url, s.end) - p.warmVersion
		b := revisitBand(p.rate)
		bandN[b]++
		res.bandFresh[b] += p.fresh.Hours() / 24 / measuredDays
		res.bandFreq[b] += float64(p.measured) / measuredDays
	}
	for b := range bandN {
		res.bandFresh[b] /= math.Max(1, float64(bandN[b]))
		res.bandFreq[b] /= math.Max(1, float64(bandN[b]))
	}
	if est, ok := policy.(*revisit.EstimatorPolicy); ok {
		var all revisit.Outlook
		for _, o := range est.Outlook() {
			all.Pages, all.Fresh, all.Age, all.Behind = all.Pages+o.Pages, all.Fresh+o.Fresh, all.Age+o.Age, all.Behind+o.Behind
		}
		res.outlook = &all
	}
	res.fresh = freshDur.Seconds() / totalDur.Seconds()
	res.age = ageDays2 / (totalDur.Hours() / 24)
	res.elapsed = time.Since(began)
	return res, nil
}

// revisitFixed revisits every page at one interval.
type revisitFixed time.Duration

func (f revisitFixed) Name() string                                      { return "fixed" }
func (f revisitFixed) Reschedule(*revisit.Page, time.Time) time.Duration { return time.Duration(f) }
func (f revisitFixed) Forget(*revisit.Page)                              {}

// revisitOracle gives each page its share of the optimal allocation for its true rate.
type revisitOracle map[string]float64 // URL → fetches per day

func (o revisitOracle) Name() string { return "oracle" }
func (o revisitOracle) Reschedule(p *revisit.Page, _ time.Time) time.Duration {
	f := o[p.URL]
	if f <= 0 {
		return 10 * 365 * revisitDay // never worth a visit
	}
	return time.Duration(float64(revisitDay) / f)
}
func (o revisitOracle) Forget(*revisit.Page) {}

// revisitNutch is Nutch's AdaptiveFetchSchedule (db.fetch.schedule.adaptive.*): the
// interval grows by inc_rate when a fetch finds the page not modified and shrinks by
// dec_rate when modified, within [min, max]. With digest, "modified" is an exact
// signature change (Nutch's default MD5Signature); otherwise our SimHash verdict.
// SYNC_DELTA (re-aligning to a Last-Modified time) is off.
type revisitNutch struct {
	min, max  time.Duration
	inc, dec  float64
	digest    bool
	changed   bool // digest mode: set by the bench before each Observe
	initial   time.Duration
	intervals map[string]time.Duration
}

// newRevisitNutch scales Nutch's defaults (default 30 d, min 60 s, max 365 d) so that
// the default interval is 1/budget days.
func newRevisitNutch(initial time.Duration, digest bool) *revisitNutch {
	scale := float64(initial) / float64(30*revisitDay)
	return &revisitNutch{
		min: time.Duration(60 * float64(time.Second) * scale), max: time.Duration(365 * float64(revisitDay) * scale),
		inc: 0.4, dec: 0.2, digest: digest, initial: initial, intervals: map[string]time.Duration{},
	}
}

func (n *revisitNutch) Name() string { return "nutch" }
func (n *revisitNutch) Reschedule(p *revisit.Page, now time.Time) time.Duration {
	iv, ok := n.intervals[p.URL]
	if !ok {
		iv = n.initial
	}
	if p.Last.Equal(now) && len(p.History) > 0 { // this fetch was a comparison
		changed := p.History[len(p.History)-1].Changed
		if n.digest {
			changed = n.changed
		}
		if changed {
			iv = time.Duration(float64(iv) * (1 - n.dec))
		} else {
			iv = time.Duration(float64(iv) * (1 + n.inc))
		}
		iv = max(n.min, min(n.max, iv))
	}
	n.intervals[p.URL] = iv
	return iv
}
func (n *revisitNutch) Forget(*revisit.Page) {}

func revisitMaxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func revisitMinTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// revisitReport prints the tables and returns the JSON fields.
func revisitReport(s *revisitSetup, budgets []float64, policies []string, results []revisitResult, bands bool, took time.Duration) map[string]any {
	n := len(s.urls)
	days := s.end.Sub(s.start).Hours() / 24
	measuredDays := s.end.Sub(s.warm).Hours() / 24
	fmt.Printf("revisit: %d sandbox pages, %.0f simulated days, measured after day %.0f; pages found over the first %.0f days\n",
		n, days, s.warm.Sub(s.start).Hours()/24, s.discovery.Hours()/24)
	byKey := map[string]revisitResult{}
	for _, r := range results {
		byKey[revisitKey(r.budget)+"/"+r.policy] = r
	}
	fresh := map[string]map[string]float64{}
	age := map[string]map[string]float64{}
	fetches := map[string]map[string]int{}
	captured := map[string]map[string]float64{}
	var sameN, falseN, diffN, missN, unknown, total, digestSame, digestFalse int
	falseBy := map[string][2]int{}
	for _, b := range budgets {
		key := revisitKey(b)
		fresh[key], age[key], fetches[key], captured[key] = map[string]float64{}, map[string]float64{}, map[string]int{}, map[string]float64{}
		fmt.Printf("\nbudget %s fetches/page/day\n", key)
		fmt.Printf("%-16s %9s %9s %9s %11s %7s %9s %8s %9s %8s %6s\n", "policy", "freshness", "age_days", "captured",
			"fetch/pg/d", "early", "false_chg", "missed", "est_fresh", "est_age", "secs")
		for _, p := range policies {
			r := byKey[key+"/"+p]
			fresh[key][p] = revisitRound(r.fresh, 4)
			age[key][p] = revisitRound(r.age, 3)
			fetches[key][p] = r.fetches
			captured[key][p] = revisitRound(float64(r.captured)/math.Max(1, float64(r.changes)), 4)
			estF, estA := "-", "-"
			if r.outlook != nil && r.outlook.Pages > 0 {
				estF, estA = fmt.Sprintf("%.4f", r.outlook.MeanFresh()), fmt.Sprintf("%.3f", r.outlook.MeanAge())
			}
			name := p
			if p == revisitDefaultPolicy {
				name += "*"
			}
			fmt.Printf("%-16s %9.4f %9.3f %9.4f %11.4f %6.1f%% %9s %8s %9s %8s %6.1f\n", name, r.fresh, r.age, captured[key][p],
				float64(r.measured)/float64(n)/measuredDays, 100*float64(r.early)/math.Max(1, float64(r.measured)),
				revisitRate(r.falseChanged, r.sameN), revisitRate(r.missed, r.diffN), estF, estA, r.elapsed.Seconds())
			sameN += r.sameN
			falseN += r.falseChanged
			diffN += r.diffN
			missN += r.missed
			unknown += r.unknown
			total += r.measured
			digestSame += r.digestSame
			digestFalse += r.digestFalse
			fb := falseBy[p]
			falseBy[p] = [2]int{fb[0] + r.falseChanged, fb[1] + r.sameN}
		}
		if bands {
			fmt.Printf("  by true change rate: freshness / fetches per page per day\n  %-16s", "")
			for _, bd := range revisitBands {
				fmt.Printf(" %15s", bd.name)
			}
			fmt.Println()
			for _, p := range policies {
				r := byKey[key+"/"+p]
				fmt.Printf("  %-16s", p)
				for i := range revisitBands {
					fmt.Printf("   %5.3f / %5.3f", r.bandFresh[i], r.bandFreq[i])
				}
				fmt.Println()
			}
		}
	}
	falseRate := float64(falseN) / math.Max(1, float64(sameN))
	missRate := float64(missN) / math.Max(1, float64(diffN))
	falseByPolicy := map[string]float64{}
	for p, v := range falseBy {
		falseByPolicy[p] = revisitRound(float64(v[0])/math.Max(1, float64(v[1])), 5)
	}
	fmt.Printf("\nchange detection: %d of %d comparisons of unchanged content counted as changed (%.4f); %d of %d changed missed (%.4f); %.2f%% fetches without usable text\n",
		falseN, sameN, falseRate, missN, diffN, missRate, 100*float64(unknown)/math.Max(1, float64(total)))
	fmt.Printf("goal false_change_rate <= 0.02: %v\n", falseRate <= 0.02)
	digestRate := -1.0
	if digestSame > 0 {
		digestRate = float64(digestFalse) / float64(digestSame)
		fmt.Printf("for contrast, an exact digest (MD5, Nutch's default) calls %d of the same %d unchanged comparisons changed (%.4f)\n",
			digestFalse, digestSame, digestRate)
	}
	fmt.Printf("(* the package default, objective %q; captured = share of changes whose new content a fetch saw before the next change; est_* = the estimator's own forecast at the end, as the Revisit pane shows it)\n",
		revisit.DefaultObjective)
	summary := map[string]any{}
	for _, b := range budgets {
		key := revisitKey(b)
		best, bestF := "", -1.0
		for _, p := range policies {
			if f := fresh[key][p]; !strings.HasPrefix(p, "oracle") && f > bestF {
				best, bestF = p, f
			}
		}
		row := map[string]any{"best": best}
		line := fmt.Sprintf("budget %s: best %s", key, best)
		if f := fresh[key]["nutch"]; f > 0 {
			row["best_vs_nutch"] = revisitRound(bestF/f, 3)
			line += fmt.Sprintf(", %.3f× nutch", bestF/f)
			if sf, ok := fresh[key]["seed"]; ok {
				row["seed_vs_nutch"] = revisitRound(sf/f, 3)
			}
		}
		if f := fresh[key]["oracle"]; f > 0 {
			row["best_vs_oracle"] = revisitRound(bestF/f, 3)
			line += fmt.Sprintf(", %.3f× oracle", bestF/f)
		}
		if b == 0.1 {
			line += " (goals at 0.1: ≥ 1.07× nutch, ≥ 0.97× oracle)"
		}
		if sf, ok := fresh[key]["seed"]; ok && best != "seed" {
			line += fmt.Sprintf("; seed %.3f× best", sf/bestF)
		}
		summary[key] = row
		fmt.Println(line)
	}
	objective := revisitObjectiveGoal(budgets, policies, fresh, age, captured)
	fmt.Printf("took %.1fs\n", took.Seconds())
	return map[string]any{
		"captured":                    captured,
		"objective":                   objective,
		"freshness":                   fresh,
		"age":                         age,
		"fetches":                     fetches,
		"false_change_rate":           revisitRound(falseRate, 5),
		"false_change_rate_by_policy": falseByPolicy,
		"missed_change_rate":          revisitRound(missRate, 5),
		"digest_false_change_rate":    revisitRound(digestRate, 5),
		"unknown_fetch_share":         revisitRound(float64(unknown)/math.Max(1, float64(total)), 5),
		"best":                        summary,
		"pages":                       n,
		"days":                        days,
		"warmup_days":                 s.warm.Sub(s.start).Hours() / 24,
		"seconds":                     revisitRound(took.Seconds(), 1),
	}
}

func revisitKey(b float64) string { return strconv.FormatFloat(b, 'f', -1, 64) }

func revisitRate(k, n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(k)/float64(n), 'f', 4, 64)
}

func revisitRound(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// revisitObjectiveGoal prints the goal for the default policy at every budget
// (freshness ≥ 1.07× Nutch's, age ≤ 1.0× Nutch's, changes captured ≥ Nutch's) and
// the Pareto front of the policies run against Nutch's point, and returns the JSON
// fields: per budget the default's three ratios, whether the goal is met, and the
// front.
func revisitObjectiveGoal(budgets []float64, policies []string, fresh, age, captured map[string]map[string]float64) map[string]any {
	out := map[string]any{"default": revisitDefaultPolicy}
	if !slices.Contains(policies, "nutch") || !slices.Contains(policies, revisitDefaultPolicy) {
		return out
	}
	all := true
	for _, b := range budgets {
		key := revisitKey(b)
		nf, na, nc := fresh[key]["nutch"], age[key]["nutch"], captured[key]["nutch"]
		df, da, dc := fresh[key][revisitDefaultPolicy], age[key][revisitDefaultPolicy], captured[key][revisitDefaultPolicy]
		fr, ar, cr := df/math.Max(nf, 1e-12), da/math.Max(na, 1e-12), dc/math.Max(nc, 1e-12)
		met := fr >= 1.07 && ar <= 1.0 && cr >= 1.0
		all = all && met
		// The Pareto front: policies no other policy beats on all three counts.
		var front []string
		for _, p := range policies {
			dominated := false
			for _, q := range policies {
				if q != p && fresh[key][q] >= fresh[key][p] && age[key][q] <= age[key][p] && captured[key][q] >= captured[key][p] &&
					(fresh[key][q] > fresh[key][p] || age[key][q] < age[key][p] || captured[key][q] > captured[key][p]) {
					dominated = true
					break
				}
			}
			if !dominated {
				front = append(front, p)
			}
		}
		fmt.Printf("budget %s: default (%s) %.3f× nutch freshness, %.3f× its age, %.3f× its changes captured — goal (≥ 1.07, ≤ 1.0, ≥ 1.0) %v\n",
			key, revisitDefaultPolicy, fr, ar, cr, met)
		fmt.Printf("  pareto front (freshness, age, captured): ")
		for i, p := range front {
			if i > 0 {
				fmt.Print("; ")
			}
			fmt.Printf("%s (%.3f×, %.3f×, %.3f×)", p, fresh[key][p]/math.Max(nf, 1e-12), age[key][p]/math.Max(na, 1e-12), captured[key][p]/math.Max(nc, 1e-12))
		}
		fmt.Printf("; nutch dominated: %v\n", !slices.Contains(front, "nutch"))
		out[key] = map[string]any{
			"fresh_vs_nutch":    revisitRound(fr, 3),
			"age_vs_nutch":      revisitRound(ar, 3),
			"captured_vs_nutch": revisitRound(cr, 3),
			"goal_met":          met,
			"pareto_front":      front,
		}
	}
	out["goal_met"] = all
	return out
}
