package engine

import "github.com/crawlconsole/crawlconsole/engine/egress"

// Sizing is what the Egress pane needs for the operator's sizing estimate (M3): VPNs
// needed ≈ ceil(keywords × search pages per keyword / pages one IP may fetch).
type Sizing struct {
	Sites       int // declared sites
	SocialSites int // of which social (searched per keyword)
	// Keywords counts the searches a round makes per result page: the keywords of
	// every social site, summed.
	Keywords int
	// PagesPerKeyword is the most search result pages asked for per keyword.
	PagesPerKeyword int
	// PagesPerIP is how many pages one egress address may fetch per round
	// (rounds.pages_per_ip); 0 = unknown.
	PagesPerIP int
	// VPNs is egress.VPNsNeeded of the above; 0 when PagesPerIP is unknown.
	VPNs int
	// Round is the current round's number (1 = the first), 0 without sites.
	Round int
}

// sizing computes the sizing inputs from the site config and the round state.
func (e *Engine) sizing() *Sizing {
	if len(e.opts.Sites) == 0 {
		return nil
	}
	s := &Sizing{Sites: len(e.opts.Sites), PagesPerIP: e.opts.Rounds.PagesPerIP}
	for i := range e.opts.Sites {
		site := &e.opts.Sites[i]
		if site.Kind != SiteSocial {
			continue
		}
		s.SocialSites++
		s.Keywords += len(e.sites.keywords[site.Name])
		s.PagesPerKeyword = max(s.PagesPerKeyword, site.searchPages())
	}
	s.VPNs = egress.VPNsNeeded(s.Keywords, s.PagesPerKeyword, s.PagesPerIP)
	e.round.mu.Lock()
	s.Round = e.round.n
	e.round.mu.Unlock()
	return s
}
