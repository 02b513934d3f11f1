package ui

import (
	"strconv"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// sizing is seed 003's estimate shown to the operator (M3): VPNs needed ≈
// ceil(keywords × search pages per keyword ÷ pages one IP may fetch). Keywords and
// pages per keyword come from the declared sites (Snapshot.Sizing); pages per IP
// from rounds.pages_per_ip, else as observed: pages one IP fetched per refusal on
// this node's egresses. Missing inputs are named. A zero input is unknown.
type sizing struct {
	keywords        int  // keywords of the social sites (config); 0 unknown
	pagesPerKeyword int  // search result pages fetched per keyword (config); 0 unknown
	pagesPerIP      int  // pages one IP may fetch before it is refused; 0 unknown
	ipLowerBound    bool // pagesPerIP is a floor: no egress was refused yet
}

// observeSizing fills in what the Egress view shows: pages one IP may fetch ≈ the
// node's requests per refusal (each refusal ends a run of pages an IP was allowed);
// before any refusal, the busiest egress's requests are a lower bound.
func observeSizing(v *engine.EgressView) sizing {
	var s sizing
	if v == nil {
		return s
	}
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
		s.pagesPerIP = int(max(req/ref, 1))
	case most > 0:
		s.pagesPerIP, s.ipLowerBound = int(most), true
	}
	return s
}

// with takes the declared figures from the crawl's sites/keywords config (M3): the
// keywords searched and the result pages per keyword, and a configured per-IP quota
// over the observed one.
func (s sizing) with(c *engine.Sizing) sizing {
	if c == nil {
		return s
	}
	s.keywords, s.pagesPerKeyword = c.Keywords, c.PagesPerKeyword
	if c.PagesPerIP > 0 {
		s.pagesPerIP, s.ipLowerBound = c.PagesPerIP, false
	}
	return s
}

// formula is the estimate's first line.
func (s sizing) formula() string {
	return "VPNs needed ≈ ceil(keywords × pages/keyword ÷ pages per IP)"
}

// figures is the second line: the formula with its inputs ("?" for unknown ones),
// the result when every input is known, and what is missing; long is the wide
// terminal's version with where each figure comes from.
func (s sizing) figures(long bool) string {
	q := func(n int) string {
		if n <= 0 {
			return "?"
		}
		return thousands(int64(n))
	}
	ip := q(s.pagesPerIP)
	if s.pagesPerIP > 0 {
		ip = "≈" + ip
		if s.ipLowerBound {
			ip = "≥" + thousands(int64(s.pagesPerIP))
		}
	}
	out := "= ceil(" + q(s.keywords) + " × " + q(s.pagesPerKeyword) + " ÷ " + ip + ")"
	var missing []string
	if s.keywords <= 0 {
		missing = append(missing, "keywords")
	}
	if s.pagesPerKeyword <= 0 {
		missing = append(missing, "pages/keyword")
	}
	if s.pagesPerIP <= 0 {
		missing = append(missing, "pages per IP")
	}
	if n := egress.VPNsNeeded(s.keywords, s.pagesPerKeyword, s.pagesPerIP); n > 0 {
		if s.ipLowerBound {
			out += " ≤ " + strconv.Itoa(n) // more pages per IP can only mean fewer VPNs
		} else {
			out += " = " + strconv.Itoa(n)
		}
	} else {
		out += " = ?   unknown: " + joinWords(missing)
	}
	if long {
		if s.keywords <= 0 || s.pagesPerKeyword <= 0 {
			out += " (not in the snapshot)"
		}
		switch {
		case s.pagesPerIP > 0 && s.ipLowerBound:
			out += "; pages per IP ≥ the busiest egress's requests, none refused yet"
		case s.pagesPerIP > 0:
			out += "; pages per IP observed as requests per refusal"
		}
	}
	return out
}

// joinWords lists words as "a, b and c".
func joinWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	out := ws[0]
	for _, w := range ws[1 : len(ws)-1] {
		out += ", " + w
	}
	return out + " and " + ws[len(ws)-1]
}
