package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/crawlconsole/crawlconsole/engine/skips"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// fakeNode is a Source with every part filled in, as a role would have it.
type fakeNode struct {
	snap view.Snapshot
	tel  view.Telemetry
}

func (f fakeNode) Snapshot() view.Snapshot   { return f.snap }
func (f fakeNode) Telemetry() view.Telemetry { return f.tel }

func node(role string) fakeNode {
	h := &view.Histogram{Count: 5, Sum: 0.3, Buckets: map[float64]uint64{0: 2, 0.001: 3, 0.1: 5}}
	f := fakeNode{
		snap: view.Snapshot{State: view.StateRunning, StartedAt: time.Unix(1_700_000_000, 0),
			Totals: view.Totals{PagesFetched: 10, ByClass: map[string]int64{"2xx": 9, "4xx": 1},
				Errors: map[string]int64{"http_4xx": 1}, Skipped: map[string]int64{"robots_disallowed": 4}},
			Lanes:   []view.Lane{{Status: view.LaneFetching}, {Status: view.LaneWaiting}},
			DNS:     &view.DNSView{},
			Egress:  &view.EgressView{Rotations: 2},
			Revisit: &view.RevisitView{Refetches: 3, Changes: 1},
			Hosts: &view.HostsView{
				Hosts: view.HostRowsOf([]view.HostRow{
					{Name: "a.example", Classes: [view.StatusClassCount]int64{view.Class2xx: 9}},
					{Name: "b.example", Classes: [view.StatusClassCount]int64{view.Class4xx: 1}, Refused: 1},
				}),
				Egresses: []view.HostRow{{Name: "direct", Classes: [view.StatusClassCount]int64{view.Class2xx: 9, view.Class4xx: 1}}},
			},
			Discovery: []view.SiteDiscovery{
				{Site: "a.example", Feeds: []string{"http://a.example/feed"}, Sitemaps: []string{"http://a.example/sitemap.xml"},
					Covered: map[string]string{"http://a.example/sitemap.xml": "http://a.example/feed"}, Found: 40, Hints: 2, DatesTrusted: true},
				{Site: "b.example", Sitemaps: []string{"http://b.example/sitemap.xml"}, Found: 300, Ignored: 7},
			}},
		tel: view.Telemetry{Role: role, DNSWait: h, StoreCommit: h, StoredByAge: []int64{5, 2, 1, 0, 0, 3, 4}},
	}
	if role == view.RoleMaster {
		f.tel.DNSWait = nil
		f.tel.Cluster = &view.ClusterStats{Nodes: map[string]view.NodeStats{"w1": {State: view.NodeActive, Results: 7}},
			Rejected: map[string]int64{"oversize": 1}}
	}
	if role == view.RoleWorker {
		f.tel.StoreCommit = nil
		f.tel.StoredByAge = nil
		f.snap.Revisit = nil
	}
	return f
}

// TestCollectorLint: for each role, a pedantic registry accepts every metric the
// collector emits (described, consistent, no duplicates) and the Prometheus linter
// (promtool's rules, in client_golang's testutil) finds no problem; each role has
// the families it owns and not the others'.
func TestCollectorLint(t *testing.T) {
	cases := []struct {
		role      string
		want, not []string
	}{
		{view.RoleLocal, []string{"crawlconsole_dns_wait_seconds", "crawlconsole_store_commit_seconds", "crawlconsole_pages_stored_by_age_total", "crawlconsole_egress_rotations_total", "crawlconsole_discovery_sources"},
			[]string{"crawlconsole_cluster_workers"}},
		{view.RoleMaster, []string{"crawlconsole_cluster_workers", "crawlconsole_cluster_results_committed_total", "crawlconsole_store_commit_seconds", "crawlconsole_discovery_sources"},
			[]string{"crawlconsole_dns_wait_seconds", "crawlconsole_dns_lookups_total", "crawlconsole_egress_rotations_total"}},
		{view.RoleWorker, []string{"crawlconsole_dns_wait_seconds", "crawlconsole_dns_lookups_total"},
			[]string{"crawlconsole_store_commit_seconds", "crawlconsole_revisit_refetches_total", "crawlconsole_discovery_sources", "crawlconsole_pages_stored_by_age_total"}},
	}
	for _, c := range cases {
		t.Run(c.role, func(t *testing.T) {
			col := NewCollector(node(c.role))
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(col)
			fams, err := reg.Gather()
			if err != nil {
				t.Fatalf("pedantic registry: %v", err)
			}
			have := map[string]bool{}
			for _, f := range fams {
				have[f.GetName()] = true
			}
			for _, n := range c.want {
				if !have[n] {
					t.Errorf("%s missing on a %s", n, c.role)
				}
			}
			for _, n := range c.not {
				if have[n] {
					t.Errorf("%s exported on a %s", n, c.role)
				}
			}
			problems, err := testutil.CollectAndLint(col)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("lint: %s: %s", p.Metric, p.Text)
			}
		})
	}
}

// TestCollectorValues: the figures come through unchanged, skips apart from errors,
// every skip reason present (zeros too) so rate() has a series from the start.
// The hosts report goes to /metrics only as bounded families: responses per egress
// and status class, and how many hosts refuse or fail (never one series a host).
func TestCollectorHostsFamiliesAreBounded(t *testing.T) {
	col := NewCollector(node(view.RoleLocal))
	want := `
# HELP crawlconsole_egress_responses_total Responses through each egress by HTTP status class (the hosts report's per-egress rows; "direct" without rotation).
# TYPE crawlconsole_egress_responses_total counter
crawlconsole_egress_responses_total{class="2xx",egress="direct"} 9
crawlconsole_egress_responses_total{class="4xx",egress="direct"} 1
`
	if err := testutil.CollectAndCompare(col, strings.NewReader(want), "crawlconsole_egress_responses_total"); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	fams, _ := reg.Gather()
	got := map[string]float64{}
	for _, f := range fams {
		if f.GetName() == "crawlconsole_hosts" {
			for _, m := range f.Metric {
				got[m.Label[0].GetValue()] = m.Gauge.GetValue()
			}
		}
	}
	if got["any"] != 2 || got["refusing"] != 1 || got["failing"] != 1 || len(got) != 3 {
		t.Fatalf("crawlconsole_hosts = %v, want any 2, refusing 1, failing 1", got)
	}
}

func TestCollectorValues(t *testing.T) {
	col := NewCollector(node(view.RoleLocal))
	want := `
# HELP crawlconsole_errors_total URLs that ended in a failure, by error kind (skips are apart).
# TYPE crawlconsole_errors_total counter
crawlconsole_errors_total{kind="http_4xx"} 1
`
	if err := testutil.CollectAndCompare(col, strings.NewReader(want), "crawlconsole_errors_total"); err != nil {
		t.Fatal(err)
	}
	// Articles by age band: every band, zeros too, a fixed list of seven series.
	want = `
# HELP crawlconsole_pages_stored_by_age_total Pages first stored, by how old their own publication date said they were when stored (age band; undated: the page states none).
# TYPE crawlconsole_pages_stored_by_age_total counter
crawlconsole_pages_stored_by_age_total{age="1d_7d"} 0
crawlconsole_pages_stored_by_age_total{age="1h_6h"} 2
crawlconsole_pages_stored_by_age_total{age="6h_24h"} 1
crawlconsole_pages_stored_by_age_total{age="7d_30d"} 0
crawlconsole_pages_stored_by_age_total{age="gt_30d"} 3
crawlconsole_pages_stored_by_age_total{age="lt_1h"} 5
crawlconsole_pages_stored_by_age_total{age="undated"} 4
`
	if err := testutil.CollectAndCompare(col, strings.NewReader(want), "crawlconsole_pages_stored_by_age_total"); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, k := range skips.Kinds() {
		got[k] = -1
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	fams, _ := reg.Gather()
	for _, f := range fams {
		if f.GetName() != "crawlconsole_skipped_total" {
			continue
		}
		for _, m := range f.Metric {
			got[m.Label[0].GetValue()] = m.Counter.GetValue()
		}
	}
	for k, v := range got {
		want := 0.0
		if k == "robots_disallowed" {
			want = 4
		}
		if v != want {
			t.Errorf("crawlconsole_skipped_total{reason=%q} = %v, want %v", k, v, want)
		}
	}

	// Discovery: sources by kind and whether another covers them (read at max_poll
	// only), what they announced, date hints followed and ignored, untrusted sites.
	want = `
# HELP crawlconsole_discovery_sources Feeds and sitemaps (indexes too) discovery reads, by kind and whether another source of their site covers them and they are read at max_poll only.
# TYPE crawlconsole_discovery_sources gauge
crawlconsole_discovery_sources{kind="feed",state="covered"} 0
crawlconsole_discovery_sources{kind="feed",state="polled"} 1
crawlconsole_discovery_sources{kind="sitemap",state="covered"} 1
crawlconsole_discovery_sources{kind="sitemap",state="polled"} 1
# HELP crawlconsole_discovery_announced_total URLs feeds and sitemaps listed, every read counted (this process).
# TYPE crawlconsole_discovery_announced_total counter
crawlconsole_discovery_announced_total 340
# HELP crawlconsole_discovery_date_hints_total Dates in feeds and sitemaps that moved: followed (the page made due) or ignored (the site's dates are not trusted).
# TYPE crawlconsole_discovery_date_hints_total counter
crawlconsole_discovery_date_hints_total{outcome="followed"} 2
crawlconsole_discovery_date_hints_total{outcome="ignored"} 7
# HELP crawlconsole_discovery_untrusted_sites Sites whose lastmod/pubDate dates are ignored: always the serving time, or moved without the content changing.
# TYPE crawlconsole_discovery_untrusted_sites gauge
crawlconsole_discovery_untrusted_sites 1
`
	if err := testutil.CollectAndCompare(col, strings.NewReader(want), "crawlconsole_discovery_sources", "crawlconsole_discovery_announced_total",
		"crawlconsole_discovery_date_hints_total", "crawlconsole_discovery_untrusted_sites"); err != nil {
		t.Fatal(err)
	}

	// A crawl whose store failed says so, for an alert rule to page someone at night.
	failed := node(view.RoleLocal)
	failed.snap.State = view.StateFailed
	want = `
# HELP crawlconsole_crawl_state 1 for the crawl's current state, 0 for the others; FAILED: the store failed and the crawl stopped itself.
# TYPE crawlconsole_crawl_state gauge
crawlconsole_crawl_state{state="DONE"} 0
crawlconsole_crawl_state{state="DRAINING"} 0
crawlconsole_crawl_state{state="FAILED"} 1
crawlconsole_crawl_state{state="IDLE"} 0
crawlconsole_crawl_state{state="PAUSED"} 0
crawlconsole_crawl_state{state="RUNNING"} 0
crawlconsole_crawl_state{state="STARTING"} 0
crawlconsole_crawl_state{state="STOPPING"} 0
`
	if err := testutil.CollectAndCompare(NewCollector(failed), strings.NewReader(want), "crawlconsole_crawl_state"); err != nil {
		t.Fatal(err)
	}
}

// The browser's state is one series per state, the one it is in at 1: a browser
// stopping (a restart, one killed for not answering) is not shown idle; the
// restarts and the browsers killed for not answering are counted.
func TestCollectorRenderBrowserState(t *testing.T) {
	for _, c := range []struct {
		name string
		r    view.RenderStats
		want string
	}{
		{"running", view.RenderStats{Running: true}, "running"},
		{"starting", view.RenderStats{Starting: true}, "starting"},
		{"stopping", view.RenderStats{Stopping: true, Restarts: 2, Hung: 1, WaitedOut: 3}, "stopping"},
		{"idle", view.RenderStats{}, "idle"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := node(view.RoleLocal)
			n.tel.Render = &c.r
			var want strings.Builder
			want.WriteString(`
# HELP crawlconsole_render_browser The headless browser's state: 1 for the one it is in (running, starting, stopping: the last one is going and the next starts once it is gone, idle: none runs), 0 for the others.
# TYPE crawlconsole_render_browser gauge
`)
			for _, s := range []string{"idle", "running", "starting", "stopping"} {
				v := 0
				if s == c.want {
					v = 1
				}
				fmt.Fprintf(&want, "crawlconsole_render_browser{state=%q} %d\n", s, v)
			}
			fmt.Fprintf(&want, `# HELP crawlconsole_render_browser_restarts_total Browser starts after the first: after render.restart_after renders, over render.memory_mb, or after a browser died or was killed.
# TYPE crawlconsole_render_browser_restarts_total counter
crawlconsole_render_browser_restarts_total %d
# HELP crawlconsole_render_browser_hung_total Browsers killed for not answering in render.start_timeout when a session's browser context or a new page was made.
# TYPE crawlconsole_render_browser_hung_total counter
crawlconsole_render_browser_hung_total %d
# HELP crawlconsole_render_page_wait_timeouts_total Renders that found every browser page busy (render.contexts), none freed for a whole time cap (render.timeout) or all going to other renders for render.start_timeout + render.timeout: their pages kept plain, counted in render_pages_total{outcome="kept_plain"} too.
# TYPE crawlconsole_render_page_wait_timeouts_total counter
crawlconsole_render_page_wait_timeouts_total %d
`, c.r.Restarts, c.r.Hung, c.r.WaitedOut)
			if err := testutil.CollectAndCompare(NewCollector(n), strings.NewReader(want.String()), "crawlconsole_render_browser",
				"crawlconsole_render_browser_restarts_total", "crawlconsole_render_browser_hung_total", "crawlconsole_render_page_wait_timeouts_total"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Renders of pages that never settled are counted, in all and per host.
func TestCollectorRenderUnsettled(t *testing.T) {
	n := node(view.RoleLocal)
	n.tel.Render = &view.RenderStats{Running: true, Renders: 5, Unsettled: 2,
		Hosts: []view.RenderHost{{Host: "hang.test", Renders: 2, Unsettled: 2}}}
	want := `
# HELP crawlconsole_render_unsettled_total Renders of pages that never settled: a polling page read early or at the time cap, or a script that never yielded, ended before the cap.
# TYPE crawlconsole_render_unsettled_total counter
crawlconsole_render_unsettled_total 2
# HELP crawlconsole_render_host_unsettled_total Renders of pages that never settled on the hosts with the most renders (at most 20 hosts); such a host's next pages render in half the time.
# TYPE crawlconsole_render_host_unsettled_total counter
crawlconsole_render_host_unsettled_total{host="hang.test"} 2
`
	if err := testutil.CollectAndCompare(NewCollector(n), strings.NewReader(want), "crawlconsole_render_unsettled_total",
		"crawlconsole_render_host_unsettled_total"); err != nil {
		t.Fatal(err)
	}
	if probs, err := testutil.CollectAndLint(NewCollector(n)); err != nil || len(probs) > 0 {
		t.Errorf("lint: %v %v", probs, err)
	}
}
