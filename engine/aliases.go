package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
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
	// WorkerSettings are the crawl settings a master gives its workers (wire.Settings).
	WorkerSettings = wire.Settings
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

// What the UI reads of a crawl lives in engine/view; these aliases keep the names
// engine.Snapshot and the rest valid for callers that have not moved to it.
type (
	// Snapshot is view.Snapshot: what the console shows, copied.
	Snapshot = view.Snapshot
	// Totals is view.Totals: the crawl's running counters.
	Totals = view.Totals
	// Lane is view.Lane: one row of the lanes pane.
	Lane = view.Lane
	// LaneStatus is view.LaneStatus: what one lane is doing.
	LaneStatus = view.LaneStatus
	// Group is view.Group: one adjacency group.
	Group = view.Group
	// HostRef is view.HostRef: a host bound to a lane.
	HostRef = view.HostRef
	// ParentRef is view.ParentRef: a parent page bound to a lane.
	ParentRef = view.ParentRef
	// State is view.State: the lifecycle state of a crawl.
	State = view.State
	// Node is view.Node: one worker as the Nodes pane shows it.
	Node = view.Node
	// NodeState is view.NodeState: what the master knows of one worker.
	NodeState = view.NodeState
	// Level is view.Level: the severity of an event.
	Level = view.Level
	// Event is view.Event: one entry of the engine's event ring.
	Event = view.Event
	// RebalancePlan is view.RebalancePlan: a proposed re-deal of lanes or units.
	RebalancePlan = view.RebalancePlan
	// UnitMove is view.UnitMove: one assignment unit moving between workers.
	UnitMove = view.UnitMove
	// LaneMove is view.LaneMove: one lane moving between egresses.
	LaneMove = view.LaneMove
	// EgressLoad is view.EgressLoad: the observed load of one egress.
	EgressLoad = view.EgressLoad
	// RevisitView is view.RevisitView: the Revisit pane.
	RevisitView = view.RevisitView
	// RevisitDue is view.RevisitDue: one row of the due queue.
	RevisitDue = view.RevisitDue
	// ClassWindow is view.ClassWindow: one page class's active window.
	ClassWindow = view.ClassWindow
	// IntervalBucket is view.IntervalBucket: one bar of the interval histogram.
	IntervalBucket = view.IntervalBucket
	// RevisitStats is view.RevisitStats: the stats "revisit" object.
	RevisitStats = view.RevisitStats
	// ClassPlan is view.ClassPlan: where one class's revisit schedule is heading.
	ClassPlan = view.ClassPlan
	// RevisitBehind is view.RevisitBehind: one page the revisit budget cannot follow.
	RevisitBehind = view.RevisitBehind
	// SitesView is view.SitesView: the Sites pane.
	SitesView = view.SitesView
	// StoriesView is view.StoriesView: the Stories pane.
	StoriesView = view.StoriesView
	// StoryRow is view.StoryRow: one story of the Stories pane.
	StoryRow = view.StoryRow
	// StoryPage is view.StoryPage: one URL of a story.
	StoryPage = view.StoryPage
	// SiteRow is view.SiteRow: one declared site in the Sites pane.
	SiteRow = view.SiteRow
	// HostsView is view.HostsView: the Hosts pane's hosts report.
	HostsView = view.HostsView
	// HostRow is view.HostRow: one host, site or egress of the hosts report.
	HostRow = view.HostRow
	// SiteDiscovery is view.SiteDiscovery: one site's feeds and sitemaps.
	SiteDiscovery = view.SiteDiscovery
	// Sizing is view.Sizing: the VPN and workers estimate.
	Sizing = view.Sizing
	// RenderStats is the headless browser's pool and renders (Snapshot.Render).
	RenderStats = view.RenderStats
	// RenderHost is one host's renders and their cost (RenderStats.Hosts).
	RenderHost = view.RenderHost
	// PagesPerIPSource is view.PagesPerIPSource: where Sizing.PagesPerIP comes from.
	PagesPerIPSource = view.PagesPerIPSource
	// Stats is view.Stats: the --stats-json object.
	Stats = view.Stats
	// ClusterStats is view.ClusterStats: a master's workers in the stats object.
	ClusterStats = view.ClusterStats
	// NodeStats is view.NodeStats: one worker in the stats object.
	NodeStats = view.NodeStats
	// DedupeStats is view.DedupeStats: the link filter's stats.
	DedupeStats = view.DedupeStats
	// CookieStats is view.CookieStats: the stats "cookies" object.
	CookieStats = view.CookieStats
	// DNSStats is view.DNSStats: the stats "dns" object.
	DNSStats = view.DNSStats
	// DNSView is view.DNSView: the DNS pane.
	DNSView = view.DNSView
	// EgressView is view.EgressView: the Egress pane.
	EgressView = view.EgressView
	// EgressStats is view.EgressStats: the stats "egress" object.
	EgressStats = view.EgressStats
	// Telemetry is view.Telemetry: what a monitoring scrape reads.
	Telemetry = view.Telemetry
	// Histogram is view.Histogram: a latency histogram.
	Histogram = view.Histogram
)

// Values of the view types (see engine/view).
const (
	// StateStarting, StateRunning, StatePaused, StateStopping, StateDone and StateFailed: view's crawl states.
	StateStarting = view.StateStarting
	StateRunning  = view.StateRunning
	StatePaused   = view.StatePaused
	StateStopping = view.StateStopping
	StateDone     = view.StateDone
	StateIdle     = view.StateIdle
	StateDraining = view.StateDraining
	StateStopped  = view.StateStopped
	StateFailed   = view.StateFailed
	// LaneFetching, LaneWaiting, LaneGated, LanePaused and LaneIdle: view's lane statuses.
	LaneFetching = view.LaneFetching
	LaneWaiting  = view.LaneWaiting
	LaneGated    = view.LaneGated
	LanePaused   = view.LanePaused
	LaneIdle     = view.LaneIdle
	// NodeActive, NodePaused, NodeLeaving, NodeDead and NodeLeft: view's worker states.
	NodeActive  = view.NodeActive
	NodePaused  = view.NodePaused
	NodeLeaving = view.NodeLeaving
	NodeDead    = view.NodeDead
	NodeLeft    = view.NodeLeft
	// LevelDebug, LevelInfo, LevelWarn and LevelError: view's event levels, lowest first.
	LevelDebug = view.LevelDebug
	LevelInfo  = view.LevelInfo
	LevelWarn  = view.LevelWarn
	LevelError = view.LevelError
	// RoleLocal, RoleMaster and RoleWorker: view's roles as Telemetry names them.
	RoleLocal  = view.RoleLocal
	RoleMaster = view.RoleMaster
	RoleWorker = view.RoleWorker
	// PagesPerIPConfig, PagesPerIPObserved and PagesPerIPFloor: view's sources of Sizing.PagesPerIP.
	PagesPerIPConfig   = view.PagesPerIPConfig
	PagesPerIPObserved = view.PagesPerIPObserved
	PagesPerIPFloor    = view.PagesPerIPFloor
)

// Live steering lives in engine/steer; these names keep engine.Steer and the rest
// valid for the console, ctl and attach.
type (
	// Steer is steer.Change: one live steering change.
	Steer = steer.Change
)

// Steering operations and budget spans (see engine/steer).
const (
	// SteerSeedAdd .. SteerWindow are steer's operations: the words of each command.
	SteerSeedAdd    = steer.SeedAdd
	SteerSiteAdd    = steer.SiteAdd
	SteerSiteRm     = steer.SiteRm
	SteerKeywordAdd = steer.KeywordAdd
	SteerKeywordRm  = steer.KeywordRm
	SteerBudget     = steer.Budget
	SteerWindow     = steer.Window
	// BudgetRound and BudgetTotal are steer's budget spans.
	BudgetRound = steer.BudgetRound
	BudgetTotal = steer.BudgetTotal
	// SteeringMeta is steer.Meta: the store meta key of the steering changes.
	SteeringMeta = steer.Meta
	// SteeringOutMeta is steer.OutMeta: the store meta key of the sources folded
	// changes withdrew.
	SteeringOutMeta = steer.OutMeta
)

// SteerUsage is steer.Usage: the steering commands as typed.
var SteerUsage = steer.Usage

// ParseSteer is steer.Parse: a steering command read from its words.
func ParseSteer(words []string) (Steer, error) { return steer.Parse(words) }
