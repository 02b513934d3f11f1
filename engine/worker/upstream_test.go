package worker

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// A worker crawls with its master's settings, but its own lanes.max, DNS servers and
// private ranges win, it revisits nothing (the master schedules revisits), and with
// egresses of its own it uses every one it has rather than the master's per_node.
// Its own egresses are named after it, so they never collide with a granted one.
func TestWorkerOptionsFollowTheMasterWithItsOwnOverrides(t *testing.T) {
	t.Parallel()
	st := wire.Settings{HostRate: 3, UserAgent: "ua/1", DNSServers: []string{"192.0.2.53:53"}}
	st.Lanes.Max = 40
	st.Rotation.PerNode = 2
	o := config.WorkerOptions{Node: "w1", LanesMax: 7, DNSServers: []string{"127.0.0.1:5353"},
		AllowPrivate: []string{"127.0.0.0/8"}, Egress: []string{"bind:127.0.0.2"}}
	opts, every := Options(st, o)
	if opts.Lanes.Max != 7 || opts.HostRate != 3 || opts.UserAgent != "ua/1" || opts.DNSServers[0] != "127.0.0.1:5353" ||
		opts.AllowPrivate[0] != "127.0.0.0/8" || opts.Revisit.Enabled || opts.Rotation.PerNode != 0 {
		t.Errorf("options %+v", opts)
	}
	if every != 5*time.Second {
		t.Errorf("heartbeat every %v from a master that set none, want 5s", every)
	}
	specs := Egresses(o, []wire.Egress{{Name: "e1", Kind: "bind", Address: "127.0.0.9"}})
	if len(specs) != 2 || specs[0].Name != "w1-e1" || specs[1].Name != "e1" || specs[1].Address != "127.0.0.9" {
		t.Errorf("egresses %+v: want the worker's own as w1-e1, then the granted e1", specs)
	}
}

// A worker renders as its master says (mode, sites, caps), with a browser of its
// own box: the master's browser path does not apply there.
func TestWorkerRendersAsItsMasterSays(t *testing.T) {
	t.Parallel()
	st := wire.Settings{Render: &config.RenderOptions{Mode: "off", Timeout: 3 * time.Second, Browser: "/opt/master/chromium",
		Sites: []config.RenderSite{{Host: "spa.test", Mode: "always"}}}}
	opts, _ := Options(st, config.WorkerOptions{Node: "w1"})
	if opts.Render.Mode != "off" || opts.Render.Timeout != 3*time.Second || opts.Render.Browser != "" || opts.Render.RenderModeFor("spa.test") != "always" {
		t.Errorf("render options %+v; want the master's, without its browser path", opts.Render)
	}
	if opts, _ := Options(wire.Settings{}, config.WorkerOptions{Node: "w1"}); opts.Render.Mode != config.DefaultOptions().Render.Mode {
		t.Errorf("from a master that sends none: render mode %q; want the default", opts.Render.Mode)
	}
}
