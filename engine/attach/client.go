package attach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// StateUnreachable is the State of a snapshot a Client could not get: the last one
// it got, with this state, so the console's header says "master unreachable" over
// the figures it last saw (which stop moving).
const StateUnreachable view.State = "master unreachable"

// StateCrawlUnreachable is StateUnreachable when the last snapshot came from a
// one-box crawl's (or demo's) operator port: no master is involved.
const StateCrawlUnreachable view.State = "crawl unreachable"

// Unreachable says whether state is one a Client gives a snapshot it could not get.
func Unreachable(state view.State) bool {
	return state == StateUnreachable || state == StateCrawlUnreachable
}

// DefaultTimeout is how long a Client waits for the master's reply.
const DefaultTimeout = 2 * time.Second

// Client is an control.Control that reaches a crawl served with Serve. Give it to
// ui.Run or ui.NewModel like a local engine. It is safe for concurrent use.
type Client struct {
	nc      *nats.Conn
	subj    subjects
	timeout time.Duration
	badDial error // a prefix Dial could not use: every call fails with it

	mu   sync.Mutex
	last []byte // the last snapshot received, as JSON
	err  error  // the outcome of the last request
}

var _ control.Control = (*Client)(nil)

// Option tunes a Client.
type Option func(*Client)

// WithTimeout sets how long a request waits for the master (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// Dial returns a Control that sends its calls to the crawl served under prefix on
// nc. It does not wait for the master: a master that is not there yet shows as
// unreachable until it answers.
func Dial(nc *nats.Conn, prefix string, opts ...Option) *Client {
	c := &Client{nc: nc, timeout: DefaultTimeout}
	c.subj, c.badDial = subjectsOf(prefix)
	if nc == nil && c.badDial == nil {
		c.badDial = errors.New("attach: no NATS connection")
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Err is the error of the last request, nil if it was answered. Pause and Resume
// have no error of their own to return; this is where their failure shows.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// request sends one request and returns the reply body, decompressed. A refused
// request comes back as its error.
func (c *Client) request(subject string, body []byte) ([]byte, error) {
	out, err := c.roundTrip(subject, body)
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	return out, err
}

func (c *Client) roundTrip(subject string, body []byte) ([]byte, error) {
	if c.badDial != nil {
		return nil, c.badDial
	}
	m, err := c.nc.Request(subject, body, c.timeout)
	if err != nil {
		return nil, fmt.Errorf("master unreachable: %w", err)
	}
	data := m.Data
	if m.Header.Get(encodingHeader) == encodingZstd {
		if data, err = zstdDec.DecodeAll(m.Data, nil); err != nil {
			return nil, fmt.Errorf("master's reply: %w", err)
		}
	}
	if text := m.Header.Get(errorHeader); text != "" {
		return nil, errors.New(text)
	}
	// Without headers (an old server), a refusal is an object with only "error".
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		var rep controlReply
		if json.Unmarshal(data, &rep) == nil && rep.Error != "" && rep.Result == nil && subject != c.subj.control {
			return nil, errors.New(rep.Error)
		}
	}
	return data, nil
}

// zstdDec decompresses big replies; 256 MiB bounds what a damaged frame may claim.
var zstdDec = func() *zstd.Decoder {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(256<<20), zstd.WithDecoderConcurrency(0))
	if err != nil {
		panic(err) // only for invalid options, which are constants here
	}
	return dec
}()

// Snapshot asks the master for its snapshot. When it cannot get one it returns the
// last one it got with State StateUnreachable (a zero snapshot before the first), or
// StateCrawlUnreachable if that one came from a one-box crawl.
func (c *Client) Snapshot() view.Snapshot {
	body, err := c.request(c.subj.snapshot, nil)
	var s view.Snapshot
	if err == nil {
		if err = json.Unmarshal(body, &s); err == nil {
			c.mu.Lock()
			c.last = body
			c.mu.Unlock()
			return s
		}
		c.mu.Lock()
		c.err = fmt.Errorf("master's snapshot: %w", err)
		c.mu.Unlock()
	}
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	s = view.Snapshot{}
	if last != nil {
		_ = json.Unmarshal(last, &s) // decoded once already; a fresh copy for the caller
	}
	s.State = StateUnreachable
	if last != nil && s.HeartbeatEvery == 0 && len(s.Nodes) == 0 {
		s.State = StateCrawlUnreachable // a one-box crawl has no workers and no heartbeat
	}
	return s
}

// EventsSince asks the master for up to max events after the given one; none when
// it cannot be reached.
func (c *Client) EventsSince(after uint64, max int) []view.Event {
	if max <= 0 {
		return nil
	}
	req, _ := json.Marshal(eventsRequest{After: after, Max: max})
	body, err := c.request(c.subj.events, req)
	if err != nil {
		return nil
	}
	var evs []view.Event
	if err := json.Unmarshal(body, &evs); err != nil {
		c.mu.Lock()
		c.err = fmt.Errorf("master's events: %w", err)
		c.mu.Unlock()
		return nil
	}
	if len(evs) == 0 {
		return nil
	}
	return evs
}

// call sends one control request and decodes its result into result (if not nil).
func (c *Client) call(op string, args controlArgs, result any) error {
	req, err := json.Marshal(struct {
		Op   string      `json:"op"`
		Args controlArgs `json:"args"`
	}{op, args})
	if err != nil {
		return err
	}
	body, err := c.request(c.subj.control, req)
	if err != nil {
		return err
	}
	var rep controlReply
	if err := json.Unmarshal(body, &rep); err != nil {
		return fmt.Errorf("master's reply to %s: %w", op, err)
	}
	if rep.Error != "" {
		return errors.New(rep.Error)
	}
	if result != nil {
		if err := json.Unmarshal(rep.Result, result); err != nil {
			return fmt.Errorf("master's reply to %s: %w", op, err)
		}
	}
	return nil
}

// Pause pauses the whole crawl (every worker). A failure shows in Err and in the
// next Snapshot.
func (c *Client) Pause() { _ = c.call("pause", controlArgs{}, nil) }

// Resume undoes Pause.
func (c *Client) Resume() { _ = c.call("resume", controlArgs{}, nil) }

// PauseLane pauses or resumes one lane.
func (c *Client) PauseLane(id int, paused bool) error {
	return c.call("pause_lane", controlArgs{ID: &id, Paused: &paused}, nil)
}

// PauseNode pauses or resumes one worker (M4).
func (c *Client) PauseNode(name string, paused bool) error {
	return c.call("pause_node", controlArgs{Name: &name, Paused: &paused}, nil)
}

// PauseHost pauses or resumes fetches to one host.
func (c *Client) PauseHost(host string, paused bool) error {
	return c.call("pause_host", controlArgs{Host: &host, Paused: &paused}, nil)
}

// KnowsHost asks whether the crawl has seen host (a seed, a URL in its store).
func (c *Client) KnowsHost(host string) (bool, error) {
	var known bool
	err := c.call("knows_host", controlArgs{Host: &host}, &known)
	return known, err
}

// SetMaxLanes changes lanes.max.
func (c *Client) SetMaxLanes(n int) error {
	return c.call("set_max_lanes", controlArgs{N: &n}, nil)
}

// PlanRebalance asks the master for a rebalance plan; an empty plan saying why
// when it cannot be reached.
func (c *Client) PlanRebalance() view.RebalancePlan {
	var p view.RebalancePlan
	if err := c.call("plan_rebalance", controlArgs{}, &p); err != nil {
		return view.RebalancePlan{Summary: "no plan: " + err.Error()}
	}
	return p
}

// ApplyRebalance carries out a plan PlanRebalance returned.
func (c *Client) ApplyRebalance(p view.RebalancePlan) error {
	return c.call("apply_rebalance", controlArgs{Plan: &p}, nil)
}

// RotateLane moves a lane to another egress; it returns the egress.
func (c *Client) RotateLane(id int) (string, error) {
	var to string
	err := c.call("rotate_lane", controlArgs{ID: &id}, &to)
	return to, err
}

// SetHostDisabled puts a host on the host_disable_list or takes it off (M3).
func (c *Client) SetHostDisabled(host string, disabled bool) error {
	return c.call("set_host_disabled", controlArgs{Host: &host, Disabled: &disabled}, nil)
}

// AddEgress adds an egress SPEC on the master; it returns its name.
func (c *Client) AddEgress(spec string) (string, error) {
	var name string
	err := c.call("add_egress", controlArgs{Spec: &spec}, &name)
	return name, err
}

// RemoveEgress takes an egress out.
func (c *Client) RemoveEgress(name string) error {
	return c.call("remove_egress", controlArgs{Name: &name}, nil)
}

// FlushDNS drops cached DNS answers for a domain, or all if ""; it returns how
// many went.
func (c *Client) FlushDNS(domain string) (int, error) {
	var n int
	err := c.call("flush_dns", controlArgs{Domain: &domain}, &n)
	return n, err
}

// RevisitNow puts a stored page back in the crawl queue at once (M2).
func (c *Client) RevisitNow(url string) error {
	return c.call("revisit_now", controlArgs{URL: &url}, nil)
}

// Steer makes a live steering change on the master; it returns what
// happened. `crawlconsole ctl --attach URL ...` is this call from a shell.
func (c *Client) Steer(s steer.Change) (string, error) {
	var text string
	err := c.call("steer", controlArgs{Steer: &s}, &text)
	return text, err
}
