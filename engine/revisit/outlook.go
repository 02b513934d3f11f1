package revisit

import "math"

// Outlook is where a class's revisit schedule is heading: summed over the
// pages the estimator tracks, the freshness and age each page's posterior change
// rate and planned fetch frequency lead to (Freshness, Age: Cho & Garcia-Molina's
// expectations for a page refreshed regularly), and how many pages change far faster
// than they are fetched: what the budget gives up.
type Outlook struct {
	Pages  int     // tracked pages with an estimate
	Fresh  float64 // Σ expected freshness (share of time fresh)
	Age    float64 // Σ expected age, days
	Behind int     // pages whose rate is over FollowFactor × their fetch frequency
}

// MeanFresh is the expected share of the class's pages that are fresh at a time.
func (o Outlook) MeanFresh() float64 {
	if o.Pages <= 0 {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, o.Fresh/float64(o.Pages)))
}

// MeanAge is the expected age of a page of the class, in days (0 when fresh).
func (o Outlook) MeanAge() float64 {
	if o.Pages <= 0 {
		return math.NaN()
	}
	return math.Max(0, o.Age/float64(o.Pages))
}

// FollowFactor is how much faster than it is fetched a page must probably change to
// count as not followed: at λ/f = 10 a fetch catches one change in ten, and the copy
// is fresh a tenth of the time.
const FollowFactor = 10

// add counts (n = 1) or uncounts (n = -1) p's estimate; a page without one
// (Fresh < 0: restored from a store written before estimates were kept) is skipped.
func (o *Outlook) add(p *Page, n int) {
	if p.Fresh < 0 || math.IsNaN(p.Fresh) || math.IsNaN(p.Age) {
		return
	}
	o.Pages += n
	o.Fresh += float64(n) * p.Fresh
	o.Age += float64(n) * p.Age
	if p.Behind {
		o.Behind += n
	}
}

// outlookOf returns class's running outlook. Caller holds e.mu.
func (e *EstimatorPolicy) outlookOf(class string) *Outlook {
	o := e.outlook[class]
	if o == nil {
		o = &Outlook{}
		e.outlook[class] = o
	}
	return o
}

// foreseeLocked sets p's expected freshness and age at its planned frequency under
// its rate posterior, and whether it is probably followed, and counts them in its
// class's outlook. Caller holds e.mu.
func (e *EstimatorPolicy) foreseeLocked(p *Page, post *[rateGridN]float64) {
	f := p.Freq
	var fresh, age, behind float64
	for k, lambda := range rateGrid {
		w := post[k]
		if w < 1e-12 {
			continue
		}
		fresh += w * Freshness(lambda, f)
		if a := Age(lambda, f); !math.IsInf(a, 0) {
			age += w * a
		}
		if lambda > FollowFactor*f {
			behind += w
		}
	}
	p.Fresh, p.Age, p.Behind = fresh, age, behind > 0.5
	e.outlookOf(p.Class).add(p, 1)
}

// Outlook returns each class's outlook (a copy), for the console.
func (e *EstimatorPolicy) Outlook() map[string]Outlook {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]Outlook, len(e.outlook))
	for c, o := range e.outlook {
		if o.Pages > 0 {
			out[c] = *o
		}
	}
	return out
}
