// Package attach carries the console over NATS (M4): the master of a distributed
// crawl serves its control.Control with Serve, and a console anywhere on the NATS
// network drives it through the control.Control that Dial returns, so the operator
// steers the whole crawl from one terminal that is not the master's.
//
// Three request/reply subjects sit under a prefix (the cluster's subject prefix):
//
//	PREFIX.console.snapshot  request: empty                   reply: JSON view.Snapshot
//	PREFIX.console.events    request: {"after":N,"max":M}     reply: JSON []view.Event
//	PREFIX.console.control   request: {"op":OP,"args":{...}}  reply: {"result":R,"error":"..."}
//
// OP is one Control method in snake case (pause, resume, pause_lane, pause_node,
// ...; see ops); R is the method's result when it has one: an egress name for
// rotate_lane and add_egress, a count for flush_dns, a plan for plan_rebalance. A
// request over MaxRequest bytes, or one that does not parse, is answered with
// {"error":"..."} (and the Nats-Service-Error header) and counted; it never takes the
// master down. A reply too big for the connection's max payload goes zstd-compressed
// with the header Content-Encoding: zstd.
//
// The operator's egress specs (":egress add") travel in control requests: use a TLS
// NATS connection when the network is not trusted. Passwords given as ${env:VAR}
// or ${file:PATH} are resolved on the master.
package attach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// MaxRequest is the largest request the server reads (1 MiB); a larger one is
// answered with an error.
const MaxRequest = 1 << 20

// Subject suffixes, after PREFIX.
const (
	snapshotSuffix = ".console.snapshot"
	eventsSuffix   = ".console.events"
	controlSuffix  = ".console.control"
)

// Headers of a reply.
const (
	errorHeader     = "Nats-Service-Error"      // the error text of a refused request (NATS services convention)
	errorCodeHeader = "Nats-Service-Error-Code" // 400: the request was bad; 500: serving it failed
	encodingHeader  = "Content-Encoding"        // "zstd" when the body is compressed
	encodingZstd    = "zstd"
)

// subjects are the three subjects of one prefix.
type subjects struct {
	snapshot, events, control string
}

func subjectsOf(prefix string) (subjects, error) {
	if err := CheckPrefix(prefix); err != nil {
		return subjects{}, err
	}
	return subjects{prefix + snapshotSuffix, prefix + eventsSuffix, prefix + controlSuffix}, nil
}

// CheckPrefix accepts a literal NATS subject: dot-separated tokens, no wildcards,
// no white space (ctl checks --prefix with it before connecting).
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return errors.New("attach: empty subject prefix")
	}
	for _, tok := range strings.Split(prefix, ".") {
		if tok == "" || tok == "*" || tok == ">" || strings.ContainsAny(tok, " \t\r\n") {
			return fmt.Errorf("attach: subject prefix %q is not a literal NATS subject", prefix)
		}
	}
	return nil
}

// eventsRequest asks for up to Max events with Seq > After (EventsSince).
type eventsRequest struct {
	After uint64 `json:"after"`
	Max   int    `json:"max"`
}

// maxEvents caps one events reply; the console asks for at most its log capacity.
const maxEvents = 10000

// controlRequest is one Control call: the op and its arguments.
type controlRequest struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args,omitempty"`
}

// controlReply is the outcome of a control request, and the body of any refused
// request (Error set).
type controlReply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// controlArgs are the arguments of every op; each op takes exactly the ones it
// names (op.args), so a missing or stray argument is a bad request, not a zero.
type controlArgs struct {
	ID       *int                `json:"id,omitempty"`
	Name     *string             `json:"name,omitempty"`
	Host     *string             `json:"host,omitempty"`
	Paused   *bool               `json:"paused,omitempty"`
	Disabled *bool               `json:"disabled,omitempty"`
	N        *int                `json:"n,omitempty"`
	Plan     *view.RebalancePlan `json:"plan,omitempty"`
	Spec     *string             `json:"spec,omitempty"`
	Domain   *string             `json:"domain,omitempty"`
	URL      *string             `json:"url,omitempty"`
	Steer    *steer.Change       `json:"steer,omitempty"`
}

// op is one Control method as a control request: the arguments it takes and the
// call. run may dereference exactly those arguments: they were checked.
type op struct {
	args []string
	run  func(ctrl control.Control, a *controlArgs) (any, error)
}

// ops maps every Control method but Snapshot and EventsSince (they have their own
// subjects) to its op name, the method's name in snake case.
var ops = map[string]op{
	"pause":  {run: func(c control.Control, _ *controlArgs) (any, error) { c.Pause(); return nil, nil }},
	"resume": {run: func(c control.Control, _ *controlArgs) (any, error) { c.Resume(); return nil, nil }},
	"pause_lane": {args: []string{"id", "paused"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.PauseLane(*a.ID, *a.Paused)
	}},
	"pause_node": {args: []string{"name", "paused"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.PauseNode(*a.Name, *a.Paused)
	}},
	"pause_host": {args: []string{"host", "paused"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.PauseHost(*a.Host, *a.Paused)
	}},
	"knows_host": {args: []string{"host"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return c.KnowsHost(*a.Host)
	}},
	"set_max_lanes": {args: []string{"n"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.SetMaxLanes(*a.N)
	}},
	"plan_rebalance": {run: func(c control.Control, _ *controlArgs) (any, error) {
		return c.PlanRebalance(), nil
	}},
	"apply_rebalance": {args: []string{"plan"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.ApplyRebalance(*a.Plan)
	}},
	"rotate_lane": {args: []string{"id"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return c.RotateLane(*a.ID)
	}},
	"set_host_disabled": {args: []string{"host", "disabled"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.SetHostDisabled(*a.Host, *a.Disabled)
	}},
	"add_egress": {args: []string{"spec"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return c.AddEgress(*a.Spec)
	}},
	"remove_egress": {args: []string{"name"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.RemoveEgress(*a.Name)
	}},
	"flush_dns": {args: []string{"domain"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return c.FlushDNS(*a.Domain)
	}},
	"revisit_now": {args: []string{"url"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return nil, c.RevisitNow(*a.URL)
	}},
	"steer": {args: []string{"steer"}, run: func(c control.Control, a *controlArgs) (any, error) {
		return c.Steer(*a.Steer)
	}},
}

// present lists the arguments a request carries, by their JSON names.
func (a *controlArgs) present() []string {
	var out []string
	v := reflect.ValueOf(a).Elem()
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// parseControl reads a control request and checks its op and arguments.
func parseControl(data []byte) (op, *controlArgs, error) {
	var req controlRequest
	if err := decodeStrict(data, &req); err != nil {
		return op{}, nil, err
	}
	o, ok := ops[req.Op]
	if !ok {
		return op{}, nil, fmt.Errorf("unknown op %q", req.Op)
	}
	a := &controlArgs{}
	if len(req.Args) > 0 && !bytes.Equal(bytes.TrimSpace(req.Args), []byte("null")) {
		if err := decodeStrict(req.Args, a); err != nil {
			return op{}, nil, fmt.Errorf("%s: args: %w", req.Op, err)
		}
	}
	got := a.present()
	for _, name := range o.args {
		if !contains(got, name) {
			return op{}, nil, fmt.Errorf("%s: args: %q missing", req.Op, name)
		}
	}
	for _, name := range got {
		if !contains(o.args, name) {
			return op{}, nil, fmt.Errorf("%s: args: %q is not an argument of %s", req.Op, name, req.Op)
		}
	}
	return o, a, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// decodeStrict decodes exactly one JSON value into v, refusing unknown fields and
// anything after the value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("malformed request: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("malformed request: data after the JSON value")
	}
	return nil
}
