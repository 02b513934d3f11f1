package engine_test

import (
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cookies"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// A cookie a site sets on the first visit comes back on the next requests
// through the same egress, and never through another. The sandbox's cookie rule
// gives each address its own session cookie per site (Domain = the site, so every
// host of the site gets it) and records which one each request carried.
func TestCookieSessionPerEgressAndSite(t *testing.T) {
	t.Parallel()
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 11, 8, 50
	cfg.SetFaultShare(0)
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, time.Millisecond
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 2, 6
	cfg.AntiBot.Enabled = false // the cookie rule alone judges here
	cfg.Load = sandbox.LoadConfig{CookieRule: true, CookieStrikes: 3}
	sb := enginetest.StartSandbox(t, cfg)

	o := enginetest.DefaultOptions()
	for _, s := range sb.Info().Sites {
		o.Seeds = append(o.Seeds, s.Entry)
	}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = []string{"bind:127.0.0.2", "bind:127.0.0.3"}
	o.Rotation.PerNode = 0
	o.Lanes.Max = 8
	o.Lanes.DelayMin, o.Lanes.DelayMax = 2*time.Millisecond, 5*time.Millisecond
	o.HostRate = 0
	enginetest.CrawlToDone(t, o).Close()

	truth := sb.Truth()
	if bans := truth.Bans(); len(bans) != 0 {
		t.Fatalf("%d bans, first %+v", len(bans), bans[0])
	}
	type visitor struct{ ip, site string }
	byVisitor := map[visitor][]sandbox.Request{}
	ipsOfSite := map[string]map[string]bool{}
	for _, r := range truth.Requests() {
		if r.Kind == "robots" {
			continue
		}
		if r.Cookie == sandbox.CookieOther {
			t.Fatalf("%s carried another address's session cookie to %s: a jar crossed egresses", r.IP, r.URL)
		}
		site := cookies.Site(r.Host)
		byVisitor[visitor{r.IP, site}] = append(byVisitor[visitor{r.IP, site}], r)
		if ipsOfSite[site] == nil {
			ipsOfSite[site] = map[string]bool{}
		}
		ipsOfSite[site][r.IP] = true
	}
	shared := 0
	for _, ips := range ipsOfSite {
		if len(ips) > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no site was fetched through both egresses: the test cannot tell sessions apart")
	}
	checked := 0
	for v, rs := range byVisitor {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		firstEnd := rs[0].End
		for _, r := range rs[1:] {
			if !r.Start.After(firstEnd) {
				continue // in flight before the first answer arrived: no cookie yet
			}
			if r.Cookie != sandbox.CookieOwn {
				t.Fatalf("%s fetched %s after its first visit to %s without the cookie it was given", v.ip, r.URL, v.site)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("only %d requests after a first visit checked", checked)
	}
	t.Logf("%d visitors (address, site), %d sites fetched through both egresses, %d later requests all carried their own session", len(byVisitor), shared, checked)
}
