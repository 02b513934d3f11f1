package main

// The simulation's "ours_revisit_estimator" crawl: ours with each source's rate
// learned by the page revisit estimator instead of discover.Poller's count. The page
// revisit estimator could pace feeds and sitemaps too; discover.Poller
// counts the new URLs each poll brings instead. This variant measures the choice:
// everything else is ours (the same sources, the same poll budget split by the
// square-root rule, the same interval bounds), and the rate of each source is
// revisit.EstimateRate (Cho & Garcia-Molina's irregular-access estimator) over its
// last discEstimatorHistory polls, each one bit: new URLs or none. It has no "the
// document was all new" shortcut either, which is a count too.

import (
	"math"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// discEstimatorHistory is how many polls of a source the estimate looks back on: a
// window, the estimator's counterpart of the Poller's one-day half-life.
const discEstimatorHistory = 48

// discPoller is what the simulation asks of a poll scheduler.
type discPoller interface {
	SetBudget(perHour float64)
	Next(src string) time.Time
	Observe(src string, at time.Time, newItems int, full bool)
}

// estimatorPoller schedules sources from revisit.EstimateRate.
type estimatorPoller struct {
	budget   float64 // polls per hour over all sources
	min, max time.Duration
	srcs     map[string]*estimatorSource
	sumSqrt  float64
}

type estimatorSource struct {
	last   time.Time
	visits []revisit.Visit
	rate   float64 // per hour, cached at each Observe
}

func newEstimatorPoller(min, max time.Duration) *estimatorPoller {
	return &estimatorPoller{min: min, max: max, srcs: map[string]*estimatorSource{}}
}

// SetBudget sets the polls per hour split over the sources.
func (p *estimatorPoller) SetBudget(perHour float64) { p.budget = perHour }

// prior is a source's rate before its polls show one: the Poller's prior (one item
// per half the longest interval), so the two start alike.
func (p *estimatorPoller) prior() float64 { return 1 / (p.max.Hours() / 2) }

// Observe records one poll: changed when it brought any new URL.
func (p *estimatorPoller) Observe(src string, at time.Time, newItems int, _ bool) {
	s := p.srcs[src]
	if s == nil {
		// The first poll's URLs are the backlog, not a change.
		p.srcs[src] = &estimatorSource{last: at, rate: p.prior()}
		p.sumSqrt += math.Sqrt(p.prior())
		return
	}
	s.visits = append(s.visits, revisit.Visit{Interval: at.Sub(s.last), Changed: newItems > 0})
	if len(s.visits) > discEstimatorHistory {
		s.visits = s.visits[len(s.visits)-discEstimatorHistory:]
	}
	s.last = at
	old := s.rate
	s.rate = revisit.EstimateRate(s.visits) / 24 // changes per day -> per hour
	if s.rate <= 0 {
		// No change seen in the window: the estimator's floor would be years; the
		// longest interval bounds it anyway.
		s.rate = 1 / p.max.Hours() / 4
	}
	p.sumSqrt += math.Sqrt(s.rate) - math.Sqrt(old)
}

// Next is when src is due (the zero time before its first poll).
func (p *estimatorPoller) Next(src string) time.Time {
	s := p.srcs[src]
	if s == nil {
		return time.Time{}
	}
	// f_i = B √r_i / Σ √r_j, as discover.Poller with a budget.
	f := p.budget * math.Sqrt(s.rate) / math.Max(p.sumSqrt, 1e-9)
	d := time.Duration(float64(time.Hour) / math.Max(f, 1e-9))
	return s.last.Add(max(p.min, min(d, p.max)))
}

// countPoller is discover.Poller (ours) behind discPoller.
type countPoller struct{ p *discover.Poller }

func (c countPoller) SetBudget(perHour float64) { c.p.Budget = perHour }
func (c countPoller) Next(src string) time.Time { return c.p.Next(src) }
func (c countPoller) Observe(src string, at time.Time, newItems int, full bool) {
	c.p.Observe(src, at, newItems, full)
}
