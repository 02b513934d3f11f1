package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/metrics"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// scrape fetches /metrics and parses it with Prometheus's own text parser; it also
// returns the raw text (for promtool).
func scrape(t *testing.T, addr string) (map[string]*dto.MetricFamily, []byte) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %v\n%s", resp.StatusCode, err, raw)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the Prometheus text parser refuses /metrics: %v\n%s", err, raw)
	}
	return fams, raw
}

// series is one family's values by the value of one label ("" for an unlabelled
// metric): counters, gauges, and a histogram's sample count.
func series(fams map[string]*dto.MetricFamily, name, label string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.Metric {
		key := ""
		for _, l := range m.Label {
			if l.GetName() == label {
				key = l.GetValue()
			}
		}
		switch {
		case m.Counter != nil:
			out[key] = m.Counter.GetValue()
		case m.Gauge != nil:
			out[key] = m.Gauge.GetValue()
		case m.Histogram != nil:
			out[key] = float64(m.Histogram.GetSampleCount())
		}
	}
	return out
}

func one(fams map[string]*dto.MetricFamily, name string) float64 {
	return series(fams, name, "")[""]
}

func sum(m map[string]float64) (n float64) {
	for _, v := range m {
		n += v
	}
	return n
}

// TestMetricsDuringSandboxCrawl scrapes /metrics while a sandbox crawl runs (with
// faults, robots.txt exclusions and a scope exclusion), checks that the counters move
// between scrapes, and at the end that every figure agrees with the --stats-json
// object of the same crawl, skips apart from errors. promtool, when installed
// (Debian's prometheus package; .ci/run installs it), must find nothing to say.
func TestMetricsDuringSandboxCrawl(t *testing.T) {
	t.Parallel() // its own sandbox, store and /metrics port
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 7, 10, 100
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	o := DemoOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	o.Scope.Exclude = []string{`/list\?p=2$`} // out of scope: counted as skipped, never fetched
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := metrics.Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve(e)
	defer srv.Close()
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	fetched := func(f map[string]*dto.MetricFamily) float64 {
		return sum(series(f, "crawlconsole_pages_fetched_total", "class"))
	}
	waitScrape := func(what string, ok func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
		t.Helper()
		deadline := time.Now().Add(enginetest.Patience)
		for {
			f, _ := scrape(t, srv.Addr())
			if ok(f) {
				return f
			}
			if time.Now().After(deadline) {
				t.Fatalf("/metrics never showed %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first := waitScrape("a fetched page", func(f map[string]*dto.MetricFamily) bool { return fetched(f) > 0 })
	if series(first, "crawlconsole_crawl_state", "state")["RUNNING"] != 1 {
		t.Fatalf("crawl_state while crawling: %v", series(first, "crawlconsole_crawl_state", "state"))
	}
	waitScrape("the fetched counter move", func(f map[string]*dto.MetricFamily) bool {
		return fetched(f) > fetched(first) && one(f, "crawlconsole_pages_stored_total") > one(first, "crawlconsole_pages_stored_total") &&
			one(f, "crawlconsole_fetched_bytes_total") > one(first, "crawlconsole_fetched_bytes_total")
	})
	select {
	case <-e.Done():
	case <-time.After(enginetest.Patience):
		t.Fatal("the sandbox crawl did not finish")
	}
	e.Stop() // nothing moves any more: the last scrape and the stats object see the same crawl
	last, raw := scrape(t, srv.Addr())
	st := e.Stats()
	path := filepath.Join(t.TempDir(), "stats.json")
	if err := writeStats(path, st, nil); err != nil {
		t.Fatal(err)
	}
	var js struct {
		PagesFetched  float64            `json:"pages_fetched"`
		PagesStored   float64            `json:"pages_stored"`
		BytesFetched  float64            `json:"bytes_fetched"`
		Refused       float64            `json:"refused"`
		URLsQueued    float64            `json:"urls_queued"`
		URLsDone      float64            `json:"urls_done"`
		Deferred      float64            `json:"deferred"`
		Errors        map[string]float64 `json:"errors"`
		Skipped       map[string]float64 `json:"skipped"`
		StatusClasses map[string]float64 `json:"status_classes"`
		Egress        struct {
			Rotations     float64 `json:"rotations"`
			HostsDisabled float64 `json:"hosts_disabled"`
		} `json:"egress"`
		Revisit struct {
			Refetches    float64 `json:"refetches"`
			Changes      float64 `json:"changes"`
			FirstPlanned float64 `json:"first_planned"`
			FirstProbed  float64 `json:"first_probed"`
		} `json:"revisit"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	var dnsObj struct { // the dns object's counters (its wait_histogram is a list: decoded apart)
		DNS struct {
			PositiveHits float64 `json:"positive_hits"`
			NegativeHits float64 `json:"negative_hits"`
			Misses       float64 `json:"misses"`
		} `json:"dns"`
	}
	if err := json.Unmarshal(b, &dnsObj); err != nil {
		t.Fatal(err)
	}
	if js.Skipped["robots_disallowed"] == 0 || js.Skipped["out_of_scope_excluded"] == 0 {
		t.Fatalf("the crawl should have skipped robots.txt exclusions and out-of-scope links: %s", b)
	}
	if _, bad := js.Errors["robots_disallowed"]; bad {
		t.Fatalf("robots.txt exclusions counted as errors: %v", js.Errors)
	}
	if len(js.Errors) == 0 {
		t.Fatalf("the faulty sandbox should have caused errors: %s", b)
	}

	scalars := []struct {
		metric string
		want   float64
	}{
		{"crawlconsole_pages_stored_total", js.PagesStored},
		{"crawlconsole_fetched_bytes_total", js.BytesFetched},
		{"crawlconsole_refusals_total", js.Refused},
		{"crawlconsole_urls_queued_total", js.URLsQueued},
		{"crawlconsole_urls_done_total", js.URLsDone},
		{"crawlconsole_urls_deferred_total", js.Deferred},
		{"crawlconsole_egress_rotations_total", js.Egress.Rotations},
		{"crawlconsole_egress_host_disables_total", js.Egress.HostsDisabled},
		{"crawlconsole_revisit_refetches_total", js.Revisit.Refetches},
		{"crawlconsole_revisit_changes_total", js.Revisit.Changes},
		{"crawlconsole_revisit_first_planned_total", js.Revisit.FirstPlanned},
		{"crawlconsole_revisit_first_probed_total", js.Revisit.FirstProbed},
	}
	for _, c := range scalars {
		t.Run(c.metric, func(t *testing.T) {
			if got := one(last, c.metric); got != c.want {
				t.Fatalf("%s = %v, --stats-json says %v", c.metric, got, c.want)
			}
		})
	}
	labelled := []struct {
		metric, label string
		want          map[string]float64
	}{
		{"crawlconsole_errors_total", "kind", js.Errors},
		{"crawlconsole_skipped_total", "reason", js.Skipped},
		{"crawlconsole_pages_fetched_total", "class", js.StatusClasses},
		{"crawlconsole_dns_lookups_total", "result", map[string]float64{"positive_hit": dnsObj.DNS.PositiveHits,
			"negative_hit": dnsObj.DNS.NegativeHits, "miss": dnsObj.DNS.Misses}},
	}
	for _, c := range labelled {
		t.Run(c.metric, func(t *testing.T) {
			got := series(last, c.metric, c.label)
			for k, v := range got {
				if v == 0 {
					delete(got, k) // every skip reason and status class is exported, zeros too
				}
			}
			want := map[string]float64{}
			for k, v := range c.want {
				if v != 0 {
					want[k] = v
				}
			}
			if !mapsEqual(got, want) {
				t.Fatalf("%s by %s = %v, --stats-json says %v", c.metric, c.label, got, want)
			}
		})
	}
	if f := fetched(last); f != js.PagesFetched {
		t.Fatalf("pages fetched by class add up to %v, --stats-json pages_fetched %v", f, js.PagesFetched)
	}
	if one(last, "crawlconsole_dns_wait_seconds") == 0 || one(last, "crawlconsole_store_commit_seconds") == 0 {
		t.Fatalf("the DNS wait and store commit histograms are empty after a crawl")
	}
	if series(last, "crawlconsole_node_info", "role")["local"] != 1 {
		t.Fatalf("node_info: %v", series(last, "crawlconsole_node_info", "role"))
	}
	promtoolCheck(t, raw)
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// promtoolCheck runs `promtool check metrics` (the Prometheus project's linter: names,
// units, _total on counters, help text) on a scrape; it must report nothing.
func promtoolCheck(t *testing.T, raw []byte) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool not installed (Debian: apt-get install prometheus; .ci/run does): lint skipped")
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestMetricsAddress: /metrics stays on loopback unless --metrics-public says
// otherwise, on every command that takes --metrics, and a bad address is a usage
// error (exit 2) that names the flag, before any crawl starts.
func TestMetricsAddress(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	keys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(keys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"crawl all interfaces", []string{"crawl", "--db", db, "--metrics", ":9464", "http://127.0.0.1:1/"}, "--metrics-public"},
		{"crawl public address", []string{"crawl", "--db", db, "--metrics", "10.1.2.3:9464", "http://127.0.0.1:1/"}, "not a loopback address"},
		{"crawl no port", []string{"crawl", "--db", db, "--metrics", "127.0.0.1", "http://127.0.0.1:1/"}, "want HOST:PORT"},
		{"demo", []string{"demo", "--headless", "--metrics", "0.0.0.0:9464"}, "--metrics-public"},
		{"serve", []string{"serve", "--db", db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "hk"),
			"--authorized-keys", keys, "--metrics", "[::]:9464", "http://127.0.0.1:1/"}, "--metrics-public"},
		{"master", []string{"master", "--db", db, "--metrics", "192.168.1.1:9464", "http://127.0.0.1:1/"}, "--metrics-public"},
		{"worker", []string{"worker", "--join", "nats://127.0.0.1:1", "--name", "w1", "--token", "x", "--metrics", "0.0.0.0:9464"}, "--metrics-public"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Main(c.args, &out, &errb); code != ExitUsage || !strings.Contains(errb.String(), c.want) {
				t.Fatalf("exit %d, stderr %q: want exit %d and %q", code, errb.String(), ExitUsage, c.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Fatal("the store was created before the bad --metrics was refused")
			}
		})
	}
	t.Run("busy port", func(t *testing.T) {
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		var out, errb bytes.Buffer
		args := []string{"worker", "--join", "nats://127.0.0.1:1", "--name", "w1", "--token", "x", "--metrics", busy.Addr().String()}
		if code := Main(args, &out, &errb); code != ExitUsage || !strings.Contains(errb.String(), "--metrics "+busy.Addr().String()) ||
			!strings.Contains(errb.String(), "address already in use") {
			t.Fatalf("exit %d, stderr %q: want exit %d naming the busy --metrics address", code, errb.String(), ExitUsage)
		}
	})
	t.Run("public allowed when asked", func(t *testing.T) {
		if err := metrics.CheckAddr("0.0.0.0:9464", true); err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"127.0.0.1:9464", "[::1]:9464", "localhost:9464", "127.0.0.2:0"} {
			if err := metrics.CheckAddr(a, false); err != nil {
				t.Fatalf("%s: %v", a, err)
			}
		}
	})
}

// TestMetricsFlagServes runs the demo as a user would, with --metrics on a free
// loopback port, and scrapes it while it crawls: alone (a local crawl) and as a
// master with two workers in the process, whose /metrics adds the cluster figures
// (workers by state, results committed per worker).
func TestMetricsFlagServes(t *testing.T) {
	t.Parallel() // its own demos, stores and /metrics ports
	cases := []struct {
		name  string
		args  []string
		check func(f map[string]*dto.MetricFamily) bool
	}{
		{"local", nil, func(f map[string]*dto.MetricFamily) bool {
			return series(f, "crawlconsole_node_info", "role")["local"] == 1 &&
				sum(series(f, "crawlconsole_pages_fetched_total", "class")) > 0
		}},
		{"master", []string{"--workers", "2"}, func(f map[string]*dto.MetricFamily) bool {
			return series(f, "crawlconsole_node_info", "role")["master"] == 1 &&
				series(f, "crawlconsole_cluster_workers", "state")["active"] == 2 &&
				len(series(f, "crawlconsole_cluster_results_committed_total", "node")) == 2 &&
				sum(series(f, "crawlconsole_cluster_results_committed_total", "node")) > 0 &&
				sum(series(f, "crawlconsole_pages_fetched_total", "class")) > 0
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errb := &syncBuffer{}
			done := make(chan int, 1)
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			args := append([]string{"--headless", "--duration", "60s", "--hosts", "8", "--scale", "50",
				"--db", filepath.Join(t.TempDir(), "d.db"), "--metrics", "127.0.0.1:0"}, c.args...)
			go func() { done <- runDemo(ctx, args, io.Discard, errb) }()
			addr := metricsAddr(t, errb)
			deadline := time.Now().Add(enginetest.Patience)
			var held *keptConn
			for {
				f, raw := scrape(t, addr)
				if c.check(f) {
					promtoolCheck(t, raw)
					held = keptAlive(t, addr)
					stop() // as Ctrl-C would: the crawl ends, and /metrics with it
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("/metrics never showed what a %s node should:\n%s", c.name, raw)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if code := <-done; code != 0 {
				t.Fatalf("demo exit %d: %s", code, errb.String())
			}
			// Asked on the connection the server answered before the stop, not on a
			// new one: a new one could reach whichever parallel test was given the
			// port once it was free. The server's shutdown closes it.
			if status, err := held.get(); err == nil {
				t.Fatalf("/metrics still served after the crawl ended: %s", status)
			}
		})
	}
}

// keptConn is a kept-alive connection to a /metrics server.
type keptConn struct {
	c  net.Conn
	br *bufio.Reader
}

// keptAlive opens a connection to addr and has /metrics answered on it once, so that
// the server keeps it as an idle keep-alive connection (it sets no idle timeout)
// until it shuts down.
func keptAlive(t *testing.T, addr string) *keptConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	k := &keptConn{c: c, br: bufio.NewReader(c)}
	if status, err := k.get(); err != nil {
		t.Fatalf("/metrics on a kept-alive connection: %s %v", status, err)
	}
	return k
}

// get asks for /metrics on the connection and reads the answer whole.
func (k *keptConn) get() (string, error) {
	k.c.SetDeadline(time.Now().Add(enginetest.Patience))
	if _, err := io.WriteString(k.c, "GET /metrics HTTP/1.1\r\nHost: metrics\r\n\r\n"); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(k.br, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return resp.Status, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.Status, fmt.Errorf("status %s", resp.Status)
	}
	return resp.Status, nil
}

// TestSummarySkippedApart: the end-of-crawl line and the headless progress line
// count robots.txt exclusions apart from errors (a 405-page crawl must not show
// "errors 360" when all of them are robots.txt exclusions).
func TestSummarySkippedApart(t *testing.T) {
	st := view.Stats{PagesFetched: 405, Errors: map[string]int64{"timeout": 2},
		Skipped: map[string]int64{"robots_disallowed": 360, "out_of_scope_off_site": 40}}
	warns := map[string]int64{"discovery_invalid_date": 5}
	cases := []struct{ name, got, want string }{
		{"summary", summary(st), "errors: timeout=2; skipped: out_of_scope_off_site=40 robots_disallowed=360"},
		{"summary, none", summary(view.Stats{}), "errors: none; skipped: none"},
		{"progress", progress(view.Snapshot{Totals: view.Totals{Errors: st.Errors, Skipped: st.Skipped}}), "errors 2  skipped 400"},
		// A feed's invalid dates are warnings: apart from the errors, and named.
		{"summary, warnings", summary(view.Stats{Errors: st.Errors, Warnings: warns}), "errors: timeout=2; skipped: none; warnings: discovery_invalid_date=5"},
		{"progress, warnings", progress(view.Snapshot{Totals: view.Totals{Errors: st.Errors, Warnings: warns}}), "errors 2  skipped 0  warnings 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.HasSuffix(c.got, c.want) {
				t.Fatalf("%q\nshould end with %q", c.got, c.want)
			}
		})
	}
}

// TestMetricsMasterAndWorker runs `master` and `worker` as a user would (in this
// process, over NATS on loopback), each with --metrics: the worker reports the fetch
// side it owns (its lanes, DNS cache, pages it fetched; no store), the master the
// frontier, the store and its workers.
func TestMetricsMasterAndWorker(t *testing.T) {
	t.Parallel() // its own sandbox, store, NATS address and /metrics ports
	sb := clusterSandbox(t, 11, 8, nil)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	listen := uitest.FreeAddr(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	masterErr, workerErr := &syncBuffer{}, &syncBuffer{}
	args := []string{"--config", politeConfig(t, sb, dir, 4), "--headless", "--db", db, "--listen", listen,
		"--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(), "--heartbeat", "200ms", "--metrics", "127.0.0.1:0"}
	for _, s := range sb.Info().Sites {
		args = append(args, s.Entry)
	}
	masterDone := make(chan int, 1)
	go func() { masterDone <- runMaster(ctx, args, io.Discard, masterErr) }()
	masterAddr := metricsAddr(t, masterErr)
	workerDone := make(chan int, 1)
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	go func() {
		workerDone <- runWorker(wctx, []string{"--join", "nats://" + listen, "--name", "w1", "--token-file", db + ".token",
			"--allow-private", "127.0.0.0/8", "--egress", "bind:127.0.0.71", "--metrics", "127.0.0.1:0"}, io.Discard, workerErr)
	}()
	workerAddr := metricsAddr(t, workerErr)

	waitFor := func(addr, what string, ok func(map[string]*dto.MetricFamily) bool) {
		t.Helper()
		deadline := time.Now().Add(enginetest.Patience)
		for {
			f, raw := scrape(t, addr)
			if ok(f) {
				promtoolCheck(t, raw)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never showed on /metrics:\n%s", what, raw)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor(workerAddr, "a worker that fetched and resolved", func(f map[string]*dto.MetricFamily) bool {
		return series(f, "crawlconsole_node_info", "role")["worker"] == 1 &&
			sum(series(f, "crawlconsole_pages_fetched_total", "class")) > 0 &&
			sum(series(f, "crawlconsole_dns_lookups_total", "result")) > 0 && one(f, "crawlconsole_dns_wait_seconds") > 0 &&
			f["crawlconsole_store_commit_seconds"] == nil && f["crawlconsole_cluster_workers"] == nil
	})
	waitFor(masterAddr, "a master that committed its worker's results", func(f map[string]*dto.MetricFamily) bool {
		return series(f, "crawlconsole_node_info", "role")["master"] == 1 &&
			series(f, "crawlconsole_cluster_workers", "state")["active"] == 1 &&
			series(f, "crawlconsole_cluster_results_committed_total", "node")["w1"] > 0 &&
			one(f, "crawlconsole_pages_stored_total") > 0 && one(f, "crawlconsole_store_commit_seconds") > 0 &&
			f["crawlconsole_dns_lookups_total"] == nil // the workers own their caches
	})
	stopWorker() // first: a worker leaves through its master
	<-workerDone
	stop()
	<-masterDone
}

// metricsAddr waits for the "metrics on http://ADDR/metrics" line a command prints.
func metricsAddr(t *testing.T, out *syncBuffer) string {
	t.Helper()
	deadline := time.Now().Add(enginetest.Patience)
	for {
		if _, rest, ok := strings.Cut(out.String(), "metrics on http://"); ok {
			if addr, _, ok := strings.Cut(rest, "/metrics"); ok {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics address printed: %q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
