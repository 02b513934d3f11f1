package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// fastSandbox starts a sandbox web of 10 hosts at 1000x (Crawl-delay 5 s web = 5 ms)
// with no anti-bot rule, no faults and no DNS failures, and writes a config for a
// fast crawl of it (no per-host cap, 8 lanes): the subprocess tests that judge what a
// crawl keeps, not how politely it got it. It returns the sandbox (closed with the
// test), its sites' entry pages and the config's path, in the test's temp dir.
func fastSandbox(t *testing.T) (*sandbox.Sandbox, []string, string) {
	t.Helper()
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 3, 10, 1000
	cfg.AntiBot.Enabled = false
	cfg.Faults.Shares = nil
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, time.Millisecond
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	var seeds []string
	for _, s := range sb.Info().Sites {
		seeds = append(seeds, s.Entry)
	}
	conf := filepath.Join(t.TempDir(), "crawl.yaml")
	if err := os.WriteFile(conf, []byte("host_rate: 0 # no per-host cap: the test wants speed\nlanes:\n  max: 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return sb, seeds, conf
}
