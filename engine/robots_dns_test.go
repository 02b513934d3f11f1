package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// A seed whose host does not resolve (a misspelt name: the sandbox's DNS answers
// NXDOMAIN for it) fails as dns, said so in the warning's first words, and the
// crawl ends with the other seed's site stored: it does not wait for the dead
// host's robots.txt forever, counted as robots_unreachable.
func TestSeedWhoseHostDoesNotResolveFailsAsDNS(t *testing.T) {
	t.Parallel()
	cfg := enginetest.SandboxConfig(31, 2)
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, time.Millisecond
	sb := enginetest.StartSandbox(t, cfg)
	site := sb.Info().Sites[0]
	bad := "http://misspelt." + site.Domain + "/"

	o := config.DefaultOptions()
	o.Seeds = []string{site.Entry, bad}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 2*time.Millisecond, 5*time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	enginetest.AtWebPace(&o, cfg.Scale)
	e := enginetest.CrawlToDone(t, o)

	st := e.Stats()
	if st.Errors["dns"] != 1 || st.Errors["robots_unreachable"] != 0 {
		t.Errorf("errors %v: want the misspelt seed counted once as dns, none robots_unreachable", st.Errors)
	}
	if !enginetest.StoredSet(t, o.DB)[site.Entry] {
		t.Errorf("%s not stored: the good site was not crawled", site.Entry)
	}
	hostKinds := ""
	if hv := e.Snapshot().Hosts; hv != nil {
		for i := range hv.Hosts.Len() {
			if row := hv.Hosts.At(i); row.Name == "misspelt."+site.Domain {
				hostKinds = fmt.Sprint(row.Errors, row.Kinds)
			}
		}
	}
	if hostKinds != "1 [{dns 1 false}]" {
		t.Errorf("Hosts pane's row of the misspelt host: %q, want one error, dns", hostKinds)
	}
	warned := false
	for _, ev := range e.EventsSince(0, 1<<20) {
		if ev.Level == view.LevelWarn && strings.HasPrefix(ev.Msg, "dns: misspelt."+site.Domain+" does not resolve (nxdomain)") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning starting \"dns: misspelt.… does not resolve (nxdomain)\"")
	}

	// crawlconsole stats reads the store: the URL is there, failed as dns.
	e.Close()
	db, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(stored.ErrorKinds); got != "[{dns 1}]" {
		t.Errorf("stats' error kinds %s, want [{dns 1}]", got)
	}
}
