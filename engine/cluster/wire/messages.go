package wire

import (
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// MaxMessage bounds every message but results (a result carries a page body).
const MaxMessage = 1 << 20

// MaxRefusals bounds the refusals one result or deferral carries (a worker keeps no
// more between two reports; refusals are a handful per host and ban).
const MaxRefusals = 256

func checkNode(node, inc string) error {
	if err := config.ValidNodeName(node); err != nil {
		return err
	}
	if inc == "" || len(inc) > 64 {
		return errors.New("missing or oversize incarnation")
	}
	return nil
}

// Join is a worker introducing itself (a new name, or a restart: a new incarnation
// of a known name).
type Join struct {
	Node        string   `json:"node"`
	Incarnation string   `json:"inc"`
	LanesMax    int      `json:"lanes_max"`
	Egresses    []string `json:"egresses"` // its own egresses (masked), from its --egress
	// Holding are the tasks a rejoining worker still holds (queued on its board or
	// in a lane's hand), at most MaxHolding: a master that restarted, or declared
	// it dead, takes back those nobody else holds instead of queueing them again.
	Holding []frontier.Task `json:"holding,omitempty"`
	// Paused: the operator paused this worker and it was not resumed since. A
	// master that holds no pause or resume of it (one restarted since) holds the
	// pause again from the join on, as from a heartbeat's Paused, and deals the
	// worker no site while another is active. Omitted by a worker of an older
	// version: paused again at its first heartbeat.
	Paused bool `json:"paused,omitempty"`
}

// MaxHolding bounds the tasks a join claims (a worker holds the master's window of
// them, 512 by default, and its lanes'); those beyond it are dropped by the worker
// and queued again by the master.
const MaxHolding = 4096

// MaxJoin bounds a join message (its claims).
const MaxJoin = 16 * MaxMessage

// TaskAckWait is how long a worker's task consumer waits for a batch it pulled to be
// taken before the server delivers it again: a batch pulled by a consumption the
// worker replaced (at a rejoin) reaches it only then.
const TaskAckWait = 30 * time.Second

// Validate checks the worker's name and incarnation and bounds its claims.
func (m *Join) Validate() error {
	if len(m.Holding) > MaxHolding {
		return fmt.Errorf("join claims %d tasks, at most %d", len(m.Holding), MaxHolding)
	}
	return checkNode(m.Node, m.Incarnation)
}

// Settings are the crawl settings a master gives each worker at join: the worker's
// lanes, politeness and fetching follow the master's configuration.
type Settings struct {
	Lanes    config.LaneOptions `json:"lanes"`
	HostRate float64            `json:"host_rate"`
	// Politeness and Cookies are nil from a master that predates them: the worker
	// keeps its defaults.
	Politeness     *config.PolitenessOptions `json:"politeness,omitempty"`
	Cookies        *config.CookieOptions     `json:"cookies,omitempty"`
	Robots         bool                      `json:"robots"`
	UserAgent      string                    `json:"user_agent"`
	Etiquette      *config.EtiquetteOptions  `json:"etiquette,omitempty"`
	Fetch          config.FetchOptions       `json:"fetch"`
	DNS            config.DNSOptions         `json:"dns"`
	DNSServers     []string                  `json:"dns_servers"`
	Rotation       config.RotationOptions    `json:"rotation"`
	HeartbeatEvery time.Duration             `json:"heartbeat_every"`
	// Discovery is whether the worker's fetcher reads feeds and sitemaps, and
	// the decoded size they may have (discovery.enabled, max_document_bytes): a
	// sitemap the master's crawl accepts is fetched whole. nil from a master that
	// predates it: the worker's defaults.
	Discovery *DiscoveryLimits `json:"discovery,omitempty"`
	// Render is how the worker renders pages built by script (its browser is its
	// own: Browser is not the master's path); nil from a master that predates it.
	Render *config.RenderOptions `json:"render,omitempty"`
	// RenderVerdicts are the render verdicts the crawl learned (engine/render.Verdicts:
	// a section of a host to whether its pages need rendering), so that a worker
	// does not learn again what another worker, or the last run, did.
	RenderVerdicts map[string]bool `json:"render_verdicts,omitempty"`
}

// DiscoveryLimits are the discovery options a worker's fetcher follows.
type DiscoveryLimits struct {
	Enabled          bool `json:"enabled"`
	MaxDocumentBytes int  `json:"max_document_bytes"`
}

// Egress is an egress the master grants from its account table. The password
// travels only over the authenticated connection and is never printed or logged.
type Egress struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Address  string `json:"address"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
}

// Grant is an account of the master's table as a worker receives it (with its
// password: the connection is authenticated).
func Grant(a egress.Account) Egress {
	return Egress{Name: a.Name, Kind: string(a.Kind), Address: a.Address, User: a.User, Password: a.Secret.Reveal()}
}

// Spec is the grant as the worker's egress table takes it.
func (g Egress) Spec() egress.Spec {
	sp := egress.Spec{Name: g.Name, Kind: egress.Kind(g.Kind), Address: g.Address, User: g.User}
	if g.Password != "" {
		sp.Secret = egress.NewSecret(g.Password)
	}
	return sp
}

// String keeps the password out of any log line.
func (g Egress) String() string { return g.Name + "=" + g.Kind + "://" + g.Address }

// JoinReply is the master's answer to a Join.
type JoinReply struct {
	Settings Settings `json:"settings"`
	Egress   []Egress `json:"egress"`
	Paused   bool     `json:"paused"`
	PauseSeq uint64   `json:"pause_seq,omitempty"` // numbers Paused (see Control.Seq)
	// NodePaused: the operator paused this worker (by name, on the Nodes pane or
	// with ctl) and did not resume it: a worker restarted or rejoining stays
	// paused. NodeSeq numbers it as the pause and resume controls are; 0: this
	// master recorded no pause or resume of the worker, which keeps its own (a
	// pause from the master's earlier life).
	NodePaused bool   `json:"node_paused,omitempty"`
	NodeSeq    uint64 `json:"node_seq,omitempty"`
	// LanesMax is the lanes.max the operator last set on the master (set_lanes),
	// numbered by LanesSeq as the controls are (Control.Seq): a worker that was not
	// live when it was sent (joining later, or declared dead then) runs it too. 0:
	// not set, the worker keeps its own.
	LanesMax int    `json:"lanes_max,omitempty"`
	LanesSeq uint64 `json:"lanes_seq,omitempty"`
	// PausedHosts and DisabledHosts are the hosts the operator paused (pause_host)
	// and disabled (disable_host) on the master and did not let go since, as of the
	// host control numbered HostsSeq (Control.Seq): a worker that was not live when
	// they were sent (joining later, restarted, or declared dead then) holds them
	// too, and lets go those it holds from the master that are no longer listed,
	// unless a control numbered above HostsSeq reached it first. HostsSeq 0: not
	// said (a master of an older version), the worker keeps what it holds.
	PausedHosts   []string `json:"paused_hosts,omitempty"`
	DisabledHosts []string `json:"disabled_hosts,omitempty"`
	HostsSeq      uint64   `json:"hosts_seq,omitempty"`
	// DisabledFor is, by host of DisabledHosts, what is left of its disable on
	// the master (Control.For).
	DisabledFor map[string]time.Duration `json:"disabled_for,omitempty"`
	// Lease is how long the worker holds its hosts from the moment it sent the
	// join (its own clock); every known heartbeat renews it the same way. 0: no
	// lease (a master that predates them).
	Lease time.Duration `json:"lease,omitempty"`
	// Kept are the leases of the claimed tasks (Join.Holding) the master took back:
	// the worker goes on with those and drops the others unfetched.
	Kept []uint64 `json:"kept,omitempty"`
	// LastRequest is Tasks.LastRequest for the hosts of the tasks kept.
	LastRequest map[string]time.Time `json:"last_request,omitempty"`
	// Since is the first lease the worker's new life can be handed: a task
	// numbered below it and not in Kept was handed to a life the master ended
	// (it queued the task again), and the worker drops it unfetched wherever it
	// meets it, a batch of that life reaching it late included. 0: not said (a
	// master of an older version).
	Since uint64 `json:"since,omitempty"`
	Error string `json:"error,omitempty"`
}

// Validate accepts any reply: an error travels in Error.
func (m *JoinReply) Validate() error { return nil }

// Heartbeat is a worker's periodic sign of life, with what the master's Nodes pane
// shows.
type Heartbeat struct {
	Node        string           `json:"node"`
	Incarnation string           `json:"inc"`
	Lanes       int              `json:"lanes"`
	LanesMax    int              `json:"lanes_max"`
	Queue       int              `json:"queue"`
	PagesPerSec float64          `json:"pages_per_s"`
	Egresses    []string         `json:"egresses"`
	Paused      bool             `json:"paused"`
	Rows        []view.Lane      `json:"rows,omitempty"`   // its lanes, for the master's Lanes pane
	Refused     int64            `json:"refused"`          // refusals its rotation rerouted (never reach the master as results)
	Egress      *view.EgressView `json:"egress,omitempty"` // its rotation state (M3), for the master's Egress pane
	DNS         *view.DNSView    `json:"dns,omitempty"`    // its DNS cache (M5), for the master's DNS pane
	// HandedBack are the tasks released units took off the worker's board that no
	// heartbeat reply has confirmed yet: a release's own reply is lost when it
	// comes after the master's request timed out, and the master would then wait
	// for their results for good. Taking them back twice is harmless (by lease).
	HandedBack []frontier.Task `json:"handed_back,omitempty"`
	// Idle: the worker holds no task (none on its board, none in a lane's hand, no
	// report its server has not acknowledged). A master counting tasks handed to it
	// for a whole lease of such heartbeats takes them back (they never reached it).
	Idle bool `json:"idle,omitempty"`
	// LastReport is the results stream's sequence of the worker's last report the
	// server stored: until the master has read the stream that far, a report of a
	// task it counts handed out may still be on its way.
	LastReport uint64 `json:"last_report,omitempty"`
}

// Validate checks the worker's name and incarnation.
func (m *Heartbeat) Validate() error { return checkNode(m.Node, m.Incarnation) }

// HeartbeatReply is the master's answer to a Heartbeat.
type HeartbeatReply struct {
	Known    bool   `json:"known"` // false: the master does not know this incarnation (it restarted): join again
	Paused   bool   `json:"paused"`
	PauseSeq uint64 `json:"pause_seq,omitempty"` // numbers Paused (see Control.Seq)
	// NodePaused and NodeSeq are JoinReply's: a pause or resume of this worker
	// its control did not bring reaches it so. Known only.
	NodePaused bool   `json:"node_paused,omitempty"`
	NodeSeq    uint64 `json:"node_seq,omitempty"`
	// Lease renews the worker's hold on its hosts: until the heartbeat's sending
	// plus Lease, on the worker's clock (JoinReply.Lease). Known only.
	Lease time.Duration `json:"lease,omitempty"`
}

// Validate accepts any reply.
func (m *HeartbeatReply) Validate() error { return nil }

// Tasks is a batch of URLs for the hosts a worker holds.
type Tasks struct {
	Node        string          `json:"node"`
	Incarnation string          `json:"inc"`
	Tasks       []frontier.Task `json:"tasks"`
	// LastRequest is, by host of the batch, when the last request to it ended as
	// far as the master knows (a result's end; for a worker declared dead holding
	// it, the end of its lease): the gate counts the host's gap from there, so a
	// host that changes hands keeps its politeness.
	LastRequest map[string]time.Time `json:"last_request,omitempty"`
}

// Validate checks the addressee and that every task has a URL, a host and a lease.
func (m *Tasks) Validate() error {
	if err := checkNode(m.Node, m.Incarnation); err != nil {
		return err
	}
	for _, t := range m.Tasks {
		if t.URL == "" || t.Host == "" || t.Lease == 0 {
			return errors.New("task without URL, host or lease")
		}
	}
	if len(m.LastRequest) > len(m.Tasks) {
		return errors.New("more last requests than tasks")
	}
	return nil
}

// Leave is a worker's graceful leave: the tasks it hands back unfetched.
type Leave struct {
	Node        string          `json:"node"`
	Incarnation string          `json:"inc"`
	Tasks       []frontier.Task `json:"tasks"`
	Final       bool            `json:"final"` // its last results are published: it is gone
}

// Validate checks the worker's name and incarnation.
func (m *Leave) Validate() error { return checkNode(m.Node, m.Incarnation) }

// The operations of a Control.
const (
	OpPause        = "pause"         // this worker (the Nodes pane)
	OpResume       = "resume"        // this worker
	OpCrawlPause   = "crawl_pause"   // the whole crawl, numbered by Seq
	OpCrawlResume  = "crawl_resume"  // the whole crawl, numbered by Seq
	OpRelease      = "release"       // hand back the tasks of Units (on Hosts)
	OpWithdraw     = "withdraw"      // drop Tasks, sources the operator removed
	OpPauseLane    = "pause_lane"    // Lane, Paused
	OpRotateLane   = "rotate_lane"   // Lane; the reply's Result is the new egress
	OpPauseHost    = "pause_host"    // Host, Paused
	OpDisableHost  = "disable_host"  // Host, Paused (disable)
	OpSetLanes     = "set_lanes"     // N
	OpFlushDNS     = "flush_dns"     // Domain; the reply's Result is the entries dropped
	OpRemoveEgress = "remove_egress" // Host (the egress name)
)

// Control is the master steering one worker.
type Control struct {
	Op     string   `json:"op"`              // one of the Op constants
	Hosts  []string `json:"hosts,omitempty"` // release: the hosts the units' tasks are on
	Units  []string `json:"units,omitempty"` // release: the assignment units moving away
	Host   string   `json:"host,omitempty"`  // remove_egress: the egress name
	Lane   int      `json:"lane,omitempty"`
	Paused bool     `json:"paused,omitempty"` // pause_lane, pause_host; disable_host: disable
	N      int      `json:"n,omitempty"`      // set_lanes
	// For is how long a disable_host lasts from its receipt: what is left of the
	// master's, so that every worker lets the host go when the master does (0:
	// the worker's rotation.disable_for).
	For    time.Duration `json:"for,omitempty"`
	Domain string        `json:"domain,omitempty"` // flush_dns
	// Seq numbers a crawl_pause or crawl_resume: the master counts up at every
	// crawl-wide pause and resume, and a worker ignores a state numbered below the
	// one it applied (a heartbeat reply can come after a later control, and two
	// broadcasts can overtake each other). 0: unnumbered, always applied. A
	// pause or resume of the worker is numbered likewise, against the join and
	// heartbeat replies' NodeSeq, a set_lanes against the join reply's LanesSeq, and a
	// pause_host or disable_host against its HostsSeq (per host).
	Seq uint64 `json:"seq,omitempty"`
	// Tasks are withdraw's hand-outs (URL and lease): sources the operator removed.
	Tasks []frontier.Task `json:"tasks,omitempty"`
	// Lease is release's last lease handed out when the master asked: the tasks
	// of Units (with no unit, a budget's recall: of Hosts) numbered up to it that
	// reach the worker afterwards (their batch was on its way) are handed back
	// too. 0: only those on the board.
	Lease uint64 `json:"lease,omitempty"`
}

// Validate refuses an operation this version does not know.
func (m *Control) Validate() error {
	switch m.Op {
	case OpPause, OpResume, OpCrawlPause, OpCrawlResume, OpRelease, OpPauseLane, OpRotateLane, OpPauseHost,
		OpDisableHost, OpSetLanes, OpFlushDNS, OpRemoveEgress, OpWithdraw:
		return nil
	}
	return fmt.Errorf("unknown control %q", m.Op)
}

// ControlReply is a worker's answer to a Control (and the master's to a Leave).
type ControlReply struct {
	Tasks  []frontier.Task `json:"tasks,omitempty"`  // handed back (release)
	Result string          `json:"result,omitempty"` // rotate_lane: the egress; flush_dns: entries dropped; withdraw: tasks withdrawn
	Error  string          `json:"error,omitempty"`
}

// Validate accepts any reply: an error travels in Error.
func (m *ControlReply) Validate() error { return nil }

// Claim is a worker whose egresses were all refused asking the master's account
// table for one more.
type Claim struct {
	Node        string `json:"node"`
	Incarnation string `json:"inc"`
}

// Validate checks the worker's name and incarnation.
func (m *Claim) Validate() error { return checkNode(m.Node, m.Incarnation) }

// ClaimReply is the master's answer to a Claim.
type ClaimReply struct {
	Egress *Egress `json:"egress,omitempty"` // nil: none free
	Error  string  `json:"error,omitempty"`
}

// Validate accepts any reply: an error travels in Error.
func (m *ClaimReply) Validate() error { return nil }
