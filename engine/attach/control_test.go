package attach_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// TestEveryControlCallReachesTheMaster: each Control method called on the client
// is the same call on the master's Control, with its result and error brought back.
func TestEveryControlCallReachesTheMaster(t *testing.T) {
	ctrl := fake.New(fake.Config{Workers: 4})
	_, cl := served(t, ctrl)
	due := ctrl.Snapshot().Revisit.Due[3].URL
	plan := fake.New(fake.Config{Workers: 4}).PlanRebalance()

	tests := []struct {
		name    string
		call    func() (any, error)
		want    any    // the result, when the method has one
		calls   string // the master's Control saw this call
		errText string // and answered this error
	}{
		{name: "Pause", call: func() (any, error) { cl.Pause(); return nil, nil }, calls: "Pause"},
		{name: "Resume", call: func() (any, error) { cl.Resume(); return nil, nil }, calls: "Resume"},
		{name: "PauseLane", call: func() (any, error) { return nil, cl.PauseLane(3, true) }, calls: "PauseLane(3,true)"},
		{name: "PauseLane unknown", call: func() (any, error) { return nil, cl.PauseLane(99, false) },
			calls: "PauseLane(99,false)", errText: "lane 99: no such lane"},
		{name: "PauseNode", call: func() (any, error) { return nil, cl.PauseNode("worker-2", true) }, calls: "PauseNode(worker-2,true)"},
		{name: "PauseNode unknown", call: func() (any, error) { return nil, cl.PauseNode("worker-9", false) },
			calls: "PauseNode(worker-9,false)", errText: "worker worker-9: no such worker"},
		{name: "PauseHost", call: func() (any, error) { return nil, cl.PauseHost("news-00.sandbox.test", true) },
			calls: "PauseHost(news-00.sandbox.test,true)"},
		{name: "SetMaxLanes", call: func() (any, error) { return nil, cl.SetMaxLanes(0) },
			calls: "SetMaxLanes(0)", errText: "lanes.max must be at least 1"},
		{name: "PlanRebalance", call: func() (any, error) { return cl.PlanRebalance(), nil }, want: plan, calls: "PlanRebalance"},
		{name: "ApplyRebalance", call: func() (any, error) { return nil, cl.ApplyRebalance(plan) },
			calls: "ApplyRebalance(1 moves)"},
		{name: "RotateLane", call: func() (any, error) { return cl.RotateLane(1) }, want: "egress-b", calls: "RotateLane(1)"},
		{name: "SetHostDisabled", call: func() (any, error) { return nil, cl.SetHostDisabled("blog-02.sandbox.test", true) },
			calls: "SetHostDisabled(blog-02.sandbox.test,true)"},
		{name: "AddEgress", call: func() (any, error) { return cl.AddEgress("vpn9=socks5://u:pw@127.0.0.9:1080") },
			want: "vpn9", calls: "AddEgress(socks5://u:***@127.0.0.9:1080)"},
		{name: "RemoveEgress", call: func() (any, error) { return nil, cl.RemoveEgress("vpn9") }, calls: "RemoveEgress(vpn9)"},
		{name: "FlushDNS", call: func() (any, error) { return cl.FlushDNS("") }, want: 1248, calls: "FlushDNS()"},
		{name: "RevisitNow", call: func() (any, error) { return nil, cl.RevisitNow(due) }, calls: "RevisitNow(" + due + ")"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(ctrl.Calls())
			got, err := tc.call()
			calls := ctrl.Calls()[before:]
			if len(calls) != 1 || calls[0] != tc.calls {
				t.Fatalf("master saw %q, want %q", calls, tc.calls)
			}
			switch {
			case tc.errText != "" && (err == nil || err.Error() != tc.errText):
				t.Fatalf("error = %v, want %q", err, tc.errText)
			case tc.errText == "" && err != nil:
				t.Fatalf("error = %v", err)
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("result = %#v, want %#v", got, tc.want)
			}
		})
	}
	if s := cl.Snapshot(); s.State != view.StateRunning || !s.Lanes[2].Paused || s.Nodes[1].State != view.NodePaused {
		t.Fatalf("the master's state after the calls: %s, lane 3 paused %v, worker-2 %s", s.State, s.Lanes[2].Paused, s.Nodes[1].State)
	}
}

// TestEventsComeOver: the Log pane's EventsSince, with its bounds.
func TestEventsComeOver(t *testing.T) {
	ctrl := fake.New(fake.Config{})
	_, cl := served(t, ctrl)
	for _, tc := range []struct {
		after uint64
		max   int
	}{{0, 1000}, {10, 5}, {39, 10}, {40, 10}, {0, 0}} {
		got, want := cl.EventsSince(tc.after, tc.max), ctrl.EventsSince(tc.after, tc.max)
		if !reflect.DeepEqual(normalise(reflect.ValueOf(got)).Interface(), normalise(reflect.ValueOf(want)).Interface()) {
			t.Fatalf("EventsSince(%d, %d) = %d events, want %d", tc.after, tc.max, len(got), len(want))
		}
	}
	if err := cl.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestBadRequestsAreAnsweredAndCounted: whatever arrives on the subjects, the
// master answers with an error, counts it, and goes on serving.
func TestBadRequestsAreAnsweredAndCounted(t *testing.T) {
	ns := startNATS(t, 4<<20) // room for a request over attach's own 1 MiB limit
	ctrl := fake.New(fake.Config{})
	srv, err := attach.Listen(connect(t, ns), prefix, ctrl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	nc := connect(t, ns)
	huge := append([]byte(`{"op":"pause_host","args":{"host":"`), bytes.Repeat([]byte("a"), attach.MaxRequest)...)
	huge = append(huge, `","paused":true}}`...)

	tests := []struct {
		subject, body, errText string
	}{
		{"snapshot", "not json", "malformed request"},
		{"events", "", "malformed request"},
		{"events", `{"after":-1,"max":5}`, "malformed request"},
		{"events", `{"after":1,"max":5,"x":1}`, `unknown field "x"`},
		{"events", `{"after":1}`, "max must be at least 1"},
		{"events", `{"after":1,"max":5} {}`, "data after the JSON value"},
		{"control", "", "malformed request"},
		{"control", `[1,2]`, "malformed request"},
		{"control", `{"op":"format_disk"}`, `unknown op "format_disk"`},
		{"control", `{"op":"pause_lane","args":{"id":3}}`, `pause_lane: args: "paused" missing`},
		{"control", `{"op":"pause_lane","args":{"id":"3","paused":true}}`, "pause_lane: args: malformed request"},
		{"control", `{"op":"pause_lane","args":{"id":3,"paused":true,"host":"x"}}`, `"host" is not an argument of pause_lane`},
		{"control", `{"op":"pause","args":{"id":1}}`, `"id" is not an argument of pause`},
		{"control", `{"op":"pause_lane","args":{"id":3,"paused":true,"zap":1}}`, `unknown field "zap"`},
		{"control", `{"op":"pause_lane","args":{"id":1e99,"paused":true}}`, "malformed request"},
		{"control", `{"op":"apply_rebalance","args":{"plan":7}}`, "malformed request"},
		{"control", string(huge), "over the 1048576 byte limit"},
	}
	for i, tc := range tests {
		t.Run(tc.subject+" "+shorten(tc.body), func(t *testing.T) {
			m, err := nc.Request(prefix+".console."+tc.subject, []byte(tc.body), 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(m.Data, &rep); err != nil || !strings.Contains(rep.Error, tc.errText) {
				t.Fatalf("reply %q (%v), want an error with %q", m.Data, err, tc.errText)
			}
			if h := m.Header.Get("Nats-Service-Error"); h != rep.Error || m.Header.Get("Nats-Service-Error-Code") != "400" {
				t.Fatalf("headers %v", m.Header)
			}
			if got := srv.Stats().Rejected; got != int64(i+1) {
				t.Fatalf("rejected = %d, want %d", got, i+1)
			}
		})
	}
	if calls := ctrl.Calls(); len(calls) != 0 {
		t.Fatalf("bad requests reached the Control: %q", calls)
	}
	// A publish without a reply subject is ignored; the master still serves.
	if err := nc.Publish(prefix+".console.control", []byte(`{"op":"pause"}`)); err != nil {
		t.Fatal(err)
	}
	cl := attach.Dial(nc, prefix)
	cl.Pause()
	if err := cl.Err(); err != nil || !ctrl.Paused() {
		t.Fatalf("the master stopped serving after bad requests: %v", err)
	}
	if st := srv.Stats(); st.Served < 1 || st.Rejected != int64(len(tests)) {
		t.Fatalf("stats %+v", st)
	}
}

// panicky is a Control whose calls panic, as a buggy engine's might.
type panicky struct{ *fake.Control }

func (panicky) Snapshot() view.Snapshot             { panic("snapshot exploded") }
func (panicky) PauseLane(id int, paused bool) error { panic("lane exploded") }

// TestAPanicInTheControlIsAnError: the master process survives, the console hears
// why.
func TestAPanicInTheControlIsAnError(t *testing.T) {
	srv, cl := served(t, panicky{fake.New(fake.Config{})})
	if s := cl.Snapshot(); s.State != attach.StateUnreachable {
		t.Fatalf("state = %q", s.State)
	}
	if err := cl.Err(); err == nil || !strings.Contains(err.Error(), "internal error: snapshot exploded") {
		t.Fatalf("error = %v", err)
	}
	if err := cl.PauseLane(1, true); err == nil || !strings.Contains(err.Error(), "lane exploded") {
		t.Fatalf("PauseLane error = %v", err)
	}
	if err := cl.PauseHost("a.example", true); err != nil {
		t.Fatalf("the master stopped serving after a panic: %v", err)
	}
	if st := srv.Stats(); st.Rejected != 2 || st.Served != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestBadPrefix(t *testing.T) {
	ns := startNATS(t, 0)
	nc := connect(t, ns)
	for _, p := range []string{"", "crawl.*", "crawl.>", "a..b", "a b", ".a"} {
		if _, err := attach.Serve(nc, p, fake.New(fake.Config{})); err == nil {
			t.Errorf("Serve accepted prefix %q", p)
		}
		cl := attach.Dial(nc, p)
		if s := cl.Snapshot(); s.State != attach.StateUnreachable || cl.Err() == nil {
			t.Errorf("Dial(%q): state %q, err %v", p, s.State, cl.Err())
		}
	}
	if _, err := attach.Serve(nil, prefix, fake.New(fake.Config{})); err == nil {
		t.Error("Serve without a connection")
	}
	if err := attach.Dial(nil, prefix).PauseLane(1, true); err == nil {
		t.Error("Dial without a connection")
	}
}

// TestOpsCoverTheControlInterface: a method added to control.Control without an op
// would compile in the Client only if someone wired it; this names the gap.
func TestOpsCoverTheControlInterface(t *testing.T) {
	ns := startNATS(t, 0)
	ctrl := fake.New(fake.Config{})
	_, err := attach.Listen(connect(t, ns), prefix, ctrl)
	if err != nil {
		t.Fatal(err)
	}
	nc := connect(t, ns)
	ctl := reflect.TypeFor[control.Control]()
	for i := range ctl.NumMethod() {
		name := ctl.Method(i).Name
		if name == "Snapshot" || name == "EventsSince" {
			continue
		}
		m, err := nc.Request(prefix+".console.control", []byte(`{"op":"`+snake(name)+`","args":{"x":1}}`), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(m.Data, []byte("unknown op")) {
			t.Errorf("Control.%s has no op %q", name, snake(name))
		}
	}
}

// snake is an op name: PauseLane -> pause_lane, FlushDNS -> flush_dns.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 && !(s[i-1] >= 'A' && s[i-1] <= 'Z') {
			b.WriteByte('_')
		}
		b.WriteString(strings.ToLower(string(r)))
	}
	return b.String()
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
