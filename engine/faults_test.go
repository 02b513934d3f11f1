package engine_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestFaultyWebIsAccountedFor: a crawl of a sandbox where 20% of the pages are
// faulty (every fault kind: slow, trickled, 5xx, resets, redirect chains and loops,
// huge, binary, malformed, invalid UTF-8) ends without a crash, and every URL it
// knows is accounted for: stored, or failed or skipped with a kind, or deferred;
// none left queued or in progress; and retries are bounded by fetch.retries, both in
// the store's attempts and in the requests the sandbox saw.
func TestFaultyWebIsAccountedFor(t *testing.T) {
	t.Parallel()
	cfg := sandbox.DefaultConfig()
	// Two listing pages a section, not four: half the pages, a hundred and more,
	// every fault kind among them (this seed's has two huge pages).
	cfg.Seed, cfg.Hosts, cfg.Scale = 29, 8, 50
	cfg.Layout.ListingPages = 2
	cfg.Faults.Shares = map[string]float64{}
	for _, k := range sandbox.FaultKinds() {
		cfg.Faults.Shares[k] = 0.02 // 10 kinds: 20% of the pages
	}
	cfg.Faults.HugeBytes = 12 << 20 // past the 10 MiB body cap, without streaming 64 MiB
	// Slow and trickled still: a first byte 15 anti-bot gaps late, a body in 256-byte
	// chunks (a 4 KB page in 300 ms), and the latency term of the host's gap stays
	// at its cap (5 × 600 ms > 600 ms, politeness.max_delay at this scale); at the
	// real-time defaults (3 s, 100 ms a chunk) each such page held its host's lane
	// for seconds.
	cfg.Faults.SlowFirstByte, cfg.Faults.TrickleInterval = 600*time.Millisecond, 20*time.Millisecond
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	o, stats, truth := crawlSandboxPolitely(t, cfg)
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
	// Bounded retries. The store counts a URL's hand-outs to a lane (attempts: each
	// time it goes in progress); a lane tries a transient fault (5xx, reset, timeout)
	// at most 1+fetch.retries times per hand-out, then records it failed with its
	// kind. A URL re-queued without end, or retried without end in its lane, breaks
	// one of the two bounds.
	tries := o.Fetch.Retries + 1
	attempts := map[string]int{}
	rows, err := db.Query(`SELECT url, attempts FROM urls`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u string
		var n int
		if err := rows.Scan(&u, &n); err != nil {
			t.Fatal(err)
		}
		attempts[u] = n
		if n > tries {
			t.Errorf("%s was handed to a lane %d times; at most %d (fetch.retries %d + 1)", u, n, tries, o.Fetch.Retries)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	answered, resets := map[string]int{}, map[string]int{}
	for _, r := range truth.Requests() {
		switch {
		case r.Kind == "robots":
		case r.Status == 0:
			resets[r.URL]++
		default:
			answered[r.URL]++
		}
	}
	for u, n := range answered {
		if limit := tries * max(1, attempts[u]); n > limit {
			t.Errorf("the sandbox answered %s %d times; at most %d (%d hand-outs × %d tries)", u, n, limit, max(1, attempts[u]), tries)
		}
	}
	for u, n := range resets {
		// net/http replays an idempotent request once when a reused keep-alive
		// connection turns out dead (Transport's shouldRetryRequest), and a reset
		// looks just like that to it: up to two requests per try.
		if limit := 2 * tries * max(1, attempts[u]); n > limit {
			t.Errorf("the sandbox reset %s %d times; at most %d (%d hand-outs × %d tries, each replayed once by net/http)", u, n, limit, max(1, attempts[u]), tries)
		}
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
