package engine

import (
	"encoding/json"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// The estimator policy's site priors (revisit.SitePriorKeeper: what each site's new
// pages showed at their first refetch, which plans the first revisit of its next new
// pages) are kept in the store's meta table under sitePriorsMetaKey, so that a
// restarted crawl does not refetch each site's first new pages blind after
// revisit.initial again. Written at stop and, while they change, at most every
// sitePriorsSaveEvery (a few hundred bytes a site, at most revisit's 20,000 sites);
// read at start, after the stored pages' budget shares.

const sitePriorsMetaKey = "revisit.sites.v1"

// sitePriorsSaveEvery is how often the priors are written while the crawl runs, at
// most: a crash loses no more than this much of what the sites showed.
const sitePriorsSaveEvery = 5 * time.Minute

// sitePriors returns the policy's keeper, or nil (the seed rule keeps none).
func (rv *revisitRuntime) sitePriors() revisit.SitePriorKeeper {
	k, _ := rv.tracker.Policy().(revisit.SitePriorKeeper)
	return k
}

// loadSitePriors takes back an earlier run's site priors. A damaged document is
// reported and the sites are learned afresh; nothing else depends on it.
func (e *Engine) loadSitePriors() {
	k := e.rv.sitePriors()
	if k == nil {
		return
	}
	b, err := e.st.GetMeta(sitePriorsMetaKey)
	if err != nil || len(b) == 0 {
		return
	}
	var plans map[string][]revisit.SitePriorState
	if err := json.Unmarshal(b, &plans); err != nil {
		e.logf(LevelWarn, 0, "", "revisit: site priors of an earlier run unreadable (%v): new pages of every site get revisit.initial until their site shows again", err)
		return
	}
	if n := k.ImportSitePriors(plans); n > 0 {
		e.logf(LevelWarn, 0, "", "revisit: %d sites' priors unusable, learned afresh", n)
	}
	e.rv.sitesSaved = k.SitePriorsVersion()
}

// saveSitePriors writes the site priors when they changed since the last write.
func (e *Engine) saveSitePriors(now time.Time) {
	k := e.rv.sitePriors()
	if k == nil || e.st == nil {
		return
	}
	v := k.SitePriorsVersion()
	if v == e.rv.sitesSaved {
		return
	}
	b, err := json.Marshal(k.ExportSitePriors())
	if err != nil {
		return
	}
	e.st.SetMeta(sitePriorsMetaKey, b)
	e.rv.sitesSaved, e.rv.sitesSavedAt = v, now
}

// keepSitePriors writes them at most every sitePriorsSaveEvery (from the engine's
// one-second tick).
func (e *Engine) keepSitePriors(now time.Time) {
	if e.st == nil || now.Sub(e.rv.sitesSavedAt) < sitePriorsSaveEvery {
		return
	}
	e.saveSitePriors(now)
}
