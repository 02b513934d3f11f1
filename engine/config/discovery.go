package config

import (
	"fmt"
	"math"
	"time"
)

// DiscoveryOptions configures news discovery. YAML:
//
//	discovery:
//	  enabled: true
//	  sitemaps: ["https://harbor-times.com/news-sitemap.xml"]
//	  feeds: ["https://harbor-times.com/rss"]
type DiscoveryOptions struct {
	// Enabled reads feeds and sitemaps (default true).
	Enabled bool `yaml:"enabled"`
	// Sitemaps and Feeds are declared by the operator, on top of those found in
	// robots.txt, at /sitemap.xml and through <link rel="alternate">. A declared
	// sitemap may list any host of its own site.
	Sitemaps []string `yaml:"sitemaps"`
	Feeds    []string `yaml:"feeds"`
	// Probe says which hosts are asked for /sitemap.xml when their robots.txt names
	// no sitemap: "news" (default: the hosts of declared news sites, whose new
	// articles are the point), "all" (one more request per host of any crawl) or
	// "off".
	Probe string `yaml:"probe"`
	// MinPoll and MaxPoll bound a feed's or sitemap's learned poll interval
	// (defaults 1m and 24h).
	MinPoll time.Duration `yaml:"min_poll"`
	MaxPoll time.Duration `yaml:"max_poll"`
	// RateHalfLife is how fast a feed's or sitemap's learned publishing rate
	// forgets (default 24h, discover.Poller.RateHalfLife): a newsroom's busy day
	// shows at once and its weight halves every RateHalfLife, so a source that went
	// quiet after a burst is read less within a day or two rather than for as long as
	// the burst stays in its lifetime average.
	RateHalfLife time.Duration `yaml:"rate_half_life"`
	// PollBudget is how many feed and sitemap reads per hour the crawl may spend
	// in all, split over them by the square-root rule (discover.Poller.Budget): the
	// part of a fetch budget left after the articles. 0 (default): one read per new
	// URL expected over all of them, split the same way.
	PollBudget float64 `yaml:"poll_budget"`
	// FeedItemsOffSite queues a feed's items wherever they point, one hop past the
	// crawl's site scope (default true). Real feeds route their item links through
	// another host (feedburner's feedproxy, podcast hosts, tracking redirects) or, on
	// an aggregator, list other sites' articles: the feed is the site's own list of
	// what it published. The page an item leads to is stored; its links go through
	// the scope as any page's do, so the crawl does not spread from it. Sitemaps keep
	// the protocol's host rule whatever this says. false: a feed speaks for its own
	// site only, as a sitemap for its host.
	FeedItemsOffSite bool `yaml:"feed_items_off_site"`
	// FetchBudget is the crawl's fetch budget for news discovery, fetches per hour:
	// the reads of feeds, sitemaps and polled entry pages and the new pages they
	// bring. Without a PollBudget the reads get what the new pages expected (the
	// rates the Poller learned) leave of it, so the budget is spent as told without
	// the article rate being known in advance. 0 (default): no fetch budget.
	FetchBudget float64 `yaml:"fetch_budget"`
	// MaxDocumentBytes caps a feed or sitemap served as XML or gzip (or as text,
	// HTML or octet-stream when its first bytes are a feed's or sitemap's), decoded
	// (default 50 MiB, the sitemaps protocol's 50 MB uncompressed): a big news
	// site's sitemap is over fetch.max_body_bytes, which pages keep. Larger ones
	// are refused as body_too_large, named in the log and counted. Under
	// fetch.max_body_bytes it is that.
	MaxDocumentBytes int `yaml:"max_document_bytes"`
}

// DefaultMaxDocumentBytes is discovery.max_document_bytes's default: the
// sitemaps protocol's 50 MB uncompressed (52,428,800 bytes).
const DefaultMaxDocumentBytes = 50 << 20

// maxDocumentBytes bounds discovery.max_document_bytes: the body is held whole
// while it is parsed.
const maxDocumentBytes = 1 << 30

// Values of DiscoveryOptions.Probe.
const (
	ProbeNews = "news"
	ProbeAll  = "all"
	ProbeOff  = "off"
)

// DefaultDiscovery is the discovery defaults: on, probing news sites, polls
// between 1m and 24h, a feed's items followed off its site.
func DefaultDiscovery() DiscoveryOptions {
	return DiscoveryOptions{Enabled: true, Probe: ProbeNews, MinPoll: time.Minute, MaxPoll: 24 * time.Hour, RateHalfLife: 24 * time.Hour, FeedItemsOffSite: true, MaxDocumentBytes: DefaultMaxDocumentBytes}
}

func (o DiscoveryOptions) validate() error {
	for _, list := range [][]string{o.Sitemaps, o.Feeds} {
		for _, u := range list {
			if err := checkSiteURL(u); err != nil {
				return fmt.Errorf("discovery: sitemap/feed %v", err)
			}
		}
	}
	switch o.Probe {
	case "", ProbeNews, ProbeAll, ProbeOff:
	default:
		return fmt.Errorf("discovery.probe must be %q, %q or %q, got %q", ProbeNews, ProbeAll, ProbeOff, o.Probe)
	}
	if !(o.PollBudget >= 0) || math.IsInf(o.PollBudget, 0) {
		return fmt.Errorf("discovery.poll_budget must be >= 0 reads per hour (0 = one read per new URL expected), got %v", o.PollBudget)
	}
	if !(o.FetchBudget >= 0) || math.IsInf(o.FetchBudget, 0) {
		return fmt.Errorf("discovery.fetch_budget must be >= 0 fetches per hour (0 = none), got %v", o.FetchBudget)
	}
	if o.MinPoll < 0 || (o.MaxPoll > 0 && o.MaxPoll < o.MinPoll) {
		return fmt.Errorf("discovery: need 0 <= min_poll <= max_poll, got %v..%v", o.MinPoll, o.MaxPoll)
	}
	if o.MaxDocumentBytes < 0 || o.MaxDocumentBytes > maxDocumentBytes {
		return fmt.Errorf("discovery.max_document_bytes must be between 0 (fetch.max_body_bytes) and %d (1 GiB), got %d", maxDocumentBytes, o.MaxDocumentBytes)
	}
	if o.RateHalfLife < 0 {
		return fmt.Errorf("discovery: rate_half_life must not be negative, got %v (0: the default, 24h)", o.RateHalfLife)
	}
	return nil
}
