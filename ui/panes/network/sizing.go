package network

import (
	"strconv"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// sizingFormula is the sizing estimate's first line: seed 003's estimate shown to the
// operator (M3). The engine computes it (Snapshot.Sizing); the pane only shows it.
const sizingFormula = "VPNs needed ≈ ceil(keywords × pages/keyword ÷ pages per IP)"

// sizingFigures is the second line: the formula with its inputs ("?" for unknown
// ones), the engine's result when every input is known, and what is missing; long
// is the wide terminal's version with where each figure comes from. s nil: nothing
// is known.
func sizingFigures(s *view.Sizing, long bool) string {
	var z view.Sizing
	if s != nil {
		z = *s
	}
	floor := z.PagesPerIPFrom == view.PagesPerIPFloor
	q := func(n int) string {
		if n <= 0 {
			return "?"
		}
		return pane.Thousands(int64(n))
	}
	ip := q(z.PagesPerIP)
	if z.PagesPerIP > 0 {
		ip = "≈" + ip
		if floor {
			ip = "≥" + pane.Thousands(int64(z.PagesPerIP))
		}
	}
	out := "= ceil(" + q(z.Keywords) + " × " + q(z.PagesPerKeyword) + " ÷ " + ip + ")"
	var missing []string
	if z.Keywords <= 0 {
		missing = append(missing, "keywords")
	}
	if z.PagesPerKeyword <= 0 {
		missing = append(missing, "pages/keyword")
	}
	if z.PagesPerIP <= 0 {
		missing = append(missing, "pages per IP")
	}
	if z.VPNs > 0 {
		if floor {
			out += " ≤ " + strconv.Itoa(z.VPNs) // more pages per IP can only mean fewer VPNs
		} else {
			out += " = " + strconv.Itoa(z.VPNs)
		}
	} else {
		out += " = ?   unknown: " + joinWords(missing)
	}
	if long {
		if z.Keywords <= 0 || z.PagesPerKeyword <= 0 {
			out += " (not in the snapshot)"
		}
		switch z.PagesPerIPFrom {
		case view.PagesPerIPFloor:
			out += "; pages per IP ≥ the busiest egress's requests, none refused yet"
		case view.PagesPerIPObserved:
			out += "; pages per IP observed as requests per refusal"
		case view.PagesPerIPConfig:
			out += "; pages per IP from rounds.pages_per_ip"
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
