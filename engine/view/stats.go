package view

import (
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Stats is the object --stats-json writes at exit (its field names are the command line's contract).
type Stats struct {
	// State is how the crawl ended: DONE (ran dry), STOPPED (stopped with URLs
	// left), FAILED (the store failed); while it runs, the console header's state.
	State        State            `json:"state"`
	PagesFetched int64            `json:"pages_fetched"`
	PagesStored  int64            `json:"pages_stored"`
	BytesFetched int64            `json:"bytes_fetched"`
	Refused      int64            `json:"refused"`
	Errors       map[string]int64 `json:"errors"`  // failures by kind; skips are apart
	Skipped      map[string]int64 `json:"skipped"` // URLs (scope: links) skipped by choice, by kind (front.SkipKinds)
	// Warnings are discovery's document warnings by kind (discovery_*): a feed's
	// malformed XML, invalid dates; no URL failed by them.
	Warnings map[string]int64 `json:"warnings,omitempty"`
	// Examples are the first URLs of this run that ended with each error or skip kind
	// (at most ExampleURLs a kind), so a summary can name what failed, not only count it.
	Examples    map[string][]string `json:"examples,omitempty"`
	StatusClass map[string]int64    `json:"status_classes"` // pages_fetched by status class: 2xx, 3xx, ...
	URLsQueued  int64               `json:"urls_queued"`
	URLsDone    int64               `json:"urls_done"`
	LanesPeak   int                 `json:"lanes_peak"`
	DurationS   float64             `json:"duration_s"`
	PagesPerS   float64             `json:"pages_per_s"`
	RobotsSkips int64               `json:"robots_disallowed"`
	Resumed     int                 `json:"resumed_in_progress"`
	Deferred    int64               `json:"deferred"` // URLs set aside (a disabled host, robots.txt not answering, a budget), not lost
	// RobotsWaiting are the URLs waiting for their site's robots.txt (each counted
	// once under errors' robots_unreachable); absent when none was set aside so.
	RobotsWaiting *RobotsWaiting `json:"robots_waiting,omitempty"`
	DNS           *DNSStats      `json:"dns,omitempty"`
	Egress        *EgressStats   `json:"egress,omitempty"`
	Cookies       *CookieStats   `json:"cookies,omitempty"` // nil with cookies off
	Revisit       *RevisitStats  `json:"revisit,omitempty"`
	Dedupe        *DedupeStats   `json:"dedupe,omitempty"`
	Cluster       *ClusterStats  `json:"cluster,omitempty"` // M4: a master's workers
	Sizing        *Sizing        `json:"sizing,omitempty"`  // M3: the VPN estimate, when sites are declared

	// StoreError is the write error that stopped the crawl (disk full, I/O error);
	// absent when the store never failed. The counters count only what was committed.
	StoreError string `json:"store_error,omitempty"`

	ConfirmFetches int64 `json:"confirm_fetches"` // refetches that confirmed or cleared a soft refusal
}

// ClusterStats is a master's side of a distributed crawl in the stats object.
type ClusterStats struct {
	Nodes       map[string]NodeStats `json:"nodes"`
	LateResults int64                `json:"late_results"` // results dropped as already committed (at least once delivery)
	// Reclaimed counts hand-outs the master took back from live workers that held
	// none of them for a lease (a hand-out lost between master and worker).
	Reclaimed int64 `json:"reclaimed"`
	// Doubled counts queued tasks the master dropped unhanded because their URL
	// was handed out already and not reported: 0 unless a path queues a URL in
	// flight (each would have been fetched twice).
	Doubled  int64            `json:"doubled,omitempty"`
	Rejected map[string]int64 `json:"rejected"` // malformed or oversize messages, by reason
}

// NodeStats is one worker in the stats object.
type NodeStats struct {
	State   NodeState `json:"state"`
	Results int64     `json:"results"`
	Late    int64     `json:"late"`
	Hosts   int       `json:"hosts"`
}

// DedupeStats is M4's link filter in the stats object: the filter's own counters and
// sizing, and how the store settled the URLs the Bloom filter claimed.
type DedupeStats struct {
	frontier.DedupeStats
	StoreChecks    int64 `json:"store_checks"`    // Maybe verdicts looked up in the store
	FalsePositives int64 `json:"false_positives"` // of those, URLs the store then inserted as new: Bloom false positives, kept
}

// CookieStats is the --stats-json "cookies" object: the sessions held and the
// cookies refused for being over a jar's bounds (a Set-Cookie flood is bounded and
// counted).
type CookieStats struct {
	Sessions int   `json:"sessions"` // (egress, site) sessions held now
	Dropped  int64 `json:"dropped"`  // cookies refused: over cookies.per_site, bytes_per_site or 4096 bytes
}

// DNSStats is the cache's --stats-json object.
type DNSStats = dnscache.Stats

// DNSView is what the console's DNS pane shows.
type DNSView = dnscache.View

// EgressView is what the console's Egress pane shows (masked: no secrets).
type EgressView = egress.View

// EgressStats is the --stats-json "egress" object.
type EgressStats = egress.Stats

// ExampleURLs is how many URLs of each error or skip kind Stats.Examples keeps.
const ExampleURLs = 3
