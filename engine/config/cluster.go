package config

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// MasterOptions configures the master of a distributed crawl (M4, seed 002 with
// seed 003): it owns the frontier, dedupe and store, and hands the hosts' URLs to
// workers over NATS.
type MasterOptions struct {
	// Conn is the master's connection to its NATS server (embedded or --nats).
	Conn *cluster.Conn
	// Prefix is the subject prefix (DefaultClusterPrefix when empty).
	Prefix string
	// HeartbeatEvery is the workers' heartbeat period (default 5s); a worker silent
	// for Timeout (default 3 periods) is dead and its hosts go to others.
	HeartbeatEvery time.Duration
	Timeout        time.Duration
	// Window is how many tasks a worker holds at most (handed out, not yet reported;
	// default 512).
	Window int
	// BalanceEvery is how often the sites and keyword shards are re-dealt over the
	// workers by cost (seed 003: daily; default 24h; the console's rebalance key
	// does it on demand). BalanceThreshold is the gap between the slowest and the
	// fastest worker's weight total, as a share of the mean, below which nothing
	// moves (default 0.1).
	BalanceEvery     time.Duration
	BalanceThreshold float64
	// Join is the command a worker joins this crawl with (`crawlconsole worker --join
	// URL --name NAME ...`): the console shows it from its first frame, before any
	// worker came, and the log starts with it. "" shows nothing.
	Join string
}

// WorkerOptions configures a worker of a distributed crawl (M4): it runs M1 lanes,
// its egress rotation (M3), its DNS prefetch cache (M5) and fetching for the hosts the
// master gives it. It has no database: if it dies, nothing it held is lost.
type WorkerOptions struct {
	// Conn is the worker's connection to the master's NATS server.
	Conn *cluster.Conn
	// Prefix is the subject prefix (DefaultClusterPrefix when empty).
	Prefix string
	// Node is the worker's name (--name), unique in the crawl.
	Node string
	// Egress are the worker's own egress SPECs (bind:IP is local to its box); the
	// master grants more from its account table.
	Egress []string
	// DNSServers, when set, replace the master's dns_servers on this box.
	DNSServers []string
	// AllowPrivate opens CIDR ranges to this worker's SSRF guard (its own network's
	// policy, not the master's).
	AllowPrivate []string
	// LanesMax, when > 0, replaces the master's lanes.max on this box.
	LanesMax int
	// Resolver, when set (from code), replaces the DNS prefetch cache.
	Resolver fetch.Resolver
	// Browser, when set (from code), is a running browser the worker renders in
	// instead of starting its own (RenderOptions.Shared).
	Browser context.Context
	// JoinTimeout bounds waiting for the master to answer the join (default 30s).
	JoinTimeout time.Duration
	// LeaveGrace bounds how long Leave waits for the master's NATS server while the
	// connection to it is down (default DefaultLeaveGrace).
	LeaveGrace time.Duration
}

// DefaultLeaveGrace is how long a leaving worker waits for its master's NATS server
// to come back while its connection is down (the master killed, or out of reach)
// before it stops without handing everything back (a LeaveError says what).
const DefaultLeaveGrace = 5 * time.Second

// DefaultClusterPrefix is the subject prefix of a distributed crawl.
const DefaultClusterPrefix = "crawl"

// Defaults of MasterOptions and WorkerOptions.
const (
	defaultHeartbeatEvery = 5 * time.Second
	defaultWindow         = 512
	defaultBalanceEvery   = 24 * time.Hour
	defaultJoinTimeout    = 30 * time.Second
)

// WithDefaults fills what mo leaves unset, the balance period and threshold from the
// crawl's balance options b (the config file's balance:), and refuses a master
// without a connection.
func (mo MasterOptions) WithDefaults(b BalanceOptions) (MasterOptions, error) {
	if mo.Conn == nil {
		return mo, errors.New("master: no NATS connection")
	}
	if mo.Prefix == "" {
		mo.Prefix = DefaultClusterPrefix
	}
	if mo.HeartbeatEvery <= 0 {
		mo.HeartbeatEvery = defaultHeartbeatEvery
	}
	if mo.Timeout <= 0 {
		mo.Timeout = 3 * mo.HeartbeatEvery
	}
	if mo.Window <= 0 {
		mo.Window = defaultWindow
	}
	if mo.BalanceEvery <= 0 {
		mo.BalanceEvery = b.Every
	}
	if mo.BalanceEvery <= 0 {
		mo.BalanceEvery = defaultBalanceEvery
	}
	if mo.BalanceThreshold == 0 {
		mo.BalanceThreshold = b.Threshold
	}
	return mo, nil
}

// WithDefaults fills what o leaves unset and refuses a worker without a connection
// or with a name the crawl cannot use.
func (o WorkerOptions) WithDefaults() (WorkerOptions, error) {
	if o.Conn == nil {
		return o, errors.New("worker: no NATS connection")
	}
	if err := ValidNodeName(o.Node); err != nil {
		return o, err
	}
	if o.Prefix == "" {
		o.Prefix = DefaultClusterPrefix
	}
	if o.JoinTimeout <= 0 {
		o.JoinTimeout = defaultJoinTimeout
	}
	if o.LeaveGrace <= 0 {
		o.LeaveGrace = DefaultLeaveGrace
	}
	return o, nil
}

var nodeNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidNodeName checks a worker name: 1-64 letters, digits, '-' or '_' (it becomes
// part of NATS subjects and durable consumer names).
func ValidNodeName(name string) error {
	if !nodeNameRE.MatchString(name) {
		return fmt.Errorf("worker name %q: use 1-64 letters, digits, '-' or '_' (--name)", name)
	}
	return nil
}
