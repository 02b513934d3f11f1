package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/pace"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// DefaultUserAgent identifies the crawler to the sites it visits.
const DefaultUserAgent = "crawlconsole/0.1 (+https://github.com/crawlconsole/crawlconsole)"

// MaxUserAgentBytes is the longest user_agent a crawl takes: a request header far
// longer than a crawler's name, version and contact URL is refused by servers, and a
// value this size in every request is a mistake, not a wish.
const MaxUserAgentBytes = 512

// Options configures a crawl. Defaults come from DefaultOptions; the CLI applies a
// config file, then flags, on top (defaults -> file -> flags). YAML keys are the
// lower_snake names in the tags.
type Options struct {
	// Seeds are the start URLs (parent hash 0).
	Seeds []string `yaml:"seeds"`
	// DB is the SQLite store path; the crawl resumes from it if it exists.
	DB string `yaml:"db"`

	// Lanes configures M1 adjacency lanes.
	Lanes LaneOptions `yaml:"lanes"`
	// HostRate caps each host's aggregate request rate across every egress, in
	// requests per second (robots.txt Crawl-delay raises the gap further). 0 = no cap.
	HostRate float64 `yaml:"host_rate"`
	// Politeness makes each host's gap follow the server: delay_factor × its
	// response time, and a back-off on overload.
	Politeness PolitenessOptions `yaml:"politeness"`
	// Pacer, when set (from code, not config), adds another pacing policy's gap to
	// each host's: the politeness benchmark plugs its AutoThrottle baseline in here.
	Pacer pace.Pacer `yaml:"-"`
	// Cookies keeps a cookie session per (egress, site).
	Cookies CookieOptions `yaml:"cookies"`
	// Render renders the pages built by script in a headless browser.
	Render RenderOptions `yaml:"render"`
	// Robots obeys robots.txt (default true).
	Robots bool `yaml:"robots"`
	// UserAgent is sent with every request. Its product token (the leading name,
	// "crawlconsole") is what robots.txt groups and <meta name=...> are matched to.
	UserAgent string `yaml:"user_agent"`
	// Etiquette configures robots.txt caching, page-level directives and per-site
	// overrides (RFC 9309, meta robots, X-Robots-Tag, rel=nofollow).
	Etiquette EtiquetteOptions `yaml:"etiquette"`

	// DNSServers are "host:port" DNS servers, tried in turn; empty reads
	// /etc/resolv.conf.
	DNSServers []string `yaml:"dns_servers"`
	// DNS configures the DNS prefetch cache (M5).
	DNS DNSOptions `yaml:"dns"`
	// Resolver, when set (from code, not config), replaces the DNS prefetch cache:
	// benchmarks plug baseline resolvers in here. The SSRF guard still checks every
	// address it returns.
	Resolver fetch.Resolver `yaml:"-"`
	// Egress lists egress SPECs (bind:IP, http://[user:pass@]host:port,
	// socks5://[user:pass@]host:port, optionally NAME=SPEC); empty = direct.
	Egress []string `yaml:"egress"`
	// Rotation configures egress rotation (M3).
	Rotation RotationOptions `yaml:"rotation"`
	// AllowPrivate opens CIDR ranges to the SSRF guard (loopback/private are refused
	// by default).
	AllowPrivate []string `yaml:"allow_private"`

	// Scope limits what is followed.
	Scope frontier.ScopeConfig `yaml:"scope"`
	// Fetch sets per-request limits.
	Fetch FetchOptions `yaml:"fetch"`
	// Dedupe sizes the LRU + Bloom URL filter (M4, seed 002).
	Dedupe DedupeOptions `yaml:"dedupe"`
	// QueueMemory is how many queued URLs are kept in memory; the rest wait in the
	// store and are paged in as the queue drains.
	QueueMemory int `yaml:"queue_memory"`
	// Revisit configures adaptive revisit (M2) and page classes and windows.
	Revisit RevisitOptions `yaml:"revisit"`
	// GCPercent is the Go collector's GOGC while the engine runs: the heap grows
	// this many percent past what the last collection kept before the next one.
	// 0 (default) leaves the process's (Go's 100, or the GOGC environment
	// variable's): a crawl allocates fast and keeps little, so 200 halves the
	// marking for tens of MB more heap (see README, throughput). Above 100 the heap is
	// held under a soft limit of half this machine's memory (GOMEMLIMIT, when
	// set, instead), past which the collector runs as often as it must.
	GCPercent int `yaml:"gc_percent"`

	// Sites declares news and social sites (M3): news sites are crawled from their
	// entry and filtered by keyword, social sites searched for each keyword.
	Sites []SiteOptions `yaml:"sites"`
	// Keywords are shared by every news site (and searched on social sites that
	// declare none of their own).
	Keywords []string `yaml:"keywords"`
	// Rounds configures crawl rounds over the sites (M3).
	Rounds RoundOptions `yaml:"rounds"`
	// Discovery reads feeds and sitemaps for new pages.
	Discovery DiscoveryOptions `yaml:"discovery"`
	// Balance configures seed 003's balancing of sites and keyword shards over the
	// workers of a distributed crawl (M3/M4; a master only).
	Balance BalanceOptions `yaml:"balance"`
	// Budgets caps the pages each host and site is given, per round and in total;
	// what a budget holds back is deferred and counted, never dropped.
	Budgets BudgetOptions `yaml:"budgets"`
	// Traps configures the crawler-trap guards on found links (frontier.TrapGuard).
	Traps frontier.TrapOptions `yaml:"traps"`
	// URLVariants collapses the variants of one URL before it is queued: tracking
	// parameters (utm_*, fbclid, gclid, ...), session ids (jsessionid, PHPSESSID,
	// token-like sid) and a page's rel=canonical on its own host.
	URLVariants frontier.VariantOptions `yaml:"url_variants"`

	// SteerBaseline (from code, not config) steers as the engine did before a lane
	// traded its task for an operator's during its pause: the steering benchmark's
	// baseline. Off by default.
	SteerBaseline bool `yaml:"-"`

	// Store (from code, not config) tunes the store the engine opens; zero keeps the
	// store's defaults. For tests: a write batch that stays open until a flush.
	Store model.Options `yaml:"-"`

	// Now is the engine's clock (from code, not config): every timestamp the engine
	// takes, and the clock it hands the egress rotation, the politeness gate and the
	// DNS cache. Pauses and timeouts still run on real time. Default (nil) time.Now.
	Now func() time.Time `yaml:"-"`
}

// LaneOptions configures M1.
type LaneOptions struct {
	// Max is the most lanes fetching at once (lanes.max).
	Max int `yaml:"max"`
	// DelayMin and DelayMax bound the random pause between two requests of one lane;
	// longer than a human click interval (default 2s..6s).
	DelayMin time.Duration `yaml:"delay_min"`
	DelayMax time.Duration `yaml:"delay_max"`
}

// FetchOptions sets per-request limits.
type FetchOptions struct {
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	Timeout        time.Duration `yaml:"timeout"`         // whole request, body included
	MaxBodyBytes   int           `yaml:"max_body_bytes"`  // larger bodies: body_too_large
	MaxRedirects   int           `yaml:"max_redirects"`   // per fetch
	ContentTypes   []string      `yaml:"content_types"`   // media types stored as pages
	Retries        int           `yaml:"retries"`         // extra attempts for transient errors
	RetryBackoff   time.Duration `yaml:"retry_backoff"`   // first backoff; doubles each retry
	RefusalBackoff time.Duration `yaml:"refusal_backoff"` // pause of a lane after a refusal (403/429/ban)
	// MaxRetryAfter caps how long a refusal's Retry-After defers the host's URLs on
	// the direct route (a longer wait than RefusalBackoff defers them instead of
	// holding the lane). Default 1h.
	MaxRetryAfter time.Duration `yaml:"max_retry_after"`
	// MaxCrawlDelay caps a robots.txt Crawl-delay (the host's gap between two
	// requests). Default 60s.
	MaxCrawlDelay time.Duration `yaml:"max_crawl_delay"`
}

// DedupeOptions sizes the URL filter.
type DedupeOptions struct {
	ExpectedURLs  uint    `yaml:"expected_urls"`  // Bloom filter sizing
	FalsePositive float64 `yaml:"false_positive"` // Bloom target rate
	LRUSize       int     `yaml:"lru_size"`       // recent URLs remembered exactly
}

// DefaultOptions returns the documented defaults (real-web politeness: 2..6 s lane
// pauses, 1 request/s per host).
func DefaultOptions() Options {
	return Options{
		Lanes:      LaneOptions{Max: 32, DelayMin: 2 * time.Second, DelayMax: 6 * time.Second},
		HostRate:   1,
		Politeness: DefaultPoliteness(),
		Cookies:    DefaultCookies(),
		Robots:     true,
		UserAgent:  DefaultUserAgent,
		Etiquette:  DefaultEtiquette(),
		Scope:      frontier.ScopeConfig{SameSite: true},
		Fetch: FetchOptions{
			ConnectTimeout: 10 * time.Second,
			Timeout:        30 * time.Second,
			MaxBodyBytes:   10 << 20,
			MaxRedirects:   5,
			ContentTypes:   []string{"text/html", "application/xhtml+xml"},
			Retries:        2,
			RetryBackoff:   2 * time.Second,
			RefusalBackoff: 30 * time.Second,
			MaxRetryAfter:  time.Hour,
			MaxCrawlDelay:  time.Minute,
		},
		DNS:         DNSOptions{Prefetch: true},
		Rotation:    DefaultRotation(),
		Dedupe:      DedupeOptions{ExpectedURLs: 10_000_000, FalsePositive: 0.01, LRUSize: 16384},
		QueueMemory: 200_000,
		Revisit:     DefaultRevisit(),
		Rounds:      RoundOptions{Every: DefaultRoundEvery},
		Traps:       frontier.DefaultTrapOptions(),
		Discovery:   DefaultDiscovery(),
		Now:         time.Now,
	}
}

// BalanceOptions configures seed 003's load balancing over workers. The seed names
// its thresholds but gives no values; the defaults are engine/balance's (measured by
// `go run ./bench balance`).
type BalanceOptions struct {
	// Every is how often the master re-deals sites and keyword shards by cost (seed:
	// daily; default 24h). The console's rebalance key does it on demand.
	Every time.Duration `yaml:"every"`
	// Threshold: nothing moves unless the gap between the slowest and the fastest
	// worker's weight total exceeds this share of the mean (default 0.1).
	Threshold float64 `yaml:"threshold"`
	// CounterThreshold is the seed's counter_threshold: failed exchanges in a row that
	// end one iteration (default 2000).
	CounterThreshold int `yaml:"counter_threshold"`
	// IterationThreshold is the seed's iteration_threshold: runs of the exchange loop,
	// the lowest-variance one kept (default 8).
	IterationThreshold int `yaml:"iteration_threshold"`
}

// Declares says whether o names anything to crawl of its own: seeds, sites, or
// sitemaps and feeds for discovery to read. Without, only a store's queue can.
func (o *Options) Declares() bool {
	return len(o.Seeds) > 0 || len(o.Sites) > 0 ||
		(o.Discovery.Enabled && len(o.Discovery.Sitemaps)+len(o.Discovery.Feeds) > 0)
}

// Validate reports the first unusable setting, naming it and what is allowed.
func (o *Options) Validate() error {
	switch {
	case o.Lanes.Max < 1:
		return fmt.Errorf("lanes.max (--lanes) must be at least 1, got %d", o.Lanes.Max)
	case o.Lanes.DelayMin < 0 || o.Lanes.DelayMax < o.Lanes.DelayMin:
		return fmt.Errorf("lanes.delay_min and delay_max (--delay MIN..MAX) must satisfy 0 <= MIN <= MAX, got %v..%v", o.Lanes.DelayMin, o.Lanes.DelayMax)
	case o.HostRate < 0:
		return fmt.Errorf("host_rate must be >= 0 requests/s (0 = no cap), got %v", o.HostRate)
	case strings.TrimSpace(o.UserAgent) == "":
		return fmt.Errorf("user_agent (--user-agent) must not be empty")
	case len(o.UserAgent) > MaxUserAgentBytes:
		return fmt.Errorf("user_agent (--user-agent) is %d bytes, over the %d a User-Agent may be (servers refuse long headers): "+
			"give the crawler's name, version and a contact URL", len(o.UserAgent), MaxUserAgentBytes)
	case strings.ContainsFunc(o.UserAgent, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return fmt.Errorf("user_agent (--user-agent) holds a control character (a line break, say): it must be one line of text")
	case o.Fetch.MaxBodyBytes < 1024:
		return fmt.Errorf("fetch.max_body_bytes must be at least 1024, got %d", o.Fetch.MaxBodyBytes)
	case o.Fetch.MaxRedirects < 0:
		return fmt.Errorf("fetch.max_redirects must be >= 0, got %d", o.Fetch.MaxRedirects)
	case o.Fetch.Timeout <= 0 || o.Fetch.ConnectTimeout <= 0:
		return fmt.Errorf("fetch.timeout and fetch.connect_timeout must be positive")
	case o.Fetch.Retries < 0:
		return fmt.Errorf("fetch.retries must be >= 0, got %d", o.Fetch.Retries)
	case o.Fetch.MaxRetryAfter <= 0:
		return fmt.Errorf("fetch.max_retry_after must be positive (it caps a server's Retry-After), got %v", o.Fetch.MaxRetryAfter)
	case o.Fetch.MaxCrawlDelay <= 0:
		return fmt.Errorf("fetch.max_crawl_delay must be positive (it caps a robots.txt Crawl-delay), got %v", o.Fetch.MaxCrawlDelay)
	case o.Dedupe.FalsePositive <= 0 || o.Dedupe.FalsePositive >= 1:
		return fmt.Errorf("dedupe.false_positive must be in (0,1), got %v", o.Dedupe.FalsePositive)
	case o.Dedupe.ExpectedURLs < 1000:
		return fmt.Errorf("dedupe.expected_urls must be at least 1000, got %d", o.Dedupe.ExpectedURLs)
	case o.Dedupe.LRUSize < 16:
		return fmt.Errorf("dedupe.lru_size must be at least 16, got %d", o.Dedupe.LRUSize)
	case o.QueueMemory < 100:
		return fmt.Errorf("queue_memory must be at least 100, got %d", o.QueueMemory)
	case o.GCPercent < 0:
		return fmt.Errorf("gc_percent must be >= 0 (0 = the process's own, GOGC or 100), got %d", o.GCPercent)
	case o.Rotation.PerNode < 0:
		return fmt.Errorf("rotation.per_node must be >= 0 (0 = every egress), got %d", o.Rotation.PerNode)
	case o.Rotation.DisableFor < 0 || o.Rotation.PairBanFor < 0 || o.Rotation.FaultCooldown < 0:
		return fmt.Errorf("rotation.disable_for, pair_ban_for and fault_cooldown must be >= 0 (0 = default), got %v, %v, %v",
			o.Rotation.DisableFor, o.Rotation.PairBanFor, o.Rotation.FaultCooldown)
	case o.DNS.MinTTL < 0 || o.DNS.MaxTTL < 0 || o.DNS.SlowThreshold < 0 || o.DNS.Timeout < 0:
		return fmt.Errorf("dns.min_ttl, max_ttl, slow_threshold and timeout must be >= 0 (0 = default), got %v, %v, %v, %v",
			o.DNS.MinTTL, o.DNS.MaxTTL, o.DNS.SlowThreshold, o.DNS.Timeout)
	case o.DNS.Workers < 0:
		return fmt.Errorf("dns.workers must be >= 0 (0 = default, 512), got %d", o.DNS.Workers)
	case o.DNS.MinTTL > 0 && o.DNS.MaxTTL > 0 && o.DNS.MaxTTL < o.DNS.MinTTL:
		return fmt.Errorf("dns.max_ttl %v is below dns.min_ttl %v", o.DNS.MaxTTL, o.DNS.MinTTL)
	case o.Balance.Every < 0 || o.Balance.Threshold < 0 || o.Balance.CounterThreshold < 0 || o.Balance.IterationThreshold < 0:
		return fmt.Errorf("balance.every, threshold, counter_threshold and iteration_threshold must be >= 0 (0 = default), got %+v", o.Balance)
	}
	if err := o.Politeness.validate(); err != nil {
		return err
	}
	if err := o.Cookies.validate(); err != nil {
		return err
	}
	if err := o.Render.validate(); err != nil {
		return err
	}
	if err := o.checkMemory(physicalMemory()); err != nil {
		return err
	}
	if err := o.Revisit.validate(); err != nil {
		return err
	}
	if err := o.Etiquette.validate(); err != nil {
		return err
	}
	if err := o.Budgets.validate(); err != nil {
		return err
	}
	if o.Traps.MaxSegmentRepeats < 0 || o.Traps.MaxQueryBytes < 0 || o.Traps.CalendarYears < 0 {
		return fmt.Errorf("traps: max_segment_repeats, max_query_bytes and calendar_years must be >= 0 (0 = guard off), got %+v", o.Traps)
	}
	if err := o.Discovery.validate(); err != nil {
		return err
	}
	return o.ValidateSites()
}
