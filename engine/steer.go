package engine

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Live steering: seeds, sites, keywords and budgets change while the
// crawl runs — a breaking story needs a new keyword now, not after a restart. One
// Steer value is one change; the console's ":" commands and `crawlconsole ctl` both
// parse the same words with ParseSteer and hand the result to Control.Steer, so a
// script says exactly what an operator types. Changes are kept in the store (meta
// key SteeringMeta) and replayed over the config at the next start.

// Steering operations: the words of the command that makes the change.
const (
	SteerSeedAdd    = "seed add"    // seed add URL
	SteerSiteAdd    = "site add"    // site add news URL [KEYWORD...] | site add social NAME SEARCH-TEMPLATE [KEYWORD...]
	SteerSiteRm     = "site rm"     // site rm NAME (what the site holds is kept)
	SteerKeywordAdd = "keyword add" // keyword add SITE WORD...
	SteerKeywordRm  = "keyword rm"  // keyword rm SITE WORD...
	SteerBudget     = "budget"      // budget SITE N [round|total] | budget host HOST N [round|total] (0 = no cap)
)

// Budget spans: what a :budget counts its pages over (Steer.Per).
const (
	BudgetRound = "round" // pages per round (the default)
	BudgetTotal = "total" // pages over the whole crawl, earlier runs included
)

// budgetHostWord introduces a host's budget: "budget host HOST N". A site named
// "host" still has its own: "budget host N" (the count follows the name).
const budgetHostWord = "host"

// SteerUsage lists the steering commands as typed, for help and usage errors.
var SteerUsage = []string{
	"seed add URL",
	"site add news URL [KEYWORD...]",
	"site add social NAME SEARCH-TEMPLATE [KEYWORD...]",
	"site rm NAME",
	"keyword add SITE WORD...",
	"keyword rm SITE WORD...",
	"budget SITE N [round|total]",
	"budget host HOST N [round|total]",
}

// Steer is one live steering change.
type Steer struct {
	Op       string    `json:"op"`                 // one of the Steer* operations
	URL      string    `json:"url,omitempty"`      // seed add; a news site's entry
	Site     string    `json:"site,omitempty"`     // the site's name (social add, rm, keyword, a site's budget)
	Host     string    `json:"host,omitempty"`     // budget host: the host it caps
	Kind     string    `json:"kind,omitempty"`     // site add: news or social
	Search   string    `json:"search,omitempty"`   // site add social: the search URL template
	Keywords []string  `json:"keywords,omitempty"` // site add: its keywords; keyword add/rm: the one keyword
	N        int       `json:"n,omitempty"`        // budget: pages (0 = no cap)
	Per      string    `json:"per,omitempty"`      // budget: BudgetRound ("" reads as round) or BudgetTotal
	At       time.Time `json:"at,omitzero"`        // when it was made (kept with it in the store)
}

// String gives the change back as the command that makes it.
func (s Steer) String() string {
	w := []string{s.Op}
	switch s.Op {
	case SteerSeedAdd:
		w = append(w, s.URL)
	case SteerSiteAdd:
		w = append(w, s.Kind)
		if s.Kind == SiteSocial {
			w = append(w, s.Site, s.Search)
		} else {
			w = append(w, s.URL)
		}
		w = append(w, s.Keywords...)
	case SteerSiteRm:
		w = append(w, s.Site)
	case SteerKeywordAdd, SteerKeywordRm:
		w = append(w, s.Site)
		w = append(w, s.Keywords...)
	case SteerBudget:
		if s.Host != "" {
			w = append(w, budgetHostWord, s.Host)
		} else {
			w = append(w, s.Site)
		}
		w = append(w, strconv.Itoa(s.N))
		if s.Per == BudgetTotal {
			w = append(w, BudgetTotal)
		}
	}
	return strings.Join(w, " ")
}

// ParseSteer reads a steering command given as words ("site", "add", "news", URL,
// ...): the words after ":" in the console, or after `crawlconsole ctl`. The error
// names what was wrong and shows the form expected.
func ParseSteer(words []string) (Steer, error) {
	if len(words) == 0 {
		return Steer{}, fmt.Errorf("no steering command (one of: %s)", strings.Join(SteerUsage, " | "))
	}
	usage := func(form string) error { return fmt.Errorf("usage: %s", form) }
	op := words[0]
	rest := words[1:]
	if op != SteerBudget {
		if len(words) < 2 {
			return Steer{}, fmt.Errorf("unknown steering command %q (one of: %s)", op, strings.Join(SteerUsage, " | "))
		}
		op, rest = words[0]+" "+words[1], words[2:]
	}
	switch op {
	case SteerSeedAdd:
		if len(rest) != 1 {
			return Steer{}, usage(SteerUsage[0])
		}
		return Steer{Op: op, URL: rest[0]}, nil
	case SteerSiteAdd:
		if len(rest) == 0 {
			return Steer{}, usage(SteerUsage[1] + " | " + SteerUsage[2])
		}
		switch rest[0] {
		case SiteNews:
			if len(rest) < 2 {
				return Steer{}, usage(SteerUsage[1])
			}
			return Steer{Op: op, Kind: SiteNews, URL: rest[1], Keywords: rest[2:]}, nil
		case SiteSocial:
			if len(rest) < 3 {
				return Steer{}, usage(SteerUsage[2])
			}
			return Steer{Op: op, Kind: SiteSocial, Site: rest[1], Search: rest[2], Keywords: rest[3:]}, nil
		}
		return Steer{}, fmt.Errorf("site kind must be %q or %q, got %q", SiteNews, SiteSocial, rest[0])
	case SteerSiteRm:
		if len(rest) != 1 {
			return Steer{}, usage(SteerUsage[3])
		}
		return Steer{Op: op, Site: rest[0]}, nil
	case SteerKeywordAdd, SteerKeywordRm:
		if len(rest) < 2 {
			if op == SteerKeywordAdd {
				return Steer{}, usage(SteerUsage[4])
			}
			return Steer{}, usage(SteerUsage[5])
		}
		// The words after the site are one keyword: "storm surge" is typed unquoted.
		return Steer{Op: op, Site: rest[0], Keywords: []string{strings.Join(rest[1:], " ")}}, nil
	case SteerBudget:
		return parseBudget(rest)
	}
	return Steer{}, fmt.Errorf("unknown steering command %q (one of: %s)", op, strings.Join(SteerUsage, " | "))
}

// parseBudget reads the words after "budget": SITE N [round|total], or host HOST N
// [round|total]. "host N [round|total]" is the budget of a site named host; any
// other words after "host" name a host.
func parseBudget(rest []string) (Steer, error) {
	s := Steer{Op: SteerBudget}
	form := SteerUsage[6]
	siteHost := len(rest) >= 2 && isCount(rest[1]) && (len(rest) == 2 || len(rest) == 3 && (rest[2] == BudgetRound || rest[2] == BudgetTotal))
	switch {
	case len(rest) >= 2 && rest[0] == budgetHostWord && !siteHost:
		host, err := budgetHost(rest[1])
		if err != nil {
			return Steer{}, err
		}
		s.Host, rest, form = host, rest[2:], SteerUsage[7]
		if len(rest) == 0 {
			return Steer{}, fmt.Errorf("budget host %s: the page count is missing; usage: %s", host, form)
		}
	case len(rest) >= 1:
		s.Site, rest = rest[0], rest[1:]
	}
	if len(rest) < 1 || len(rest) > 2 {
		return Steer{}, fmt.Errorf("usage: %s | %s", SteerUsage[6], SteerUsage[7])
	}
	n, err := strconv.Atoi(rest[0])
	if err != nil || n < 0 {
		return Steer{}, fmt.Errorf("budget: %q is not a page count (a whole number >= 0; 0 removes the cap); usage: %s", rest[0], form)
	}
	s.N = n
	if len(rest) == 2 {
		switch rest[1] {
		case BudgetRound:
		case BudgetTotal:
			s.Per = BudgetTotal
		default:
			return Steer{}, fmt.Errorf("budget: %q after the count must be %q (pages per round, the default) or %q (pages over the whole crawl); usage: %s", rest[1], BudgetRound, BudgetTotal, form)
		}
	}
	return s, nil
}

func isCount(w string) bool {
	_, err := strconv.Atoi(w)
	return err == nil
}

// budgetHost checks a host name given to "budget host": budgets count a host's pages
// whatever the port or scheme (frontier.Task.Host), so a URL or a port is refused
// rather than silently cut.
func budgetHost(h string) (string, error) {
	if strings.Contains(h, "/") {
		return "", fmt.Errorf("budget host: %q is a URL; give the host name alone (e.g. www.example.com)", h)
	}
	if _, port, err := net.SplitHostPort(h); err == nil {
		return "", fmt.Errorf("budget host: %q has a port (%s); give the host name alone: a host's budget counts all its ports", h, port)
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if h == "" || strings.ContainsAny(h, " @?#") {
		return "", fmt.Errorf("budget host: %q is not a host name (e.g. www.example.com or 127.0.0.1)", h)
	}
	return h, nil
}

// errSteerWorker is a worker's answer: its master owns the sites and the store.
var errSteerWorker = errors.New("steering changes are made on the master of a distributed crawl (crawlconsole ctl --attach URL ...)")
