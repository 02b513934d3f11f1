package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/store"
)

// The messages between a master and its workers (M4), JSON over NATS. Subjects sit
// under a prefix (DefaultClusterPrefix):
//
//	PREFIX.join          worker -> master, request: wireJoin -> wireJoinReply
//	PREFIX.hb.NODE       worker -> master, request: wireHeartbeat -> wireHeartbeatReply
//	PREFIX.leave         worker -> master, request: wireLeave (graceful leave, tasks handed back)
//	PREFIX.task.NODE     master -> worker, JetStream stream PREFIX_TASKS: wireTasks
//	PREFIX.result.NODE   worker -> master, JetStream stream PREFIX_RESULTS: wireResult
//	PREFIX.ctl.NODE      master -> worker, request: wireControl -> wireControlReply
//	PREFIX.egress.claim  worker -> master, request: wireClaim -> wireClaimReply
//
// Tasks and results go through JetStream (file storage next to the master's
// database), so neither a worker's nor the master's death loses one: the master
// acknowledges a result only once it is committed, and commits a URL's result at most
// once (the lease it handed the URL out with).

// maxWireMessage bounds every message but results (a result carries a page body).
const maxWireMessage = 1 << 20

func checkNode(node, inc string) error {
	if err := config.ValidNodeName(node); err != nil {
		return err
	}
	if inc == "" || len(inc) > 64 {
		return errors.New("missing or oversize incarnation")
	}
	return nil
}

// wireJoin is a worker introducing itself (a new name, or a restart: a new
// incarnation of a known name).
type wireJoin struct {
	Node        string   `json:"node"`
	Incarnation string   `json:"inc"`
	LanesMax    int      `json:"lanes_max"`
	Egresses    []string `json:"egresses"` // its own egresses (masked), from its --egress
}

func (m *wireJoin) Validate() error { return checkNode(m.Node, m.Incarnation) }

// WorkerSettings are the crawl settings a master gives each worker at join: the
// worker's lanes, politeness and fetching follow the master's configuration.
type WorkerSettings struct {
	Lanes    LaneOptions `json:"lanes"`
	HostRate float64     `json:"host_rate"`
	// Politeness and Cookies are nil from a master that predates them: the worker
	// keeps its defaults.
	Politeness     *PolitenessOptions `json:"politeness,omitempty"`
	Cookies        *CookieOptions     `json:"cookies,omitempty"`
	Robots         bool               `json:"robots"`
	UserAgent      string             `json:"user_agent"`
	Etiquette      *EtiquetteOptions  `json:"etiquette,omitempty"`
	Fetch          FetchOptions       `json:"fetch"`
	DNS            DNSOptions         `json:"dns"`
	DNSServers     []string           `json:"dns_servers"`
	Rotation       RotationOptions    `json:"rotation"`
	HeartbeatEvery time.Duration      `json:"heartbeat_every"`
}

// wireEgress is an egress the master grants from its account table. The password
// travels only over the authenticated connection and is never printed or logged.
type wireEgress struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Address  string `json:"address"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
}

// spec is the grant as the worker's egress table takes it.
func (g wireEgress) spec() egress.Spec {
	sp := egress.Spec{Name: g.Name, Kind: egress.Kind(g.Kind), Address: g.Address, User: g.User}
	if g.Password != "" {
		sp.Secret = egress.NewSecret(g.Password)
	}
	return sp
}

// String keeps the password out of any log line.
func (g wireEgress) String() string { return g.Name + "=" + g.Kind + "://" + g.Address }

type wireJoinReply struct {
	Settings WorkerSettings `json:"settings"`
	Egress   []wireEgress   `json:"egress"`
	Paused   bool           `json:"paused"`
	PauseSeq uint64         `json:"pause_seq,omitempty"` // numbers Paused (see wireControl.Seq)
	Error    string         `json:"error,omitempty"`
}

func (m *wireJoinReply) Validate() error { return nil }

// wireHeartbeat is a worker's periodic sign of life (seed 003), with what the
// master's Nodes pane shows.
type wireHeartbeat struct {
	Node        string      `json:"node"`
	Incarnation string      `json:"inc"`
	Lanes       int         `json:"lanes"`
	LanesMax    int         `json:"lanes_max"`
	Queue       int         `json:"queue"`
	PagesPerSec float64     `json:"pages_per_s"`
	Egresses    []string    `json:"egresses"`
	Paused      bool        `json:"paused"`
	Rows        []Lane      `json:"rows,omitempty"`   // its lanes, for the master's Lanes pane
	Refused     int64       `json:"refused"`          // refusals its rotation rerouted (never reach the master as results)
	Egress      *EgressView `json:"egress,omitempty"` // its rotation state (M3), for the master's Egress pane
	DNS         *DNSView    `json:"dns,omitempty"`    // its DNS cache (M5), for the master's DNS pane
}

func (m *wireHeartbeat) Validate() error { return checkNode(m.Node, m.Incarnation) }

type wireHeartbeatReply struct {
	Known    bool   `json:"known"` // false: the master does not know this incarnation (it restarted): join again
	Paused   bool   `json:"paused"`
	PauseSeq uint64 `json:"pause_seq,omitempty"` // numbers Paused (see wireControl.Seq)
}

func (m *wireHeartbeatReply) Validate() error { return nil }

// wireTasks is a batch of URLs for the hosts a worker holds.
type wireTasks struct {
	Node        string          `json:"node"`
	Incarnation string          `json:"inc"`
	Tasks       []frontier.Task `json:"tasks"`
}

func (m *wireTasks) Validate() error {
	if err := checkNode(m.Node, m.Incarnation); err != nil {
		return err
	}
	for _, t := range m.Tasks {
		if t.URL == "" || t.Host == "" || t.Lease == 0 {
			return errors.New("task without URL, host or lease")
		}
	}
	return nil
}

// wireResult is one task's outcome, as the worker's lane produced it.
type wireResult struct {
	Node        string        `json:"node"`
	Incarnation string        `json:"inc"`
	Task        frontier.Task `json:"task"`
	Lane        int           `json:"lane"`
	Egress      string        `json:"egress"`
	Kind        string        `json:"kind,omitempty"`
	Res         *fetch.Result `json:"res,omitempty"`
	At          time.Time     `json:"at"`
	// ExchangesLen is the length of the encoded exchanges between the JSON header
	// and the body (wire_exchanges.go); 0 for none (and in frames written before).
	// They are Res's, or, with no Res, Hops.
	ExchangesLen int `json:"xl,omitempty"`
	// Hops are the responses a failed fetch received (Outcome.Hops), in the
	// frame's binary part like a response's exchanges.
	Hops []fetch.Exchange `json:"-"`
	// Refusals are the refusals the worker acted on since its last result, for
	// the master's store: `show URL` on the master says why.
	Refusals []store.Refusal `json:"refusals,omitempty"`
}

// maxWireRefusals bounds the refusals one result carries (a worker keeps no more
// between two results; refusals are a handful per host and ban).
const maxWireRefusals = 256

func (m *wireResult) Validate() error {
	if err := checkNode(m.Node, m.Incarnation); err != nil {
		return err
	}
	if m.Task.URL == "" || m.Task.Lease == 0 {
		return errors.New("result without URL or lease")
	}
	if len(m.Refusals) > maxWireRefusals {
		return fmt.Errorf("result with %d refusals, at most %d", len(m.Refusals), maxWireRefusals)
	}
	for _, r := range m.Refusals {
		if r.URL == "" || r.At.IsZero() {
			return errors.New("refusal without URL or time")
		}
	}
	if m.Kind == "" && m.Res == nil || m.Kind == kindDeferred && m.At.IsZero() {
		return errors.New("result with neither a response nor an error kind")
	}
	// The fetch time feeds seed 003's cost table: a negative or absurd one is refused.
	if m.Res != nil && (m.Res.Duration < 0 || m.Res.Duration > time.Hour) {
		return fmt.Errorf("result with a fetch time of %v", m.Res.Duration)
	}
	return nil
}

func (m *wireResult) outcome() Outcome {
	return Outcome{Task: m.Task, Lane: m.Lane, Egress: m.Egress, Node: m.Node, Kind: m.Kind, Res: m.Res, Hops: m.Hops, At: m.At}
}

// wireLeave is a worker's graceful leave: the tasks it hands back unfetched.
type wireLeave struct {
	Node        string          `json:"node"`
	Incarnation string          `json:"inc"`
	Tasks       []frontier.Task `json:"tasks"`
	Final       bool            `json:"final"` // its last results are published: it is gone
}

func (m *wireLeave) Validate() error { return checkNode(m.Node, m.Incarnation) }

// wireControl is the master steering one worker.
type wireControl struct {
	Op     string   `json:"op"`              // see Validate
	Hosts  []string `json:"hosts,omitempty"` // release: the hosts the units' tasks are on
	Units  []string `json:"units,omitempty"` // release: the assignment units moving away
	Host   string   `json:"host,omitempty"`  // remove_egress: the egress name
	Lane   int      `json:"lane,omitempty"`
	Paused bool     `json:"paused,omitempty"` // pause_lane, pause_host; disable_host: disable
	N      int      `json:"n,omitempty"`      // set_lanes
	Domain string   `json:"domain,omitempty"` // flush_dns
	// Seq numbers a crawl_pause or crawl_resume: the master counts up at every
	// crawl-wide pause and resume, and a worker ignores a state numbered below the
	// one it applied (a heartbeat reply can come after a later control, and two
	// broadcasts can overtake each other). 0: unnumbered, always applied.
	Seq uint64 `json:"seq,omitempty"`
	// Tasks are withdraw's hand-outs (URL and lease): sources the operator removed.
	Tasks []frontier.Task `json:"tasks,omitempty"`
}

func (m *wireControl) Validate() error {
	switch m.Op {
	case "pause", "resume", "crawl_pause", "crawl_resume", "release", "pause_lane", "rotate_lane", "pause_host", "disable_host", "set_lanes", "flush_dns", "remove_egress", "withdraw":
		return nil
	}
	return fmt.Errorf("unknown control %q", m.Op)
}

type wireControlReply struct {
	Tasks  []frontier.Task `json:"tasks,omitempty"`  // handed back (release)
	Result string          `json:"result,omitempty"` // rotate_lane: the egress; flush_dns: entries dropped; withdraw: tasks withdrawn
	Error  string          `json:"error,omitempty"`
}

func (m *wireControlReply) Validate() error { return nil }

// wireClaim is a worker whose egresses were all refused asking the master's account
// table for one more (seed 003 step 3-2-3).
type wireClaim struct {
	Node        string `json:"node"`
	Incarnation string `json:"inc"`
}

func (m *wireClaim) Validate() error { return checkNode(m.Node, m.Incarnation) }

type wireClaimReply struct {
	Egress *wireEgress `json:"egress,omitempty"` // nil: none free
	Error  string      `json:"error,omitempty"`
}

func (m *wireClaimReply) Validate() error { return nil }

// A result travels as a frame: a 4-byte big-endian length, the JSON of wireResult
// without the page body, then the body as raw bytes. Base64 inside JSON cost the
// master a third of its CPU per page (`go run ./bench distributed`).
const resultHeaderMax = 8 << 20 // the JSON part: headers, links, task

// encodeResult frames a result for the wire.
func encodeResult(r *wireResult) ([]byte, error) {
	var body, exchanges []byte
	meta := *r
	if r.Res != nil {
		res := *r.Res
		body, res.Body = res.Body, nil
		if len(res.Exchanges) > 0 {
			exchanges = appendExchanges(nil, res.Exchanges)
			res.Exchanges = nil
		}
		meta.Res = &res
	} else if len(r.Hops) > 0 {
		exchanges = appendExchanges(nil, r.Hops)
	}
	meta.Hops = nil
	meta.ExchangesLen = len(exchanges)
	js, err := cluster.Encode(&meta)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4, 4+len(js)+len(exchanges)+len(body))
	binary.BigEndian.PutUint32(out, uint32(len(js)))
	out = append(append(append(out, js...), exchanges...), body...)
	return out, nil
}

// decodeResult reads a frame; the body aliases data. Errors wrap
// cluster.ErrMalformed, so the master counts and drops a bad one.
func decodeResult(data []byte, r *wireResult) error {
	if len(data) < 4 {
		return fmt.Errorf("cluster: %w: result frame of %d bytes", cluster.ErrMalformed, len(data))
	}
	n := int(binary.BigEndian.Uint32(data))
	if n > len(data)-4 || n > resultHeaderMax {
		return fmt.Errorf("cluster: %w: result frame claims a %d-byte header in %d bytes", cluster.ErrMalformed, n, len(data))
	}
	if err := cluster.Decode(data[4:4+n], r, 0); err != nil {
		return err
	}
	body := data[4+n:]
	if xl := r.ExchangesLen; xl != 0 {
		if xl < 0 || xl > len(body) {
			return fmt.Errorf("cluster: %w: %w: %d bytes of exchanges in %d", cluster.ErrMalformed, cluster.ErrInvalid, xl, len(body))
		}
		xs, err := readExchanges(body[:xl])
		if err != nil {
			return fmt.Errorf("cluster: %w: %w", cluster.ErrMalformed, err)
		}
		switch {
		case r.Res != nil:
			r.Res.Exchanges = xs
		case len(xs) > 0: // a failed fetch's hops (Validate: it has a kind)
			r.Hops = xs
		default:
			return fmt.Errorf("cluster: %w: %w: empty exchanges without a response", cluster.ErrMalformed, cluster.ErrInvalid)
		}
		body = body[xl:]
	}
	if len(body) > 0 {
		if r.Res == nil {
			return fmt.Errorf("cluster: %w: %w: a body without a response", cluster.ErrMalformed, cluster.ErrInvalid)
		}
		r.Res.Body = body
	}
	return nil
}
