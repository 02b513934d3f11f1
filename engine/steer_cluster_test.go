package engine_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// With workers, a keyword added while the crawl runs is a new unit of seed 003 (a
// social site's keyword shard): the master deals it at once to the worker holding
// the fewest shards of that site, then the fewest units (so every worker gets a
// share of each social site's keywords), and that worker searches for it — no round
// or rebalance waited for.
func TestMasterDealsAKeywordAddedLive(t *testing.T) {
	t.Parallel()
	var social *sandbox.Site
	c := prepareCluster(t, enginetest.SandboxConfig(21, 24), 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) {
		o.Seeds = nil
		for _, s := range sb.Info().Sites {
			site := config.SiteOptions{Name: s.Domain, Kind: config.SiteNews, Entry: s.Entry, Keywords: s.Keywords, Class: s.Class}
			if s.Search != "" {
				if social != nil {
					// One social site: the Nodes pane counts every social site's
					// shards together, and the master deals by one site's.
					continue
				}
				site = config.SiteOptions{Name: s.Domain, Kind: config.SiteSocial, Search: s.Search,
					Pages: 1, Keywords: s.Keywords, Class: s.Class}
				social = &s
			}
			o.Sites = append(o.Sites, site)
		}
	})
	if social == nil {
		t.Skip("this sandbox seed has no social site")
	}
	// No worker is taken for dead: the shard's owner is read as the worker whose
	// shard count rose after the command, so only the deal may change who holds
	// what. With the default timeout (3 heartbeats, 900 ms here) a loaded machine
	// stalling a worker got it buried and rejoined meanwhile: its units went to the
	// other worker and came back in the rejoin's spread, and the count that rose
	// was not the one of the worker the keyword was dealt to.
	c.timeout = time.Minute
	c.startMaster()
	ips := map[string]string{}
	for i, name := range []string{"w1", "w2"} {
		a := "127.0.0." + strconv.Itoa(2+i)
		ips[name] = a
		c.worker(name, a)
	}
	enginetest.WaitSnapshot(t, c.master, "sites dealt over both workers", func(s view.Snapshot) bool {
		n := 0
		for _, nd := range s.Nodes {
			if nd.Sites+nd.Keywords > 0 {
				n++
			}
		}
		return n == 2 && s.Totals.PagesStored >= 30
	})
	before := map[string]view.Node{}
	for _, nd := range c.master.Snapshot().Nodes {
		before[nd.Name] = nd
	}
	if _, err := c.master.Steer(steer.Change{Op: steer.KeywordAdd, Site: social.Domain, Keywords: []string{"zeppelin"}}); err != nil {
		t.Fatal(err)
	}
	var got string
	enginetest.WaitSnapshot(t, c.master, "the new keyword shard held by a worker", func(s view.Snapshot) bool {
		for _, nd := range s.Nodes {
			if nd.Keywords > before[nd.Name].Keywords {
				got = nd.Name
				return true
			}
		}
		return false
	})
	b := before[got]
	for name, nd := range before {
		if nd.Keywords < b.Keywords || nd.Keywords == b.Keywords && nd.Sites+nd.Keywords < b.Sites+b.Keywords {
			t.Errorf("the new shard went to %s (%d shards, %d units) though %s held fewer (%d shards, %d units)",
				got, b.Keywords, b.Sites+b.Keywords, name, nd.Keywords, nd.Sites+nd.Keywords)
		}
	}
	deadline := time.Now().Add(enginetest.Patience)
	for {
		searched := ""
		for _, r := range c.sb.Truth().Requests() {
			if u, err := url.Parse(r.URL); err == nil && u.Query().Get("q") == "zeppelin" {
				searched = r.IP
			}
		}
		if searched != "" {
			if searched != ips[got] {
				t.Errorf("zeppelin searched from %s, want %s (%s, which holds the shard)", searched, ips[got], got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new keyword was never searched")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
