package view

import (
	"math"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// Sizing is seed 003's estimate for the operator (M3), with its inputs: VPNs needed ≈
// ceil(keywords × search pages per keyword ÷ pages one IP may fetch). The Egress pane
// shows it; --stats-json writes it as "sizing" when sites are declared.
type Sizing struct {
	Sites       int `json:"sites"`        // declared sites
	SocialSites int `json:"social_sites"` // of which social (searched per keyword)
	// Keywords counts the searches a round makes per result page: the keywords of
	// every social site, summed.
	Keywords int `json:"keywords"`
	// PagesPerKeyword is the most search result pages asked for per keyword.
	PagesPerKeyword int `json:"pages_per_keyword"`
	// PagesPerIP is how many pages one egress address may fetch per round:
	// rounds.pages_per_ip, else as observed (PagesPerIPFrom); 0 = unknown.
	PagesPerIP int `json:"pages_per_ip"`
	// PagesPerIPFrom says where PagesPerIP comes from; "" while it is unknown.
	PagesPerIPFrom PagesPerIPSource `json:"pages_per_ip_from,omitempty"`
	// VPNs is egress.VPNsNeeded of the above: 0 while an input is unknown, an upper
	// bound while PagesPerIP is a floor.
	VPNs int `json:"vpns_needed"`
	// Round is the current round's number (1 = the first), 0 without sites.
	Round int `json:"round"`

	// Seed 003's workers-needed estimate: one round's pages, each costing a lane its
	// access time (mean fetch time plus the mean pause between two requests) and a
	// share of a VPN connect (one per PagesPerIP pages), spread over workers of
	// LanesPerWorker lanes that must finish within ExpectTime:
	// Workers ≈ ceil(RoundPages × (AccessTime + VPNConnect ÷ PagesPerIP) ÷ (ExpectTime × LanesPerWorker)).
	RoundPages     int           `json:"round_pages"`      // pages fetched per round so far, on average
	AccessTime     time.Duration `json:"access_time"`      // seed's accesstime
	VPNConnect     time.Duration `json:"vpn_connect"`      // seed's vpnlinktime (rounds.vpn_connect)
	ExpectTime     time.Duration `json:"expect_time"`      // seed's expecttime (rounds.expect_time)
	LanesPerWorker int           `json:"lanes_per_worker"` // lanes.max
	Workers        int           `json:"workers_needed"`   // 0 while an input is unknown
}

// WorkersNeeded computes Workers from the other figures (0 while one is unknown).
func (s *Sizing) WorkersNeeded() int {
	if s.RoundPages <= 0 || s.AccessTime <= 0 || s.ExpectTime <= 0 || s.LanesPerWorker <= 0 {
		return 0
	}
	per := s.AccessTime.Seconds()
	if s.VPNConnect > 0 && s.PagesPerIP > 0 {
		per += s.VPNConnect.Seconds() / float64(s.PagesPerIP)
	}
	return max(int(math.Ceil(float64(s.RoundPages)*per/(s.ExpectTime.Seconds()*float64(s.LanesPerWorker)))), 1)
}

// PagesPerIPSource says where Sizing.PagesPerIP comes from.
type PagesPerIPSource string

// Sources of the pages-per-IP figure.
const (
	PagesPerIPConfig   PagesPerIPSource = "config"   // rounds.pages_per_ip
	PagesPerIPObserved PagesPerIPSource = "observed" // this node's requests per refusal
	PagesPerIPFloor    PagesPerIPSource = "floor"    // the busiest egress's requests, none refused yet
)

// Estimate completes s, declared figures filled in, from the egress view v (nil: no
// rotation) and computes VPNs. A PagesPerIP already set is rounds.pages_per_ip; else
// pages one IP may fetch ≈ this node's requests per refusal (each refusal ends a run
// of pages an IP was allowed), and before any refusal the busiest egress's requests
// are a floor. The engine fills every Snapshot's Sizing with it; stand-ins for the
// engine call it too.
func (s *Sizing) Estimate(v *EgressView) {
	switch {
	case s.PagesPerIP > 0:
		s.PagesPerIPFrom = PagesPerIPConfig
	case v != nil:
		var req, ref, most int64
		for _, r := range v.Egresses {
			if !r.OnNode {
				continue
			}
			req += r.Requests
			ref += r.Refusals
			most = max(most, r.Requests)
		}
		switch {
		case ref > 0:
			s.PagesPerIP, s.PagesPerIPFrom = int(max(req/ref, 1)), PagesPerIPObserved
		case most > 0:
			s.PagesPerIP, s.PagesPerIPFrom = int(most), PagesPerIPFloor
		}
	}
	s.VPNs = egress.VPNsNeeded(s.Keywords, s.PagesPerKeyword, s.PagesPerIP)
	s.Workers = s.WorkersNeeded()
}
