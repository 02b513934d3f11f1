package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// egressTestOptions is a one-page crawl with egress rotation on (one bind egress).
func egressTestOptions(t *testing.T) config.Options {
	w := newMiniWeb(t, 1, 1, 0)
	o := testOptions(t, w)
	o.Egress = []string{"wg=bind:127.0.0.1"}
	return o
}

// TestStoredUnresolvableSecretDoesNotStopStart: an account stored with a
// ${env:}/${file:} reference that no longer resolves is left out with a warning
// naming the egress (never a secret), and the crawl starts.
func TestStoredUnresolvableSecretDoesNotStopStart(t *testing.T) {
	t.Parallel()
	o := egressTestOptions(t)
	st, err := store.Open(o.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal([]route.PersistedAccount{
		{Name: "stale", Kind: "http", Address: "203.0.113.9:3128", User: "x",
			Secret: "${env:CRAWLCONSOLE_TEST_NEVER_SET_VAR}", State: "free"},
		{Name: "gone", Kind: "socks5", Address: "203.0.113.9:1080", User: "x",
			Secret: "${file:" + t.TempDir() + "/missing.pass}", State: "free"},
	})
	st.SetMeta(route.AccountsMetaKey, b)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	for _, name := range []string{"stale", "gone"} {
		found := false
		for _, ev := range e.EventsSince(0, 1000) {
			if ev.Level == view.LevelWarn && strings.Contains(ev.Msg, "stored egress "+name+" skipped") {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning naming stored egress %s; events: %+v", name, e.EventsSince(0, 1000))
		}
		if _, err := e.lanes.Pool.Egress(name); err == nil {
			t.Errorf("egress %s with an unresolvable secret joined the table", name)
		}
	}
	if _, err := e.lanes.Pool.Egress("wg"); err != nil {
		t.Fatalf("the configured egress is missing: %v", err)
	}
}

// TestAddEgressFromSessionPolicy: Control.AddEgress (the `:egress add` path, local
// or over SSH) refuses secret references and a proxy on a private address, unless
// the start-up allow_private ranges cover it.
func TestAddEgressFromSessionPolicy(t *testing.T) {
	t.Setenv("CRAWLCONSOLE_TEST_PROXY_PASS", "hunter2-S3cr3t")
	o := egressTestOptions(t)
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)

	for spec, want := range map[string]string{
		"http://x:${env:CRAWLCONSOLE_TEST_PROXY_PASS}@203.0.113.7:3128": "refused from a console session",
		"http://x:${file:/etc/passwd}@203.0.113.7:3128":                 "refused from a console session",
		"http://10.1.2.3:3128":                                          "loopback/private/link-local",
		"socks5://u:pw@169.254.169.254:1080":                            "loopback/private/link-local",
		"http://[fe80::1]:3128":                                         "loopback/private/link-local",
		"http://[::ffff:192.168.1.1]:3128":                              "loopback/private/link-local",
		"bind:fe80::1":                                                  "egress bind:fe80::1: fe80::1 is a link-local address",
		"ll=bind:fe80::1":                                               "egress ll (bind:fe80::1): fe80::1 is a link-local address",
		"out2=bind:192.0.2.10":                                          "egress out2 (bind:192.0.2.10): 192.0.2.10 is not an address of this machine",
	} {
		name, err := e.AddEgress(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddEgress(%s) = %q, %v; want refused (%s)", spec, name, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the refusal shows the secret: %v", err)
		}
	}
	if _, err := e.lanes.Pool.Egress("e1"); err == nil {
		t.Fatal("a refused spec joined the table as e1")
	}
	if name, err := e.AddEgress("pub=http://u:pw@203.0.113.7:3128"); err != nil || name != "pub" {
		t.Fatalf("a public proxy: %q, %v", name, err)
	}

	o2 := egressTestOptions(t)
	o2.AllowPrivate = append(o2.AllowPrivate, "10.0.0.0/8")
	e2 := startEngine(t, o2)
	waitDone(t, e2, 20*time.Second)
	if name, err := e2.AddEgress("http://10.1.2.3:3128"); err != nil || name == "" {
		t.Fatalf("allow_private 10.0.0.0/8: AddEgress(http://10.1.2.3:3128) = %q, %v; want added", name, err)
	}
	if _, err := e2.AddEgress("http://192.168.1.1:3128"); err == nil {
		t.Fatal("192.168.1.1 is outside allow_private and was added")
	}
}

// A master's egresses are its workers': `:egress add` of a bind: egress naming a
// worker's address is not checked against the master's own interfaces (a one-box
// crawl's is: TestAddEgressFromSessionPolicy).
func TestAMasterAddsAWorkersBindEgress(t *testing.T) {
	m, _ := startIdleCluster(t, 200*time.Millisecond)
	defer m.Close()
	if _, err := m.AddEgress("w1b=bind:10.250.0.7"); err != nil {
		t.Errorf("the master refused a worker's bind: egress: %v", err)
	}
}
