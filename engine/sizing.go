package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// sizing computes the estimate from the site config, the round state and the egress
// view v (nil: no rotation); nil when there are neither declared sites nor rotation.
// e.mu not held.
func (e *Engine) sizing(v *view.EgressView) *view.Sizing {
	book := e.sites.Load() // the sites as steered (live steering adds and removes some)
	if len(book.Sites()) == 0 && v == nil {
		return nil
	}
	s := &view.Sizing{Sites: len(book.Sites()), PagesPerIP: e.opts.Rounds.PagesPerIP}
	for i := range book.Sites() {
		site := &book.Sites()[i]
		if site.Kind != config.SiteSocial {
			continue
		}
		s.SocialSites++
		s.Keywords += len(book.Keywords(site.Name))
		s.PagesPerKeyword = max(s.PagesPerKeyword, site.SearchPages())
	}
	if s.Sites > 0 {
		s.Round = e.fr.Rounds.Round()
		s.RoundPages = int(e.c.PagesFetched.Load() / int64(max(s.Round, 1)))
		if f := e.fetchCost.Mean(); f > 0 {
			s.AccessTime = f + (e.opts.Lanes.DelayMin+e.opts.Lanes.DelayMax)/2
		}
		s.VPNConnect, s.ExpectTime = e.opts.Rounds.VPNConnect, e.opts.Rounds.ExpectTime
		if s.ExpectTime <= 0 {
			s.ExpectTime = e.opts.Rounds.Every
		}
		e.mu.Lock()
		s.LanesPerWorker = e.crew.LanesMax() // the operator may have changed it since the start
		e.mu.Unlock()
	}
	s.Estimate(v)
	return s
}
