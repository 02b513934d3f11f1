package sandbox

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"sort"
	"time"
)

// Config describes one sandbox web. DefaultConfig holds every default; Start and NewWeb
// validate it. Durations marked "web" run Scale× faster in real time; durations marked
// "real" are network or transport properties and are not scaled.
type Config struct {
	// Seed makes the whole web reproducible: names, links, change times, faults, content.
	Seed int64
	// Hosts is the number of virtual hosts serving pages (default 60). Dead host names
	// (see DNS) come on top. Generation is lazy, so 10,000+ hosts are cheap.
	Hosts int
	// Scale is how many times faster than real time the web's clock runs (default 1).
	// Every web time constant (change rates, HumanGap, Window, BanFor, quota windows,
	// Retry-After, DNS TTLs, Crawl-delay) shrinks by Scale in real time.
	Scale float64
	// Epoch is the web time at which every page exists at content version 0; the
	// sandbox clock reads Epoch at Start (default 2025-01-01T00:00:00Z).
	Epoch time.Time
	// RealDates makes the dates the web writes (article, feed and sitemap dates, a
	// page's <time>, a feed's Date header) real times: web time t is written as the
	// real moment the sandbox clock read t. Web time runs Scale× ahead of real time,
	// so a web date is in the future of the real moment it is served; a real date is
	// at or before it, as a reader watching a crawl expects. Articles and posts then
	// also say when they were published, below their headline: the real moment the
	// web started (Epoch), when every page came to exist. Default false: dates are
	// web times, the ones ChangeTimes, Published and the truth dump give.
	RealDates bool
	// HTTPAddr is the loopback address of the virtual-host HTTP server (default
	// "127.0.0.1:0", a free port).
	HTTPAddr string
	// DNSAddr is the loopback address of the DNS server, UDP and TCP on the same port
	// (default "127.0.0.1:0").
	DNSAddr string
	// TruthAddr is the loopback address of the ground-truth endpoint (default "127.0.0.1:0").
	TruthAddr string
	// MaxTruthRequests caps the requests the truth log keeps; later ones are only
	// counted as dropped (default 5,000,000, about 1 GB at worst).
	MaxTruthRequests int
	// Publishing serves the publishing model (publish.go): new articles over time,
	// announced in feeds and sitemaps, linked from entry pages (default off: the
	// pages and robots.txt of the classic model are unchanged).
	Publishing bool
	// PublishBacklog is how long before Epoch the publishing sites have been
	// publishing (web; 0 means the default, sandbox.PublishBacklog, 3 days): the
	// articles a crawl finds in their sitemaps on its first read. A benchmark that
	// cannot afford to fetch three days of backlog shortens it.
	PublishBacklog time.Duration

	Layout  LayoutConfig
	Change  ChangeConfig
	AntiBot AntiBotConfig
	Search  SearchConfig
	DNS     DNSConfig
	Faults  FaultConfig
	Robots  RobotsConfig
	// Load makes hosts answer to a crawler's pressure: fragile and throttling hosts,
	// and the opt-in cookie rule. Off by default.
	Load LoadConfig
}

// LayoutConfig shapes the sites and their link graph.
type LayoutConfig struct {
	// SocialShare is the share of sites that are social (class "soc") rather than
	// news/policy sites (default 0.2; site 4 is always social when there are ≥ 5 sites).
	SocialShare float64
	// ChineseShare and RussianShare are the shares of sites written in Chinese and in
	// Russian; the rest are English (defaults 0.25 and 0.15; site 1 is always Chinese and
	// site 2 always Russian when they exist).
	ChineseShare, RussianShare float64
	// SectionsMin and SectionsMax bound the section subdomains of a site, besides www
	// (defaults 2 and 4).
	SectionsMin, SectionsMax int
	// ListingPages is the number of paginated listing pages per section host (default 4).
	ListingPages int
	// ArticlesPerListing is the number of articles each listing page links to (default 12).
	ArticlesPerListing int
	// TopStories is the number of "top stories" the entry page links to; they live on
	// the section hosts, so the entry's children span several hosts (default 6).
	TopStories int
	// CrossSiteLinks is how many other sites' entry pages an entry or article links to
	// (default 3).
	CrossSiteLinks int
	// Keywords is the number of keywords per site: search terms on social sites, topic
	// words woven into the text on news sites (default 8).
	Keywords int
	// URLVariants makes every link to an article or post come in several forms, with
	// tracking parameters and session ids (utm_*, fbclid, gclid, ;jsessionid=,
	// PHPSESSID, sid), all serving the same page (variants.go; default off).
	URLVariants bool
}

// ChangeConfig is the change model of articles and posts: each changes as a Poisson
// process whose rate (changes per web day) is drawn once per page.
type ChangeConfig struct {
	// NeverShare is the share of articles that never change (default 0.25).
	NeverShare float64
	// MinRate and MaxRate bound the log-uniform rate of the others, in changes per web
	// day (defaults 0.05 and 48).
	MinRate, MaxRate float64
}

// AntiBotConfig holds the anti-bot rule of seed 000 (M1) and the request quota, both per
// client IP and host. Benchmarks read these to derive lower bounds.
type AntiBotConfig struct {
	// Enabled turns the adjacency rule and the quota on (default true). Off is for
	// throughput ceilings.
	Enabled bool
	// HumanGap is the shortest gap (web) between adjacent requests that is not a
	// violation (default 2 s).
	HumanGap time.Duration
	// MaxViolations (K) is how many violations on one host within Window are tolerated;
	// one more bans the IP from that host (default 3).
	MaxViolations int
	// Window is the violation counting window (web, default 60 s).
	Window time.Duration
	// BanFor is the ban duration (web, default 30 min).
	BanFor time.Duration
	// Quota is the number of requests one IP may make to one host per QuotaWindow;
	// past it the host answers 429 with Retry-After (default 3600).
	Quota int
	// QuotaWindow is the quota window (web, default 1 h).
	QuotaWindow time.Duration
}

// SearchConfig shapes the site search of social sites.
type SearchConfig struct {
	// PagesPerKeyword is the number of non-empty result pages per keyword (default 5).
	PagesPerKeyword int
	// ResultsPerPage is the number of post links per result page (default 10).
	ResultsPerPage int
	// Quota is the number of searches one IP may make on one host per QuotaWindow
	// (default 120).
	Quota int
	// QuotaWindow is the search quota window (web, default 10 min).
	QuotaWindow time.Duration
	// BanShare is the share of social hosts that ban (for AntiBot.BanFor) instead of
	// answering 429 once the search quota is spent (default 0.34).
	BanShare float64
}

// DNSConfig shapes the DNS server.
type DNSConfig struct {
	// LatencyMin and LatencyMax bound the uniform answer latency (real, defaults 20 ms
	// and 200 ms). DNS latency is a network property and is not scaled.
	LatencyMin, LatencyMax time.Duration
	// TTLs are the A-record TTLs, one picked per host (web, default 30 s, 5 min, 1 h);
	// served scaled and rounded up to at least 1 s.
	TTLs []time.Duration
	// NegativeTTL is the SOA minimum TTL sent with NXDOMAIN answers (web, default 60 s).
	NegativeTTL time.Duration
	// NXDomainShare, ServFailShare and TimeoutShare add dead host names, as a share of
	// Hosts, that answer NXDOMAIN, SERVFAIL or nothing at all (defaults 0.05, 0.025,
	// 0.025). Pages link to them.
	NXDomainShare, ServFailShare, TimeoutShare float64
}

// FaultConfig puts transport and content faults on articles and posts.
type FaultConfig struct {
	// Shares maps a fault kind (see FaultKinds) to the share of articles and posts that
	// carry it (default 0.004 each, 4% in all). Empty or all zero disables faults.
	Shares map[string]float64
	// SlowFirstByte is how long a "slow" page waits before its first byte (real, default 3 s).
	SlowFirstByte time.Duration
	// TrickleChunk and TrickleInterval pace a "trickle" body: TrickleChunk bytes every
	// TrickleInterval (real, defaults 256 B and 100 ms).
	TrickleChunk    int
	TrickleInterval time.Duration
	// HugeBytes is the streamed size of a "huge" body (default 64 MiB; never held in memory).
	HugeBytes int64
	// RedirectHops is the length of a redirect chain before the page is served (default 3).
	RedirectHops int
}

// RobotsConfig shapes each host's robots.txt. Every host disallows /private/.
type RobotsConfig struct {
	// CrawlDelayShare is the share of hosts whose robots.txt sets Crawl-delay (default 0.3).
	CrawlDelayShare float64
	// CrawlDelay is that Crawl-delay (web, default 5 s), written scaled in seconds.
	CrawlDelay time.Duration
}

// Fault kinds, as they appear in PageInfo.Fault and Request.Fault.
const (
	FaultSlow          = "slow"           // first byte after FaultConfig.SlowFirstByte
	FaultTrickle       = "trickle"        // body paced TrickleChunk bytes per TrickleInterval
	Fault5xx           = "5xx"            // 500, 502 or 503 (with Retry-After), by page
	FaultReset         = "reset"          // connection reset (RST) before any response
	FaultRedirectChain = "redirect_chain" // RedirectHops 302s, then the page
	FaultRedirectLoop  = "redirect_loop"  // 302s that come back to the page forever
	FaultHuge          = "huge"           // HugeBytes of HTML, streamed without length
	FaultBinary        = "binary"         // random bytes labelled text/html
	FaultMalformed     = "malformed"      // broken tags, unclosed elements, stray brackets
	FaultBadUTF8       = "bad_utf8"       // invalid UTF-8 in a page labelled UTF-8
)

// FaultKinds lists every fault kind in a fixed order.
func FaultKinds() []string {
	return []string{FaultSlow, FaultTrickle, Fault5xx, FaultReset, FaultRedirectChain,
		FaultRedirectLoop, FaultHuge, FaultBinary, FaultMalformed, FaultBadUTF8}
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	shares := map[string]float64{}
	for _, k := range FaultKinds() {
		shares[k] = 0.004
	}
	return Config{
		Seed:             0,
		Hosts:            60,
		Scale:            1,
		Epoch:            time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		HTTPAddr:         "127.0.0.1:0",
		DNSAddr:          "127.0.0.1:0",
		TruthAddr:        "127.0.0.1:0",
		MaxTruthRequests: 5_000_000,
		Layout: LayoutConfig{
			SocialShare: 0.2, ChineseShare: 0.25, RussianShare: 0.15,
			SectionsMin: 2, SectionsMax: 4,
			ListingPages: 4, ArticlesPerListing: 12, TopStories: 6,
			CrossSiteLinks: 3, Keywords: 8,
		},
		Change: ChangeConfig{NeverShare: 0.25, MinRate: 0.05, MaxRate: 48},
		AntiBot: AntiBotConfig{
			Enabled: true, HumanGap: 2 * time.Second, MaxViolations: 3,
			Window: time.Minute, BanFor: 30 * time.Minute,
			Quota: 3600, QuotaWindow: time.Hour,
		},
		Search: SearchConfig{
			PagesPerKeyword: 5, ResultsPerPage: 10,
			Quota: 120, QuotaWindow: 10 * time.Minute, BanShare: 0.34,
		},
		DNS: DNSConfig{
			LatencyMin: 20 * time.Millisecond, LatencyMax: 200 * time.Millisecond,
			TTLs:          []time.Duration{30 * time.Second, 5 * time.Minute, time.Hour},
			NegativeTTL:   time.Minute,
			NXDomainShare: 0.05, ServFailShare: 0.025, TimeoutShare: 0.025,
		},
		Faults: FaultConfig{
			Shares:        shares,
			SlowFirstByte: 3 * time.Second,
			TrickleChunk:  256, TrickleInterval: 100 * time.Millisecond,
			HugeBytes:    64 << 20,
			RedirectHops: 3,
		},
		Robots: RobotsConfig{CrawlDelayShare: 0.3, CrawlDelay: 5 * time.Second},
	}
}

// SetFaultShare spreads a total fault share evenly over every fault kind (0 disables faults).
func (c *Config) SetFaultShare(total float64) {
	c.Faults.Shares = map[string]float64{}
	for _, k := range FaultKinds() {
		c.Faults.Shares[k] = total / float64(len(FaultKinds()))
	}
}

// Small shapes c into a small web that a crawl finishes in seconds, for tests that
// crawl to the end: no DNS failures and answers within a millisecond, no
// Crawl-delay, one short listing a site, one cross-site link, two keywords with one
// page of three search results.
func (c *Config) Small() {
	c.DNS.NXDomainShare, c.DNS.ServFailShare, c.DNS.TimeoutShare = 0, 0, 0
	c.DNS.LatencyMin, c.DNS.LatencyMax = 0, time.Millisecond
	c.Robots.CrawlDelayShare = 0
	c.Layout.ListingPages, c.Layout.ArticlesPerListing, c.Layout.TopStories = 1, 5, 2
	c.Layout.CrossSiteLinks, c.Layout.Keywords = 1, 2
	c.Search.PagesPerKeyword, c.Search.ResultsPerPage = 1, 3
}

// FaultShare is the total share of articles and posts that carry a fault.
func (c Config) FaultShare() float64 {
	var sum float64
	for _, v := range c.Faults.Shares {
		sum += v
	}
	return sum
}

// maxHosts keeps a typo from allocating the world.
const maxHosts = 1_000_000

// Validate reports the first problem with the configuration, naming the field and the
// allowed values.
func (c Config) Validate() error {
	type check struct {
		bad  bool
		what string
	}
	share := func(v float64) bool { return !(v >= 0 && v <= 1) }
	nonneg := func(d time.Duration) bool { return d < 0 }
	checks := []check{
		{c.Hosts < 2 || c.Hosts > maxHosts, fmt.Sprintf("Hosts must be between 2 and %d, got %d", maxHosts, c.Hosts)},
		{!(c.Scale > 0 && c.Scale <= 1e7) || math.IsInf(c.Scale, 0), fmt.Sprintf("Scale must be > 0 and ≤ 1e7, got %v", c.Scale)},
		{c.MaxTruthRequests < 0, "MaxTruthRequests must be ≥ 0"},
		{nonneg(c.PublishBacklog), fmt.Sprintf("PublishBacklog must be ≥ 0 (0 = 3 web days), got %v", c.PublishBacklog)},
		{share(c.Layout.SocialShare), "Layout.SocialShare must be in [0,1]"},
		{share(c.Layout.ChineseShare) || share(c.Layout.RussianShare) || c.Layout.ChineseShare+c.Layout.RussianShare > 1,
			"Layout.ChineseShare and RussianShare must be in [0,1] and sum to ≤ 1"},
		{c.Layout.SectionsMin < 1 || c.Layout.SectionsMax < c.Layout.SectionsMin || c.Layout.SectionsMax > 12,
			fmt.Sprintf("Layout.SectionsMin/Max must satisfy 1 ≤ min ≤ max ≤ 12, got %d..%d", c.Layout.SectionsMin, c.Layout.SectionsMax)},
		{c.Layout.ListingPages < 1 || c.Layout.ListingPages > 1000, "Layout.ListingPages must be in 1..1000"},
		{c.Layout.ArticlesPerListing < 1 || c.Layout.ArticlesPerListing > 1000, "Layout.ArticlesPerListing must be in 1..1000"},
		{c.Layout.TopStories < 0 || c.Layout.TopStories > 1000, "Layout.TopStories must be in 0..1000"},
		{c.Layout.CrossSiteLinks < 0 || c.Layout.CrossSiteLinks > 100, "Layout.CrossSiteLinks must be in 0..100"},
		{c.Layout.Keywords < 1 || c.Layout.Keywords > len(keywordPool), fmt.Sprintf("Layout.Keywords must be in 1..%d", len(keywordPool))},
		{share(c.Change.NeverShare), "Change.NeverShare must be in [0,1]"},
		{!(c.Change.MinRate > 0) || !(c.Change.MaxRate >= c.Change.MinRate) || c.Change.MaxRate > 1e6,
			fmt.Sprintf("Change rates must satisfy 0 < MinRate ≤ MaxRate ≤ 1e6 per day, got %v..%v", c.Change.MinRate, c.Change.MaxRate)},
		{nonneg(c.AntiBot.HumanGap), "AntiBot.HumanGap must be ≥ 0"},
		{c.AntiBot.MaxViolations < 0, "AntiBot.MaxViolations must be ≥ 0"},
		{c.AntiBot.Window <= 0 || c.AntiBot.BanFor <= 0 || c.AntiBot.QuotaWindow <= 0,
			"AntiBot.Window, BanFor and QuotaWindow must be > 0"},
		{c.AntiBot.Quota < 1, "AntiBot.Quota must be ≥ 1"},
		{c.Search.PagesPerKeyword < 1 || c.Search.ResultsPerPage < 1 || c.Search.ResultsPerPage > 1000,
			"Search.PagesPerKeyword must be ≥ 1 and ResultsPerPage in 1..1000"},
		{c.Search.Quota < 1 || c.Search.QuotaWindow <= 0, "Search.Quota must be ≥ 1 and QuotaWindow > 0"},
		{share(c.Search.BanShare), "Search.BanShare must be in [0,1]"},
		{nonneg(c.DNS.LatencyMin) || c.DNS.LatencyMax < c.DNS.LatencyMin || c.DNS.LatencyMax > time.Minute,
			fmt.Sprintf("DNS latency must satisfy 0 ≤ min ≤ max ≤ 1m, got %v..%v", c.DNS.LatencyMin, c.DNS.LatencyMax)},
		{len(c.DNS.TTLs) == 0, "DNS.TTLs must not be empty"},
		{nonneg(c.DNS.NegativeTTL), "DNS.NegativeTTL must be ≥ 0"},
		{share(c.DNS.NXDomainShare) || share(c.DNS.ServFailShare) || share(c.DNS.TimeoutShare),
			"DNS.NXDomainShare, ServFailShare and TimeoutShare must be in [0,1]"},
		{nonneg(c.Faults.SlowFirstByte) || nonneg(c.Faults.TrickleInterval), "Faults durations must be ≥ 0"},
		{c.Faults.TrickleChunk < 1, "Faults.TrickleChunk must be ≥ 1"},
		{c.Faults.HugeBytes < 1, "Faults.HugeBytes must be ≥ 1"},
		{c.Faults.RedirectHops < 1 || c.Faults.RedirectHops > 100, "Faults.RedirectHops must be in 1..100"},
		{share(c.Robots.CrawlDelayShare), "Robots.CrawlDelayShare must be in [0,1]"},
		{nonneg(c.Robots.CrawlDelay), "Robots.CrawlDelay must be ≥ 0"},
		{share(c.Load.FragileShare) || share(c.Load.ThrottleShare), "Load.FragileShare and ThrottleShare must be in [0,1]"},
		{nonneg(c.Load.Service) || nonneg(c.Load.Window) || nonneg(c.Load.ThrottleFor) || c.Load.CookieStrikes < 0,
			"Load.Service, Window, ThrottleFor and CookieStrikes must be ≥ 0 (0 = default)"},
	}
	for _, ch := range checks {
		if ch.bad {
			return fmt.Errorf("sandbox config: %s", ch.what)
		}
	}
	for _, d := range c.DNS.TTLs {
		if d <= 0 {
			return fmt.Errorf("sandbox config: DNS.TTLs must all be > 0, got %v", d)
		}
	}
	kinds := map[string]bool{}
	for _, k := range FaultKinds() {
		kinds[k] = true
	}
	names := make([]string, 0, len(c.Faults.Shares))
	for k := range c.Faults.Shares {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !kinds[k] {
			return fmt.Errorf("sandbox config: unknown fault kind %q (want one of %v)", k, FaultKinds())
		}
		if share(c.Faults.Shares[k]) {
			return fmt.Errorf("sandbox config: fault share of %q must be in [0,1], got %v", k, c.Faults.Shares[k])
		}
	}
	if s := c.FaultShare(); s > 1+1e-9 {
		return fmt.Errorf("sandbox config: fault shares sum to %v; they must sum to ≤ 1", s)
	}
	for _, a := range []struct{ name, addr string }{{"HTTPAddr", c.HTTPAddr}, {"DNSAddr", c.DNSAddr}, {"TruthAddr", c.TruthAddr}} {
		if err := checkLoopback(a.addr); err != nil {
			return fmt.Errorf("sandbox config: %s: %v", a.name, err)
		}
	}
	return nil
}

// checkLoopback accepts only "IP:port" on a loopback IP: the sandbox never listens
// anywhere else.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want a loopback HOST:PORT such as 127.0.0.1:0, got %q", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("must be a loopback address (127.0.0.0/8 or ::1), got %q", addr)
	}
	return nil
}
