package engine_test

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// Discovery with workers (M4): a worker fetches the feeds; the master, which has only
// the raw body and the document's kind, parses them again and queues what they
// announce. On the publishing sandbox, the feed sites' articles 21-40 by age — on no
// entry page (those list 20), only in the feed — are stored.
func TestDistributedCrawlReadsFeeds(t *testing.T) {
	t.Parallel()
	// Two sites, one with a feed: its 20 feed-only articles, as many as the seven
	// sites of a 30-host web have, in a crawl of under 400 pages.
	cfg := enginetest.SandboxConfig(1, 8)
	cfg.Publishing = true
	c := startClusterWith(t, cfg, 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) {
		o.Discovery.Probe = config.ProbeOff
	})
	var want []string
	for _, s := range c.sb.Web().PublishingSites() {
		if s.Announce != sandbox.AnnounceRSS && s.Announce != sandbox.AnnounceAtom {
			continue
		}
		arts := c.sb.Web().Published(s.Domain, c.sb.Web().Epoch().Add(-sandbox.PublishBacklog), c.sb.Now())
		for i := len(arts) - 21; i >= 0 && i >= len(arts)-40; i-- {
			want = append(want, arts[i].URL)
		}
	}
	if len(want) < 10 {
		t.Fatalf("only %d feed-only articles: the test web is too small", len(want))
	}
	c.worker("w1", "127.0.0.2", "127.0.0.3")
	c.waitDone(2 * time.Minute)
	stored := enginetest.StoredSet(t, c.opts.DB)
	missing := 0
	for _, u := range want {
		if !stored[u] {
			missing++
			if missing <= 3 {
				t.Errorf("%s (only in its site's feed) not stored", u)
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d feed-only articles not stored", missing, len(want))
	}
}
