package view

import "time"

// SitesView is the Sites pane's data: the declared sites as steered, with
// what each has given the crawl.
type SitesView struct {
	Sites []SiteRow
	Round int           // rounds started
	Every time.Duration // round period (rounds.every)
}

// SiteRow is one declared site in the Sites pane.
type SiteRow struct {
	Name     string
	Kind     string // news or social
	Class    string // page class of its pages (M2/M3)
	Entry    string // a news site's entry URL, a social site's search template
	Keywords []string
	// Feeds and Sitemaps are the feeds and sitemaps discovery found for the site
	// (Snapshot.Discovery, by the site's name).
	Feeds    []string
	Sitemaps []string
	// Covered is those of them another covers, each with the one covering it
	// (SiteDiscovery.Covered): read at the longest poll interval only.
	Covered map[string]string
	// Problems is, per feed or sitemap of the site whose last read yielded
	// nothing, why (SiteDiscovery.Problems).
	Problems map[string]string
	// DatesTrusted says whether the site's lastmod/pubDate hints are believed
	// ("yes", "no"); "" while discovery has nothing on the site.
	DatesTrusted string

	Stored    int64     // pages stored (all runs)
	NewHour   int       // pages first stored in the last hour (this run)
	NewDay    int       // ... in the last day
	LastRound time.Time // last time one of its entry/search pages was stored
	// PublishDelay is the median time from a page's publish time (its
	// article:published_time or datePublished) to its storing, over its last
	// pages that had one; 0 when none did.
	PublishDelay time.Duration
	// WithinDays is a news site's date window (sites[].within_days, :window): its
	// keyword results come only from pages published in the last WithinDays days;
	// 0: none. OutOfWindow counts its pages that held a keyword but were older
	// (this run): stored, not results.
	WithinDays  int
	OutOfWindow int64
	BudgetUsed  int   // pages handed to lanes this round
	Budget      int   // page budget per round (0 = no cap)
	Held        int64 // URLs held back by a budget or trap guard (this run)
	// TotalUsed and BudgetTotal are the pages handed to lanes over the whole crawl
	// (counted while a total budget is set) and its page budget in total (0 = no cap).
	TotalUsed, BudgetTotal int
	// Waits says why the site's URLs wait on its robots.txt: "robots → HOST held"
	// (it redirects to a host the operator holds), "robots.txt unreachable"; ""
	// when they do not.
	Waits string
	// WaitsBehind is the host the operator holds that its robots.txt redirects to
	// ("" when it waits on none): the held host Waits names.
	WaitsBehind string
}

// SiteDiscovery is one site's feeds and sitemaps as the Sites pane shows them.
type SiteDiscovery struct {
	Site     string
	Feeds    []string
	Sitemaps []string
	Found    int64 // URLs its feeds and sitemaps announced (every read counted)
	// DatesTrusted says whether its lastmod/pubDate hints are followed; Why says
	// why not.
	DatesTrusted bool
	Why          string
	Hints        int64          // date moves that made a stored page due
	Ignored      int64          // date moves ignored as untrusted
	Warnings     map[string]int // problems in its documents, by kind
	// Covered is its sources that another of its sources covers (discover.Coverage:
	// nothing they list comes later there), each with the one covering it. They are
	// read at the longest poll interval only.
	Covered map[string]string
	// Problems is, per document of the site whose last read yielded nothing, why
	// (refused for its content, unreadable, no URLs, every URL off its host).
	Problems map[string]string
}
