package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// The options of a crawl live in engine/config; these aliases keep the names
// engine.Options and the rest valid for callers that have not moved to it.
type (
	// Options configures a crawl (config.Options).
	Options = config.Options
	// LaneOptions configures M1 lanes (config.LaneOptions).
	LaneOptions = config.LaneOptions
	// FetchOptions sets per-request limits (config.FetchOptions).
	FetchOptions = config.FetchOptions
	// DedupeOptions sizes the URL filter (config.DedupeOptions).
	DedupeOptions = config.DedupeOptions
	// BalanceOptions configures the balancing over workers (config.BalanceOptions).
	BalanceOptions = config.BalanceOptions
	// BudgetOptions caps the pages hosts and sites are given (config.BudgetOptions).
	BudgetOptions = config.BudgetOptions
	// CookieOptions configures the cookie sessions (config.CookieOptions).
	CookieOptions = config.CookieOptions
	// DiscoveryOptions configures news discovery (config.DiscoveryOptions).
	DiscoveryOptions = config.DiscoveryOptions
	// DNSOptions configures the DNS prefetch cache (config.DNSOptions).
	DNSOptions = config.DNSOptions
	// RotationOptions configures egress rotation (config.RotationOptions).
	RotationOptions = config.RotationOptions
	// EtiquetteOptions configures what the crawler obeys (config.EtiquetteOptions).
	EtiquetteOptions = config.EtiquetteOptions
	// EtiquetteSite overrides the etiquette on one site (config.EtiquetteSite).
	EtiquetteSite = config.EtiquetteSite
	// PolitenessOptions configures each host's adaptive gap (config.PolitenessOptions).
	PolitenessOptions = config.PolitenessOptions
	// RevisitOptions configures adaptive revisit (config.RevisitOptions).
	RevisitOptions = config.RevisitOptions
	// ClassRevisit is one page class's revisit plan (config.ClassRevisit).
	ClassRevisit = config.ClassRevisit
	// SiteOptions declares one target site (config.SiteOptions).
	SiteOptions = config.SiteOptions
	// RoundOptions configures crawl rounds (config.RoundOptions).
	RoundOptions = config.RoundOptions
	// MasterOptions configures a distributed crawl's master (config.MasterOptions).
	MasterOptions = config.MasterOptions
	// WorkerOptions configures a distributed crawl's worker (config.WorkerOptions).
	WorkerOptions = config.WorkerOptions
)

// Constants of the options (see engine/config).
const (
	// DefaultUserAgent is config.DefaultUserAgent.
	DefaultUserAgent = config.DefaultUserAgent
	// SiteNews is config.SiteNews: a site crawled from its entry.
	SiteNews = config.SiteNews
	// SiteSocial is config.SiteSocial: a site searched for each keyword.
	SiteSocial = config.SiteSocial
	// DefaultSearchPages is config.DefaultSearchPages.
	DefaultSearchPages = config.DefaultSearchPages
	// DefaultRoundEvery is config.DefaultRoundEvery.
	DefaultRoundEvery time.Duration = config.DefaultRoundEvery
	// ProbeNews, ProbeAll and ProbeOff are config's values of DiscoveryOptions.Probe.
	ProbeNews = config.ProbeNews
	ProbeAll  = config.ProbeAll
	ProbeOff  = config.ProbeOff
	// DefaultClusterPrefix is config.DefaultClusterPrefix.
	DefaultClusterPrefix = config.DefaultClusterPrefix
	// DefaultLeaveGrace is config.DefaultLeaveGrace.
	DefaultLeaveGrace time.Duration = config.DefaultLeaveGrace
)

// DefaultOptions is config.DefaultOptions: the documented defaults.
func DefaultOptions() Options { return config.DefaultOptions() }

// DefaultPoliteness is config.DefaultPoliteness.
func DefaultPoliteness() PolitenessOptions { return config.DefaultPoliteness() }

// FixedPoliteness is config.FixedPoliteness: every adaptive term off.
func FixedPoliteness() PolitenessOptions { return config.FixedPoliteness() }

// DefaultCookies is config.DefaultCookies.
func DefaultCookies() CookieOptions { return config.DefaultCookies() }

// ValidNodeName is config.ValidNodeName: whether a worker name is usable.
func ValidNodeName(name string) error { return config.ValidNodeName(name) }
