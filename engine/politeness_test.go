package engine_test

import (
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestPoliteAgainstSandboxTruth crawls the sandbox web (anti-bot rule on) from four
// loopback addresses and checks what the sandbox saw (seed 000 / M1):
//   - no two requests from one IP to adjacent pages (same host or same parent) overlap;
//   - inside a lane, every request starts at least delay_min after the previous ended;
//   - no robots-disallowed path was fetched; no IP was banned; nothing was refused.
func TestPoliteAgainstSandboxTruth(t *testing.T) {
	t.Parallel()
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 7, 24, 50
	// Two listing pages a section, not four: a host's pages come one after the
	// other at its gap, so its crawl takes half as long, and 24 hosts still give
	// hundreds of pages and in-lane gaps to judge.
	cfg.Layout.ListingPages = 2
	cfg.Faults.Shares = nil // faults have their own tests; here every request is judged
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	o, stats, truth := crawlSandboxPolitely(t, cfg)
	reqs := truth.Requests()
	if stats.PagesStored < 300 || len(reqs) == 0 {
		t.Fatalf("crawl too small to judge: %+v", stats)
	}
	if bans := truth.Bans(); len(bans) != 0 {
		t.Fatalf("%d bans, first %+v", len(bans), bans[0])
	}
	if v := truth.RobotsViolations(); len(v) != 0 {
		t.Fatalf("%d robots-disallowed fetches, first %s", len(v), v[0].URL)
	}
	if stats.Refused != 0 {
		t.Fatalf("%d refusals", stats.Refused)
	}

	// No overlap of adjacent requests from one IP.
	byIP := map[string][]sandbox.Request{}
	for _, r := range reqs {
		byIP[r.IP] = append(byIP[r.IP], r)
	}
	if len(byIP) != 4 {
		t.Fatalf("requests came from %d IPs, want the 4 egresses", len(byIP))
	}
	for ip, rs := range byIP {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		for i, a := range rs {
			for _, b := range rs[i+1:] {
				if !b.Start.Before(a.End) {
					break // sorted by start: nothing later overlaps a
				}
				if a.Host == b.Host || (a.Parent != "" && a.Parent == b.Parent) {
					t.Fatalf("%s: adjacent requests overlap: %s and %s", ip, a.URL, b.URL)
				}
			}
		}
	}

	// Gaps inside each lane (the store records the lane of every URL).
	st, err := store.Open(o.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	byLane := map[int][]sandbox.Request{}
	for _, r := range reqs {
		if r.Kind == "robots" {
			continue
		}
		u, err := st.URLState(r.URL)
		if err != nil || u.Lane == 0 {
			continue // a same-host redirect hop: its URL is the task's, paced by the fetcher
		}
		byLane[u.Lane] = append(byLane[u.Lane], r)
	}
	checked := 0
	for lane, rs := range byLane {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		for i := 1; i < len(rs); i++ {
			if g := rs[i].Start.Sub(rs[i-1].End); g < o.Lanes.DelayMin {
				t.Fatalf("lane %d: %s started %v after %s ended, want >= %v", lane, rs[i].URL, g, rs[i-1].URL, o.Lanes.DelayMin)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Fatalf("only %d in-lane gaps checked", checked)
	}
	t.Logf("%d requests from %d IPs, %d pages stored, %d in-lane gaps >= %v, 0 bans", len(reqs), len(byIP), stats.PagesStored, checked, o.Lanes.DelayMin)
}

// TestPoliteThroughConnectionResets: when a server hangs up on a kept-alive connection
// after reading a request, net/http sends the request again on a new connection by
// itself; unpaced, that replay is a second request right behind the first, which the
// sandbox's rule counts as a violation (the demo saw about one per reset). Here one
// article in ten resets its connection, and no request may break the rule.
func TestPoliteThroughConnectionResets(t *testing.T) {
	t.Parallel()
	cfg := sandbox.DefaultConfig()
	// Twice the hosts at half the pages each (two listing pages a section): about
	// as many pages and resets as six full hosts, crawled side by side in half the
	// time (a host's pages come one after the other at its gap).
	cfg.Seed, cfg.Hosts, cfg.Scale = 11, 12, 50
	cfg.Layout.ListingPages = 2
	cfg.Faults.Shares = map[string]float64{sandbox.FaultReset: 0.1}
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	_, stats, truth := crawlSandboxPolitely(t, cfg)
	resets := stats.Errors["reset"]
	if stats.PagesStored < 100 || resets < 5 {
		// The failures and skips by kind say why, should a loaded box ever starve the seeds.
		t.Fatalf("crawl too small to judge: %d pages stored, %d resets, %d requests; errors %v, skipped %v",
			stats.PagesStored, resets, len(truth.Requests()), stats.Errors, stats.Skipped)
	}
	for _, r := range truth.Requests() {
		if r.Violation {
			t.Fatalf("%s from %s broke the adjacency rule (%d resets in the crawl)", r.URL, r.IP, resets)
		}
	}
	if bans := truth.Bans(); len(bans) != 0 {
		t.Fatalf("%d bans, first %+v", len(bans), bans[0])
	}
	t.Logf("%d pages stored, %d resets, %d requests, no violation", stats.PagesStored, resets, len(truth.Requests()))
}

// crawlSandboxPolitely crawls a sandbox started with cfg to the end from four
// loopback addresses with the demo's politeness scaled to the web's clock, and
// returns the options, the crawl's stats and the sandbox's truth log.
func crawlSandboxPolitely(t *testing.T, cfg sandbox.Config) (config.Options, view.Stats, *sandbox.Truth) {
	t.Helper()
	sb := enginetest.StartSandbox(t, cfg)
	o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	o.Revisit = config.DefaultOptions().Revisit // the crawl revisits as a user's would
	o.Egress = []string{"bind:127.0.0.2", "bind:127.0.0.3", "bind:127.0.0.4", "bind:127.0.0.5"}
	o.Rotation.PerNode = 0 // use all four at once
	// A transient fault's retry waits at the web's pace too: 2 s real is 100 s of a
	// scale-50 web's time, and a host with a few resets waited out several of them
	// one after the other. The retry still keeps the host's gap, which the sandbox
	// judges.
	o.Fetch.RetryBackoff = time.Duration(float64(o.Fetch.RetryBackoff) / cfg.Scale)
	e := enginetest.CrawlToDone(t, o)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return o, e.Stats(), sb.Truth()
}
