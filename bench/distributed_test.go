package main

import (
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// testSample is a CPU sample of d with the stack given innermost first.
func testSample(p *profile.Profile, d time.Duration, role string, stack ...string) {
	var locs []*profile.Location
	for _, name := range stack {
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		p.Function = append(p.Function, f)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Location = append(p.Location, l)
		locs = append(locs, l)
	}
	s := &profile.Sample{Location: locs, Value: []int64{1, int64(d)}}
	if role != "" {
		s.Label = map[string][]string{roleLabel: {role}}
	}
	p.Sample = append(p.Sample, s)
}

func TestCPUByRole(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	const ms = time.Millisecond
	testSample(p, 30*ms, roleMaster, "runtime.cgocall", "github.com/mattn/go-sqlite3.(*SQLiteStmt).exec",
		"github.com/crawlconsole/crawlconsole/store.(*writer).run")
	testSample(p, 20*ms, roleMaster, "encoding/json.(*decodeState).object", "github.com/crawlconsole/crawlconsole/engine/cluster.Decode",
		"github.com/crawlconsole/crawlconsole/engine.(*masterRuntime).onResult", "github.com/nats-io/nats%2ego.(*Conn).waitForMsgs")
	testSample(p, 7*ms, roleMaster, "github.com/crawlconsole/crawlconsole/engine/page.Fingerprint",
		"github.com/crawlconsole/crawlconsole/engine.(*masterRuntime).onResult", "github.com/nats-io/nats%2ego.(*Conn).waitForMsgs")
	testSample(p, 5*ms, roleWorker, "syscall.Syscall", "net.(*conn).Write", "bufio.(*Writer).Flush",
		"github.com/nats-io/nats%2ego.(*Conn).flusher")
	testSample(p, 3*ms, roleWorker, "encoding/json.Marshal", "github.com/crawlconsole/crawlconsole/engine/cluster.Encode",
		"github.com/crawlconsole/crawlconsole/engine.(*Worker).publishOne")
	testSample(p, 4*ms, "", "runtime.gcDrain", "runtime.gcBgMarkWorker")
	testSample(p, 2*ms, roleNATS, "github.com/nats-io/nats-server/v2/server.(*fileStore).storeRawMsg")

	got, err := cpuByRole(p)
	if err != nil {
		t.Fatal(err)
	}
	want := roleCPU{
		byRole: map[string]time.Duration{roleMaster: 57 * ms, roleWorker: 8 * ms, roleOther: 4 * ms, roleNATS: 2 * ms},
		writer: 30 * ms, result: 27 * ms, codec: 23 * ms, client: 5 * ms, total: 71 * ms,
	}
	for _, r := range distRoles {
		if got.byRole[r] != want.byRole[r] {
			t.Errorf("role %s: %v, want %v", r, got.byRole[r], want.byRole[r])
		}
	}
	type rest struct{ writer, result, codec, client, total time.Duration }
	g := rest{got.writer, got.result, got.codec, got.client, got.total}
	w := rest{want.writer, want.result, want.codec, want.client, want.total}
	if g != w {
		t.Errorf("got %+v, want %+v", g, w)
	}
}

func TestCPUByRoleNeedsCPUProfile(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}}
	if _, err := cpuByRole(p); err == nil {
		t.Fatal("a heap profile was read as a CPU profile")
	}
}

func TestInnermostModuleFunc(t *testing.T) {
	cases := []struct {
		stack []string
		want  string
	}{
		{[]string{"syscall.Syscall", "net.(*conn).Write", "net/http.persistConnWriter.Write", "github.com/x/y.F"}, "github.com/x/y.F"},
		{[]string{"vendor/golang.org/x/net/http2.(*Framer).WriteData", "main.main"}, ""},
		{[]string{"github.com/nats-io/nats.go/jetstream.(*pullConsumer).Consume.func1"}, "github.com/nats-io/nats.go/jetstream.(*pullConsumer).Consume.func1"},
	}
	for _, c := range cases {
		p := &profile.Profile{}
		testSample(p, time.Millisecond, "", c.stack...)
		if got := innermostModuleFunc(p.Sample[0]); got != c.want {
			t.Errorf("%v: %q, want %q", c.stack, got, c.want)
		}
	}
}

func TestWorkerBinds(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		for _, a := range workerBinds(i) {
			if seen[a] {
				t.Fatalf("address %s given to two workers", a)
			}
			seen[a] = true
		}
	}
	if got := workerBinds(2); got[0] != "127.0.0.6" || got[1] != "127.0.0.7" {
		t.Errorf("worker 3 leaves from %v, want 127.0.0.6 and 127.0.0.7", got)
	}
}
