package view

import "time"

// State is the lifecycle state of a crawl as a whole.
type State string

// Crawl states shown in the console header.
const (
	StateStarting State = "STARTING"
	StateRunning  State = "RUNNING"
	StatePaused   State = "PAUSED"
	StateStopping State = "STOPPING"
	StateDone     State = "DONE"
	StateFailed   State = "FAILED" // the store failed and the crawl stopped itself (Snapshot.StoreError)
	// StateIdle: nothing to fetch now, but more will come: the next round of the
	// declared sites (Snapshot.NextRound), revisits, or a master's tasks for a worker.
	StateIdle State = "IDLE"
	// StateDraining: a master has nothing left to hand out; its workers finish what
	// they hold.
	StateDraining State = "DRAINING"
	// StateStopped: stopped (duration, signal, quit) with URLs left to crawl; a
	// restart on the same store goes on. Only the final stats say it.
	StateStopped State = "STOPPED"
)

// LaneStatus says what one lane (M1) is doing right now.
type LaneStatus string

// Lane statuses: a lane fetches serially, then sleeps its random human-like pause.
const (
	LaneFetching LaneStatus = "fetching" // a request is in flight
	LaneWaiting  LaneStatus = "waiting"  // random pause between requests (M1)
	LaneGated    LaneStatus = "gated"    // held back by the per-host cap or an adjacent fetch on the same egress
	LanePaused   LaneStatus = "paused"   // paused by the operator (lane, host or whole crawl)
	LaneIdle     LaneStatus = "idle"     // queue empty, about to retire
)

// Snapshot is a cheap, self-contained copy of what the console shows. The UI pulls
// one on each tick; nothing in it aliases engine memory.
type Snapshot struct {
	At        time.Time
	State     State
	StartedAt time.Time
	NextRound time.Time // when the next round of the declared sites starts; zero without rounds
	// NextRevisit is when the soonest stored page is due for its revisit (M2, the
	// Revisit pane's first due row); zero with revisits off or none to come (every
	// page parked for good). An IDLE crawl between revisits says it.
	NextRevisit time.Time
	Totals      Totals
	PagesPerSec float64      // fetch rate over the last few seconds
	RateHistory []float64    // pages/s, one sample per second, oldest first (at most 120)
	QueueDepth  int          // URLs waiting for a lane (unprocessed)
	LanesBusy   int          // lanes that exist now
	LanesMax    int          // lanes.max
	Lanes       []Lane       // one row per lane, by ID
	Groups      []Group      // adjacency groups: what binds to which lane (M1)
	PausedHosts []string     // hosts paused by the operator, sorted
	Egresses    []string     // egress names in use (masked), in order
	LastEvent   uint64       // sequence number of the newest event in the ring
	DNS         *DNSView     // DNS cache pane (M5): hit rates, backlog, latency, negatives
	Egress      *EgressView  // Egress pane (M3): account table, rotation state, disable list
	Revisit     *RevisitView // Revisit pane (M2): due queue, refetches vs changes, windows, intervals
	Sites       *SitesView   // Sites pane: declared sites as steered; nil without any
	Stories     *StoriesView // Stories pane: articles found under several URLs; nil until one is
	Hosts       *HostsView   // Hosts pane: the hosts report, per host, site and egress
	Sizing      *Sizing      // VPN estimate and its inputs for the Egress pane (M3); nil without declared sites or rotation
	Render      *RenderStats // the headless browser's pool and renders; nil when pages are not rendered
	Nodes       []Node       // workers of a distributed crawl (M4), by name; nil on a single-process crawl
	// HeartbeatEvery is the workers' heartbeat period (M4); 0 on a single-process crawl.
	HeartbeatEvery time.Duration
	// Join is how a worker joins a master's crawl (M4), the command to paste; "" on
	// a single-process crawl or a worker.
	Join string
	// StoreError is why the crawl stopped itself (State FAILED): the store's write
	// error, e.g. "database or disk is full"; "" while the store is healthy.
	StoreError string
	// Discovery lists the sites with feeds or sitemaps (a declared site by its
	// name, a host no site holds by its registered domain), whether their dates are
	// trusted and why not (for the Sites pane); nil when discovery is off.
	Discovery []SiteDiscovery
}

// NodeState is what the master knows of one worker (M4, seed 003 heartbeats).
type NodeState string

// Worker states shown in the Nodes pane.
const (
	NodeActive  NodeState = "active"  // heartbeats arrive; it holds hosts and fetches
	NodePaused  NodeState = "paused"  // paused by the operator: it keeps its hosts, fetches nothing
	NodeLeaving NodeState = "leaving" // graceful leave: handing back what it has not fetched
	NodeDead    NodeState = "dead"    // silent past the heartbeat timeout: its hosts went to others
	NodeLeft    NodeState = "left"    // left gracefully: what it had not fetched went back, its hosts to others
)

// Node is one worker of a distributed crawl, as the master's Nodes pane shows it.
type Node struct {
	Name        string
	State       NodeState
	Heartbeat   time.Time     // when its last heartbeat arrived (master's clock)
	Joined      time.Time     // when it (last) joined
	Egresses    []string      // masked egress names it fetches through
	Lanes       int           // lanes alive on it
	LanesMax    int           // its lanes.max
	PagesPerSec float64       // its fetch rate over the last few seconds
	Queue       int           // tasks handed to it and not finished yet
	Hosts       int           // hosts its sites and keyword shards have URLs on
	Sites       int           // sites it holds (news sites, registered domains of other hosts; seed 003)
	Keywords    int           // keyword shards of social sites it holds (seed 003)
	Weight      float64       // its sites' and shards' share of the crawl's cost (seed 003 balancing; all workers add up to 1)
	Cost        time.Duration // fetch time of its sites and shards since the last balancing (seed 003 cost table)
	Results     int64         // results from it committed by the master
	Late        int64         // results from it dropped as already committed (at least once delivery)
}

// Totals are the crawl's running counters; the same figures go to --stats-json.
type Totals struct {
	PagesFetched int64            // responses received (any status)
	PagesStored  int64            // pages committed to the store
	BytesFetched int64            // body bytes received
	Refused      int64            // 403/429/ban or captcha pages
	Errors       map[string]int64 // error kind -> count (failures only)
	Warnings     map[string]int64 // warning kind -> count: discovery_* document warnings, no URL failed by them
	Skipped      map[string]int64 // skip kind -> count: robots.txt, noindex, scope, content type (IsSkip)
	ByClass      map[string]int64 // responses by status class ("2xx", "4xx", "other"); they add up to PagesFetched
	URLsQueued   int64            // URLs accepted into the frontier, with those an earlier run left queued or deferred (a resume)
	URLsDone     int64            // URLs finished (stored, failed or skipped)
	Deferred     int64            // URLs set aside (a disabled host, robots.txt not answering, a budget); they come back
	LanesPeak    int              // most lanes alive at once
	Robots       RobotsWaiting    // URLs waiting for their site's robots.txt to answer

	ConfirmFetches int64 // refetches that confirmed or cleared a soft refusal
}

// RobotsWaiting are the URLs set aside because their site's robots.txt did not
// answer (RFC 9309: everything disallowed for now), each counted once under the
// robots_unreachable error however often it is deferred again.
type RobotsWaiting struct {
	URLs  int64 `json:"urls"`  // waiting now: deferred, not fetched or ended since
	Sites int   `json:"sites"` // the hosts of those URLs
	// Waited is how many of robots_unreachable's URLs were counted as they were set
	// aside (the rest failed: a refetch whose robots.txt did not answer); those not
	// waiting now went on once robots.txt answered.
	Waited int64 `json:"waited"`
}

// Lane is one row of the thread-lanes pane (M1).
type Lane struct {
	ID        int
	Egress    string     // masked egress name this lane leaves from
	Hosts     []string   // hosts bound to the lane (of tasks it holds), sorted
	Parents   int        // distinct parent pages bound to the lane
	Current   string     // URL being fetched, or last fetched
	Status    LaneStatus //
	NextFetch time.Time  // when the lane may fetch next (zero if fetching/idle)
	Done      int64      // pages this lane has fetched
	Queued    int        // tasks waiting in this lane
	Paused    bool       // paused by the operator
	Node      string     // worker the lane runs on (M4); "" on a single-process crawl
	// Gap is the politeness gap of the lane's host (the host of Current, else its
	// first host): from the end of one response to the start of the next request to
	// it over every egress; GapWhy is the term that sets it: delay, crawl-delay,
	// latency or backoff.
	Gap    time.Duration
	GapWhy string
	// Rendering counts the lane's pages rendering now (the lane went on to its
	// next fetch); Rendered its pages rendered in a browser, RenderTime their
	// renders' time.
	Rendering  int
	Rendered   int64
	RenderTime time.Duration
}

// Group is one adjacency group: the hosts and parent pages bound to a lane (M1).
type Group struct {
	Node    string // worker the lane runs on (M4); "" on a single-process crawl
	Lane    int
	Egress  string
	Hosts   []HostRef
	Parents []ParentRef
}

// HostRef is a host bound to a lane with the number of its tasks the lane holds.
type HostRef struct {
	Host  string
	Tasks int
	// Gap and GapWhy are the host's politeness gap and the term that sets it (see
	// Lane.Gap).
	Gap    time.Duration
	GapWhy string
}

// ParentRef is a parent page bound to a lane: its URL hash, its URL when known, and
// the number of its children the lane holds.
type ParentRef struct {
	Hash  uint64
	URL   string
	Tasks int
}

// Level is the severity of an engine event.
type Level int

// Event levels, lowest first. The store keeps warnings and errors by these
// numbers, so a new level goes below the others rather than shifting them.
const (
	LevelDebug Level = iota
	LevelInfo
	LevelWarn
	LevelError
)

// LevelTrace is the crawl's routine mechanics, below what the Log pane shows by
// default: lanes opening and retiring come and go with every adjacency group, two
// rows each, hundreds a minute at full speed, and would bury the operator's own
// events and the warnings (the Lanes pane shows the lanes alive, the store's
// lanes table their history).
const LevelTrace Level = -1

// String names the level as the log pane shows it.
func (l Level) String() string {
	switch l {
	case LevelTrace:
		return "TRACE"
	case LevelDebug:
		return "DEBUG"
	case LevelInfo:
		return "INFO"
	case LevelWarn:
		return "WARN"
	default:
		return "ERROR"
	}
}

// Event is one entry of the engine's event ring (lane opened/retired, refusal,
// error, operator action, ...).
type Event struct {
	Seq   uint64
	At    time.Time
	Level Level
	Lane  int    // 0 when not about a lane
	Host  string // empty when not about a host
	Msg   string
}

// RebalancePlan is a proposed re-deal of lanes over egress addresses by observed
// cost. The console shows it and applies it on confirm.
//
// On a master (M4) it is seed 003's balancing instead: Workers is set, Units says
// which sites and keyword shards move between workers, Before/After give each
// worker's weight total (Egress is the worker's name, Lanes its units, Cost its
// weight), with the variance of the totals before and after.
type RebalancePlan struct {
	Moves   []LaneMove
	Before  []EgressLoad
	After   []EgressLoad
	Summary string // one line for the console, e.g. "move 3 lanes; spread 4.1s -> 0.6s"

	Workers        bool       // a plan over workers (seed 003), not over egresses
	Units          []UnitMove // sites and keyword shards that move
	VarianceBefore float64    // variance of the workers' weight totals
	VarianceAfter  float64
}

// UnitMove moves one assignment unit (a news site, a social site's keyword shard, the
// registered domain of other hosts) from one worker to another (seed 003).
type UnitMove struct {
	Unit     string
	From, To string
	Weight   float64 // average cost ÷ the sum of all (equal weights when unknown)
}

// LaneMove moves one lane (with its hosts) from one egress to another.
type LaneMove struct {
	Lane     int
	From, To string
	Cost     float64 // observed seconds of work queued on the lane
}

// EgressLoad is the observed load of one egress: lanes and estimated seconds of work.
type EgressLoad struct {
	Egress string
	Lanes  int
	Cost   float64
}
