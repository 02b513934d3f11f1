package refresh

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// The estimator policy's site priors (revisit.SitePriorKeeper: what each site's new
// pages showed at their first refetch, which plans the first revisit of its next new
// pages) are kept in the store's meta table under SitePriorsMeta, so that a
// restarted crawl does not refetch each site's first new pages blind after
// revisit.initial again. Written at stop and, while the sites' evidence changes, at
// most every sitePriorsSaveEvery (about 260 bytes a site, at most 20,000 sites a
// plan); read when the engine is built. Each site's record is read on its own, so a
// damaged one costs that site only.

// SitePriorsMeta is the store meta key holding the site priors.
const SitePriorsMeta = "revisit.sites.v1"

// sitePriorsSaveEvery is how often the priors are written while the crawl runs, at
// most: a crash loses no more than this much of what the sites showed.
const sitePriorsSaveEvery = 5 * time.Minute

// sitePriors returns the policy's keeper, or nil (the seed rule keeps none).
func (r *Runtime) sitePriors() revisit.SitePriorKeeper {
	k, _ := r.Tracker.Policy().(revisit.SitePriorKeeper)
	return k
}

// LoadSitePriors takes back an earlier run's site priors. A damaged record is
// reported and that site learned afresh; a store that cannot be read is reported and
// the priors are then not written either (the unreadable ones may be sound).
func (r *Runtime) LoadSitePriors() {
	k := r.sitePriors()
	if k == nil {
		return
	}
	b, err := r.st.GetMeta(SitePriorsMeta)
	if errors.Is(err, store.ErrNotFound) || (err == nil && len(b) == 0) {
		return
	}
	if err != nil {
		r.sitesReadOnly = true
		r.logf(view.LevelWarn, "revisit: site priors of an earlier run unreadable (%v): new pages of every site get revisit.initial until their site shows again; they are not overwritten", err)
		return
	}
	var raw map[string][]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		r.logf(view.LevelWarn, "revisit: site priors of an earlier run unreadable (%v): new pages of every site get revisit.initial until their site shows again", err)
		return
	}
	plans := make(map[string][]revisit.SitePriorState, len(raw))
	bad := 0
	for class, recs := range raw {
		for _, r := range recs {
			var st revisit.SitePriorState
			if json.Unmarshal(r, &st) != nil {
				bad++
				continue
			}
			plans[class] = append(plans[class], st)
		}
	}
	if n := bad + k.ImportSitePriors(plans); n > 0 {
		r.logf(view.LevelWarn, "revisit: %d sites' priors unusable, learned afresh", n)
	}
	r.sitesSaved = k.SitePriorsVersion()
}

// SaveSitePriors writes the site priors when they changed since the last write.
func (r *Runtime) SaveSitePriors(now time.Time) {
	k := r.sitePriors()
	if k == nil || r.st == nil {
		return
	}
	v := k.SitePriorsVersion()
	if v == r.sitesSaved || r.sitesReadOnly {
		return
	}
	r.sitesSaved, r.sitesSavedAt = v, now // a failure is not retried every second
	b, err := json.Marshal(k.ExportSitePriors())
	if err != nil {
		r.logf(view.LevelWarn, "revisit: site priors not kept: %v", err)
		return
	}
	r.st.SetMeta(SitePriorsMeta, b)
}

// KeepSitePriors writes them at most every sitePriorsSaveEvery (from the engine's
// one-second tick).
func (r *Runtime) KeepSitePriors(now time.Time) {
	if r.st == nil || now.Sub(r.sitesSavedAt) < sitePriorsSaveEvery {
		return
	}
	r.SaveSitePriors(now)
}
