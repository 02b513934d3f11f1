package discover

import (
	"fmt"
	"time"
)

// Trust learns, for one site, whether the dates in its sitemaps and feeds mean
// anything. Two kinds of evidence, both from what the crawl saw itself:
//
//   - Confirmation: a page refetched because its date moved (a hint) either changed
//     in its main text (SimHash beyond the revisit threshold) or did not. A site
//     whose hints are mostly followed by no change is lying (or touching lastmod on
//     every render); following its hints would spend the fetch budget on nothing.
//   - "Always now": most entries of a sitemap dated within a minute of the moment it
//     was served is a generated lastmod, not a change time.
//
// Evidence is kept over the last TrustWindow observations of each kind, so a site
// that fixes its sitemap earns trust back. Until there is enough evidence the site
// is trusted: hints are cheap to test and most sites' dates are honest.
type Trust struct {
	hints   ring // 1 = the hinted refetch changed
	nowLike ring // 1 = a document whose dates were mostly "now"
}

// Trust parameters.
const (
	// TrustWindow is how many recent observations of each kind are weighed.
	TrustWindow = 20
	// MinHintEvidence is how many hinted refetches are needed before judging.
	MinHintEvidence = 5
	// MinConfirmShare is the share of hinted refetches that must show a change.
	MinConfirmShare = 0.5
	// NowSlack is how close to the serving time a date must be to count as "now".
	NowSlack = time.Minute
)

type ring struct {
	v [TrustWindow]bool
	n int // observations so far (the last min(n, TrustWindow) count)
}

func (r *ring) add(b bool) { r.v[r.n%TrustWindow] = b; r.n++ }

func (r *ring) counts() (yes, total int) {
	total = min(r.n, TrustWindow)
	for i := 0; i < total; i++ {
		if r.v[i] {
			yes++
		}
	}
	return yes, total
}

// ObserveHint records what a refetch asked for by a moved date found: changed is
// the revisit verdict (SimHash) of that fetch.
func (t *Trust) ObserveHint(changed bool) { t.hints.add(changed) }

// ObserveDocument records the dates of one fetched sitemap or feed, served at
// servedAt (its Date header or our fetch time): a document where at least 90% of at
// least 5 dated entries sit within NowSlack of servedAt counts as "always now".
func (t *Trust) ObserveDocument(entries []Entry, servedAt time.Time) {
	dated, now := 0, 0
	for _, e := range entries {
		d := e.Latest()
		if d.IsZero() {
			continue
		}
		dated++
		if diff := servedAt.Sub(d); diff < NowSlack && diff > -NowSlack {
			now++
		}
	}
	if dated < 5 {
		return
	}
	t.nowLike.add(float64(now) >= 0.9*float64(dated))
}

// Trusted says whether the site's dates are followed, and why not when they are not
// (for the log and the Sites pane).
func (t *Trust) Trusted() (bool, string) {
	if y, n := t.nowLike.counts(); n >= 2 && 2*y > n {
		return false, fmt.Sprintf("dates are the serving time in %d of its last %d sitemaps/feeds", y, n)
	}
	if y, n := t.hints.counts(); n >= MinHintEvidence && float64(y) < MinConfirmShare*float64(n) {
		return false, fmt.Sprintf("only %d of its last %d date changes came with a content change", y, n)
	}
	return true, ""
}

// TrustState is a site's recent evidence, oldest first, kept across a restart so a
// site whose dates lied is not trusted afresh.
type TrustState struct {
	Hints   []bool `json:"hints,omitempty"`    // hinted refetches: changed or not
	NowLike []bool `json:"now_like,omitempty"` // documents: dated "now" or not
}

// State returns the evidence Trusted weighs.
func (t *Trust) State() TrustState {
	return TrustState{Hints: t.hints.list(), NowLike: t.nowLike.list()}
}

// Restore replaces the evidence with an earlier run's (its last TrustWindow of each
// kind).
func (t *Trust) Restore(s TrustState) {
	*t = Trust{}
	for _, b := range s.Hints[max(0, len(s.Hints)-TrustWindow):] {
		t.hints.add(b)
	}
	for _, b := range s.NowLike[max(0, len(s.NowLike)-TrustWindow):] {
		t.nowLike.add(b)
	}
}

// list is the observations that count, oldest first.
func (r *ring) list() []bool {
	total := min(r.n, TrustWindow)
	out := make([]bool, 0, total)
	for i := r.n - total; i < r.n; i++ {
		out = append(out, r.v[i%TrustWindow])
	}
	return out
}
