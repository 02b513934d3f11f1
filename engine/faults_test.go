package engine_test

import (
	"database/sql"
	"testing"

	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestFaultyWebIsAccountedFor: a crawl of a sandbox where 20% of the pages are
// faulty (every fault kind: slow, trickled, 5xx, resets, redirect chains and loops,
// huge, binary, malformed, invalid UTF-8) ends without a crash, and every URL it
// knows is accounted for: stored, or failed or skipped with a kind, or deferred;
// none left queued or in progress (issue 13).
func TestFaultyWebIsAccountedFor(t *testing.T) {
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 29, 8, 50
	cfg.Faults.Shares = map[string]float64{}
	for _, k := range sandbox.FaultKinds() {
		cfg.Faults.Shares[k] = 0.02 // 10 kinds: 20% of the pages
	}
	cfg.Faults.HugeBytes = 12 << 20 // past the 10 MiB body cap, without streaming 64 MiB
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	o, stats, _ := crawlSandboxPolitely(t, cfg)
	st, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Counts()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if c.Unprocessed != 0 || c.InProgress != 0 {
		t.Fatalf("%d URLs still queued and %d in progress after the crawl ended: %+v", c.Unprocessed, c.InProgress, c)
	}
	if c.Processed+c.Failed+c.Deferred != c.URLs || c.Pages == 0 {
		t.Fatalf("URLs not accounted for: %+v", c)
	}
	db, err := sql.Open("sqlite3", "file:"+o.DB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var unexplained int
	// Failed without a kind, or processed with neither a page nor a kind.
	if err := db.QueryRow(`SELECT count(*) FROM urls u WHERE (u.state = 3 AND u.err_kind = '')
		OR (u.state = 2 AND u.err_kind = '' AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.url = u.url))`).Scan(&unexplained); err != nil {
		t.Fatal(err)
	}
	if unexplained != 0 {
		t.Errorf("%d URLs ended with neither a stored page nor a kind", unexplained)
	}
	var kinds int64
	for _, n := range stats.Errors {
		kinds += n
	}
	if kinds == 0 || stats.Errors["body_too_large"] == 0 {
		t.Errorf("a crawl of a 20%% faulty web (huge pages past the cap among them) counted error kinds %v", stats.Errors)
	}
	t.Logf("%+v; error kinds %v", c, stats.Errors)
}
