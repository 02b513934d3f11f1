package config

import (
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
)

// A master or worker given only its connection gets the documented defaults, a
// master's balance settings from the crawl's balance options; one without a
// connection, or a worker with a name NATS subjects cannot hold, is refused.
func TestClusterOptionsDefaults(t *testing.T) {
	t.Parallel()
	conn := &cluster.Conn{}
	mo, err := MasterOptions{Conn: conn}.WithDefaults(BalanceOptions{Every: time.Hour, Threshold: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	want := MasterOptions{Conn: conn, Prefix: DefaultClusterPrefix, HeartbeatEvery: 5 * time.Second, Timeout: 15 * time.Second,
		Window: 512, BalanceEvery: time.Hour, BalanceThreshold: 0.3}
	if mo != want {
		t.Errorf("master defaults %+v, want %+v", mo, want)
	}
	if mo, _ := (MasterOptions{Conn: conn}).WithDefaults(BalanceOptions{}); mo.BalanceEvery != 24*time.Hour {
		t.Errorf("master balance period without balance.every: %v, want 24h", mo.BalanceEvery)
	}
	if _, err := (MasterOptions{}).WithDefaults(BalanceOptions{}); err == nil || !strings.Contains(err.Error(), "NATS") {
		t.Errorf("master without a connection: %v, want an error naming NATS", err)
	}
	wo, err := WorkerOptions{Conn: conn, Node: "w-1"}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if wo.Prefix != DefaultClusterPrefix || wo.JoinTimeout != 30*time.Second || wo.LeaveGrace != DefaultLeaveGrace {
		t.Errorf("worker defaults %+v", wo)
	}
	for _, name := range []string{"", "has space", "a.b", strings.Repeat("x", 65)} {
		if _, err := (WorkerOptions{Conn: conn, Node: name}).WithDefaults(); err == nil || !strings.Contains(err.Error(), "--name") {
			t.Errorf("worker name %q: %v, want it refused naming --name", name, err)
		}
	}
}
