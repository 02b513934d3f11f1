// Package steer is live steering: seeds, sites, keywords, budgets and date windows change while
// the crawl runs — a breaking story needs a new keyword now, not after a restart.
//
// One Change value is one change; the console's ":" commands and `crawlconsole ctl`
// both parse the same words with Parse and hand the result to the engine's
// Control.Steer, so a script says exactly what an operator types. A Steerer makes
// each change over the Crawl port (what steering needs of the crawl: its site book,
// its store's meta table, its queue and budgets), keeps it in the store (meta key
// Meta) folded as the list grows (Log), and replays the list over the config at the
// next start.
package steer

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// Steering operations: the words of the command that makes the change.
const (
	SeedAdd    = "seed add"    // seed add URL
	SiteAdd    = "site add"    // site add news URL [KEYWORD...] | site add social NAME SEARCH-TEMPLATE [KEYWORD...]
	SiteRm     = "site rm"     // site rm NAME (what the site holds is kept)
	KeywordAdd = "keyword add" // keyword add SITE WORD...
	KeywordRm  = "keyword rm"  // keyword rm SITE WORD...
	Budget     = "budget"      // budget SITE N [round|total] | budget host HOST N [round|total] (0 = no cap)
	Window     = "window"      // window SITE DAYS: a news site's keyword results only from pages published in the last DAYS days (0 = no window)
)

// Budget spans: what a :budget counts its pages over (Change.Per).
const (
	BudgetRound = "round" // pages per round (the default)
	BudgetTotal = "total" // pages over the whole crawl, earlier runs included
)

// budgetHostWord introduces a host's budget: "budget host HOST N". A site named
// "host" still has its own: "budget host N" (the count follows the name).
const budgetHostWord = "host"

// Usage lists the steering commands as typed, for help and usage errors.
var Usage = []string{
	"seed add URL",
	"site add news URL [KEYWORD...]",
	"site add social NAME SEARCH-TEMPLATE [KEYWORD...]",
	"site rm NAME",
	"keyword add SITE WORD...",
	"keyword rm SITE WORD...",
	"budget SITE N [round|total]",
	"budget host HOST N [round|total]",
	"window SITE DAYS",
}

// Change is one live steering change.
type Change struct {
	Op       string    `json:"op"`                 // one of the operations above
	URL      string    `json:"url,omitempty"`      // seed add; a news site's entry
	Site     string    `json:"site,omitempty"`     // the site's name (social add, rm, keyword, a site's budget)
	Host     string    `json:"host,omitempty"`     // budget host: the host it caps
	Kind     string    `json:"kind,omitempty"`     // site add: news or social
	Search   string    `json:"search,omitempty"`   // site add social: the search URL template
	Keywords []string  `json:"keywords,omitempty"` // site add: its keywords; keyword add/rm: the one keyword
	N        int       `json:"n,omitempty"`        // budget: pages (0 = no cap); window: days (0 = no window)
	Per      string    `json:"per,omitempty"`      // budget: BudgetRound ("" reads as round) or BudgetTotal
	At       time.Time `json:"at,omitzero"`        // when it was made (kept with it in the store)
}

// String gives the change back as the command that makes it.
func (s Change) String() string {
	w := []string{s.Op}
	switch s.Op {
	case SeedAdd:
		w = append(w, s.URL)
	case SiteAdd:
		w = append(w, s.Kind)
		if s.Kind == config.SiteSocial {
			w = append(w, s.Site, s.Search)
		} else {
			w = append(w, s.URL)
		}
		w = append(w, s.Keywords...)
	case SiteRm:
		w = append(w, s.Site)
	case KeywordAdd, KeywordRm:
		w = append(w, s.Site)
		w = append(w, s.Keywords...)
	case Budget:
		if s.Host != "" {
			w = append(w, budgetHostWord, s.Host)
		} else {
			w = append(w, s.Site)
		}
		w = append(w, strconv.Itoa(s.N))
		if s.Per == BudgetTotal {
			w = append(w, BudgetTotal)
		}
	case Window:
		w = append(w, s.Site, strconv.Itoa(s.N))
	}
	return strings.Join(w, " ")
}

// Parse reads a steering command given as words ("site", "add", "news", URL,
// ...): the words after ":" in the console, or after `crawlconsole ctl`. The error
// names what was wrong and shows the form expected.
func Parse(words []string) (Change, error) {
	if len(words) == 0 {
		return Change{}, fmt.Errorf("no steering command (one of: %s)", strings.Join(Usage, " | "))
	}
	usage := func(form string) error { return fmt.Errorf("usage: %s", form) }
	op := words[0]
	rest := words[1:]
	if op != Budget && op != Window {
		if len(words) < 2 {
			return Change{}, fmt.Errorf("unknown steering command %q (one of: %s)", op, strings.Join(Usage, " | "))
		}
		op, rest = words[0]+" "+words[1], words[2:]
	}
	switch op {
	case SeedAdd:
		if len(rest) != 1 {
			return Change{}, usage(Usage[0])
		}
		return Change{Op: op, URL: rest[0]}, nil
	case SiteAdd:
		if len(rest) == 0 {
			return Change{}, usage(Usage[1] + " | " + Usage[2])
		}
		switch rest[0] {
		case config.SiteNews:
			if len(rest) < 2 {
				return Change{}, usage(Usage[1])
			}
			return Change{Op: op, Kind: config.SiteNews, URL: rest[1], Keywords: rest[2:]}, nil
		case config.SiteSocial:
			if len(rest) < 3 {
				return Change{}, usage(Usage[2])
			}
			return Change{Op: op, Kind: config.SiteSocial, Site: rest[1], Search: rest[2], Keywords: rest[3:]}, nil
		}
		return Change{}, fmt.Errorf("site kind must be %q or %q, got %q", config.SiteNews, config.SiteSocial, rest[0])
	case SiteRm:
		if len(rest) != 1 {
			return Change{}, usage(Usage[3])
		}
		return Change{Op: op, Site: rest[0]}, nil
	case KeywordAdd, KeywordRm:
		if len(rest) < 2 {
			if op == KeywordAdd {
				return Change{}, usage(Usage[4])
			}
			return Change{}, usage(Usage[5])
		}
		// The words after the site are one keyword: "storm surge" is typed unquoted.
		return Change{Op: op, Site: rest[0], Keywords: []string{strings.Join(rest[1:], " ")}}, nil
	case Budget:
		return parseBudget(rest)
	case Window:
		if len(rest) != 2 {
			return Change{}, usage(Usage[8])
		}
		n, err := strconv.Atoi(rest[1])
		if err != nil || n < 0 {
			return Change{}, fmt.Errorf("window: %q is not a number of days (a whole number >= 0; 0 removes the window); usage: %s", rest[1], Usage[8])
		}
		return Change{Op: op, Site: rest[0], N: n}, nil
	}
	return Change{}, fmt.Errorf("unknown steering command %q (one of: %s)", op, strings.Join(Usage, " | "))
}

// parseBudget reads the words after "budget": SITE N [round|total], or host HOST N
// [round|total]. "host N [round|total]" is the budget of a site named host; any
// other words after "host" name a host.
func parseBudget(rest []string) (Change, error) {
	s := Change{Op: Budget}
	form := Usage[6]
	siteHost := len(rest) >= 2 && isCount(rest[1]) && (len(rest) == 2 || len(rest) == 3 && (rest[2] == BudgetRound || rest[2] == BudgetTotal))
	switch {
	case len(rest) >= 2 && rest[0] == budgetHostWord && !siteHost:
		host, err := BudgetHost(rest[1])
		if err != nil {
			return Change{}, err
		}
		s.Host, rest, form = host, rest[2:], Usage[7]
		if len(rest) == 0 {
			return Change{}, fmt.Errorf("budget host %s: the page count is missing; usage: %s", host, form)
		}
	case len(rest) >= 1:
		s.Site, rest = rest[0], rest[1:]
	}
	if len(rest) < 1 || len(rest) > 2 {
		return Change{}, fmt.Errorf("usage: %s | %s", Usage[6], Usage[7])
	}
	n, err := strconv.Atoi(rest[0])
	if err != nil || n < 0 {
		return Change{}, fmt.Errorf("budget: %q is not a page count (a whole number >= 0; 0 removes the cap); usage: %s", rest[0], form)
	}
	s.N = n
	if len(rest) == 2 {
		switch rest[1] {
		case BudgetRound:
		case BudgetTotal:
			s.Per = BudgetTotal
		default:
			return Change{}, fmt.Errorf("budget: %q after the count must be %q (pages per round, the default) or %q (pages over the whole crawl); usage: %s", rest[1], BudgetRound, BudgetTotal, form)
		}
	}
	return s, nil
}

func isCount(w string) bool {
	_, err := strconv.Atoi(w)
	return err == nil
}

// BudgetHost checks a host name given to "budget host": budgets count a host's pages
// whatever the port or scheme (frontier.Task.Host), so a URL or a port is refused
// rather than silently cut.
func BudgetHost(h string) (string, error) {
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
