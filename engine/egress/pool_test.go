package egress

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func newTestPool(t *testing.T, store *MemoryStore, specs ...string) (*Pool, *fakeClock) {
	t.Helper()
	parsed, err := ParseSpecs(specs)
	if err != nil {
		t.Fatal(err)
	}
	table, err := OpenTable(store, parsed)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{now: t0}
	p, err := NewPool(table, PoolConfig{Rotation: RotationConfig{Now: clk.Now, FaultCooldown: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, clk
}

// TestPool407PenalisesEverywhere: a 407 through the current egress rotates the node
// and keeps that egress away from every host during its cooldown; a 403 keeps it
// away from that host only.
func TestPool407PenalisesEverywhere(t *testing.T) {
	p, clk := newTestPool(t, &MemoryStore{}, "bind:127.0.0.1", "bind:127.0.0.2", "bind:127.0.0.3")
	_, d := p.Observe("e1", Response{Host: "a.test", Status: 407})
	if d.Action != Retry || d.Egress != "e2" {
		t.Fatalf("after 407: %+v, want retry on e2", d)
	}
	p.Observe("e2", Response{Host: "a.test", Status: 200})
	for _, h := range []string{"a.test", "b.test", "c.test"} {
		if d := p.Pick(h); d.Egress == "e1" {
			t.Fatalf("Pick(%s) = e1 after its 407", h)
		}
	}
	// 403: e2 is banned for b only.
	_, d = p.Observe("e2", Response{Host: "b.test", Status: 403})
	if d.Action != Retry || d.Egress != "e3" {
		t.Fatalf("after 403: %+v, want retry on e3", d)
	}
	p.RotateNow() // back to e2 (e1 still cools)
	if d := p.Pick("c.test"); d.Egress != "e2" {
		t.Fatalf("Pick(c) = %s, want e2 (403 was for b only)", d.Egress)
	}
	if d := p.Pick("b.test"); d.Egress == "e2" {
		t.Fatal("Pick(b) = e2 right after b refused it")
	}
	clk.advance(2 * time.Minute)
	v := p.View()
	if v.Egresses[0].Name != "e1" || v.Egresses[0].State == "cooling" {
		t.Fatalf("e1 still cooling after its cooldown: %+v", v.Egresses[0])
	}
	if v.Egresses[0].Faults != 1 || v.Egresses[1].Refusals != 1 {
		t.Fatalf("counters: e1 faults=%d e2 refusals=%d, want 1 and 1", v.Egresses[0].Faults, v.Egresses[1].Refusals)
	}
}

// TestPoolPersistence: the account table (with secret references, not passwords)
// and the host_disable_list survive a restart; run-time add and remove are saved.
func TestPoolPersistence(t *testing.T) {
	t.Setenv("EGRESS_TEST_PASS", secretWord)
	store := &MemoryStore{}
	p, clk := newTestPool(t, store, "bind:127.0.0.1", "socks5://bob:${env:EGRESS_TEST_PASS}@127.0.0.1:1080")
	if _, err := p.Add("spare=http://amy:" + secretWord + "@127.0.0.1:3128"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Add("bind:127.0.0.9"); err != nil {
		t.Fatal(err)
	}
	if err := p.Remove("e3"); err != nil {
		t.Fatal(err)
	}
	if err := p.Remove("nope"); err == nil {
		t.Fatal("removing an unknown egress succeeded")
	}
	p.Disable("slow.test", time.Hour)
	// Everything refused for b.test: disabled for the default 2h.
	for i := 0; i < 4; i++ {
		cur := p.Rotation().Current()
		if _, d := p.Observe(cur, Response{Host: "b.test", Status: 403}); d.Action == DeferHost {
			break
		}
	}
	accounts, _ := store.Load()
	var saved []string
	for _, a := range accounts {
		saved = append(saved, fmt.Sprintf("%s:%s:%s:%s", a.Name, a.Secret.Persisted(), a.State, a.Node))
	}
	if got, want := strings.Join(saved, " "), "e1::assigned:local e2:${env:EGRESS_TEST_PASS}:assigned:local spare:"+secretWord+":assigned:local"; got != want {
		t.Fatalf("saved table = %q, want %q", got, want)
	}

	// Restart on the same store.
	table, err := OpenTable(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := NewPool(table, PoolConfig{Rotation: RotationConfig{Now: clk.Now}})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, d := range p2.View().Disabled {
		hosts = append(hosts, d.Host)
	}
	if strings.Join(hosts, ",") != "b.test,slow.test" {
		t.Fatalf("restored disable list = %v, want b.test, slow.test", hosts)
	}
	if d := p2.Pick("b.test"); d.Action != DeferHost {
		t.Fatalf("b.test after restart: %v, want still deferred", d.Action)
	}
	p2.Enable("slow.test")
	if d := p2.Pick("slow.test"); d.Action != Fetch {
		t.Fatalf("slow.test after Enable: %v, want fetch", d.Action)
	}
	if list, _ := store.LoadDisabled(); len(list) != 1 || list[0].Host != "b.test" {
		t.Fatalf("saved disable list after Enable = %+v", list)
	}
}

// TestViewNeverShowsSecret: the console's data, in Go and JSON form, masks the
// password and has the columns the pane needs.
func TestViewNeverShowsSecret(t *testing.T) {
	p, clk := newTestPool(t, &MemoryStore{}, "vpn1=socks5://bob:"+secretWord+"@127.0.0.1:1080",
		"vpn2=http://amy:"+secretWord+"@127.0.0.1:3128", "spare=http://cy:"+secretWord+"@127.0.0.1:3129")
	clk.advance(time.Minute)
	p.Observe("vpn1", Response{Host: "a.test", Status: 200})
	p.Observe("vpn1", Response{Host: "a.test", Status: 429, Header: http.Header{"Retry-After": {"60"}}})
	p.Disable("x.test", 0)
	clk.advance(30 * time.Minute)
	v := p.View()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{string(b), fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v)} {
		if strings.Contains(out, secretWord) {
			t.Fatalf("view shows the password: %s", out)
		}
	}
	if len(v.Egresses) != 3 {
		t.Fatalf("view has %d egresses, want 3", len(v.Egresses))
	}
	e1, e2, spare := v.Egresses[0], v.Egresses[1], v.Egresses[2]
	if e1.Address != "socks5://bob:***@127.0.0.1:1080" || e1.Kind != KindSOCKS5 || e1.Node != "local" {
		t.Errorf("vpn1 row = %+v", e1)
	}
	if e1.Requests != 2 || e1.Refusals != 1 || e1.SuccessRate != 0.5 || e1.RecentlyUsed != "y" {
		t.Errorf("vpn1 counters = %+v, want 2 requests, 1 refusal, 50%%, y", e1)
	}
	if !e2.Current || e2.State != "in use" || e2.StartTime.Sub(t0) != time.Minute {
		t.Errorf("vpn2 row = %+v, want current since t0+1m", e2)
	}
	if spare.OnNode || spare.State != "free" || spare.Node != "" {
		t.Errorf("spare row = %+v, want free and not on the node", spare)
	}
	if len(v.Disabled) != 1 || v.Disabled[0].TimeLeft != 90*time.Minute {
		t.Errorf("disabled = %+v, want x.test with 1h30m left", v.Disabled)
	}
}

// TestEgressResponseBlame: what Egress.Response blames on the proxy for forwarded
// plain-http requests.
func TestEgressResponseBlame(t *testing.T) {
	httpEg := mustEgress(t, "p=http://127.0.0.1:3128")
	socksEg := mustEgress(t, "s=socks5://127.0.0.1:1080")
	req := func(scheme string) *http.Request {
		r, _ := http.NewRequest("GET", scheme+"://site.test/", nil)
		return r
	}
	resp := func(scheme string, status int, kv ...string) *http.Response {
		return &http.Response{StatusCode: status, Header: hdr(kv...), Request: req(scheme), Body: io.NopCloser(strings.NewReader(""))}
	}
	for _, tc := range []struct {
		name string
		e    *Egress
		resp *http.Response
		want bool
	}{
		{"forwarded 502 with Proxy-Agent", httpEg, resp("http", 502, "Proxy-Agent", "squid"), true},
		{"forwarded 502 with X-Squid-Error", httpEg, resp("http", 502, "X-Squid-Error", "ERR_CONNECT_FAIL 111"), true},
		{"forwarded 502 from the site", httpEg, resp("http", 502, "Server", "nginx"), false},
		{"https 502 is the site's (tunnel was up)", httpEg, resp("https", 502, "Proxy-Agent", "x"), false},
		{"socks 502 is the site's", socksEg, resp("http", 502, "Proxy-Agent", "x"), false},
		{"forwarded 200", httpEg, resp("http", 200), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.Response("site.test", tc.resp, nil, nil).FromProxy; got != tc.want {
				t.Fatalf("FromProxy = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVPNsNeeded(t *testing.T) {
	for _, tc := range []struct{ kw, pages, perIP, want int }{
		{300, 10, 1000, 3}, {300, 10, 3000, 1}, {301, 10, 1000, 4}, {1, 1, 1, 1},
		{0, 10, 100, 0}, {10, 10, 0, 0}, {10, 10, -5, 0}, {500, 20, 250, 40},
	} {
		if got := VPNsNeeded(tc.kw, tc.pages, tc.perIP); got != tc.want {
			t.Errorf("VPNsNeeded(%d, %d, %d) = %d, want %d", tc.kw, tc.pages, tc.perIP, got, tc.want)
		}
	}
}

func TestTableAddRemove(t *testing.T) {
	store := &MemoryStore{}
	table, err := OpenTable(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"bind:10.0.0.1", "bind:10.0.0.2", "x=bind:10.0.0.3"} {
		if _, err := table.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := table.Add("x=bind:10.0.0.4"); err == nil {
		t.Fatal("duplicate name accepted")
	}
	if err := table.Remove("e1"); err != nil {
		t.Fatal(err)
	}
	a, err := table.Add("bind:10.0.0.5")
	if err != nil || a.Name != "e1" {
		t.Fatalf("Add after removing e1 = %q, %v; want the free name e1", a.Name, err)
	}
	_, err = table.Add("http://bob:" + secretWord + "@h:x")
	if err == nil || strings.Contains(err.Error(), secretWord) {
		t.Fatalf("bad spec error = %v", err)
	}
	if got := len(table.Accounts()); got != 3 || store.Saves() < 5 {
		t.Fatalf("%d accounts, %d saves", got, store.Saves())
	}
}
