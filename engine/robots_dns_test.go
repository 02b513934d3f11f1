package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// A seed whose host does not resolve (a misspelt name) fails as dns, said so in
// the warning's first words, and the crawl ends with the other seed's site stored:
// it does not wait for the dead host's robots.txt forever, counted as
// robots_unreachable. The sandbox's DNS answers NXDOMAIN for an unknown name in a
// zone it serves (final: failed at once) and REFUSED for one outside them (asked
// again with robots.txt's back-off, fetch.retries more times, then failed, while
// the crawl runs).
func TestSeedWhoseHostDoesNotResolveFailsAsDNS(t *testing.T) {
	t.Parallel()
	cfg := enginetest.SandboxConfig(31, 2)
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, time.Millisecond
	sb := enginetest.StartSandbox(t, cfg)
	site := sb.Info().Sites[0]
	for _, c := range []struct {
		name, host, warning string
		hostRow             string // the Hosts pane's errors and kinds of the host: a URL that waited for robots.txt meanwhile counts there too
	}{
		{"nxdomain", "misspelt." + site.Domain, "does not resolve (nxdomain): its URLs fail as dns", "1 [{dns 1 false}]"},
		{"refused", "misspelt.nowhere.test", "does not resolve (refused, 3 tries): its URLs fail as dns", "1 [{dns 1 false}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := enginetest.DefaultOptions()
			o.Seeds = []string{site.Entry, "http://" + c.host + "/"}
			o.DB = filepath.Join(t.TempDir(), "crawl.db")
			o.DNSServers = []string{sb.DNSAddr()}
			o.AllowPrivate = []string{"127.0.0.0/8"}
			o.Lanes.DelayMin, o.Lanes.DelayMax = 2*time.Millisecond, 5*time.Millisecond
			o.HostRate = 0
			o.Revisit.Enabled = false
			o.Fetch.Retries = 2
			enginetest.AtWebPace(&o, cfg.Scale)
			e := enginetest.Start(t, o)
			// A crawl with nothing else to fetch ends while a URL waits (a headless
			// crawl leaves it for the next run); a running one asks again.
			enginetest.WaitFor(t, "the misspelt seed failed as dns", func() bool { return e.Stats().Errors["dns"] == 1 })
			enginetest.WaitDone(t, e, enginetest.CrawlPatience)

			st := e.Stats()
			// (The good site may wait for its own robots.txt on a loaded box: only
			// the misspelt host's figures are exact.)
			if st.Errors["dns"] != 1 {
				t.Errorf("errors %v: want the misspelt seed counted once as dns", st.Errors)
			}
			if !enginetest.StoredSet(t, o.DB)[site.Entry] {
				t.Errorf("%s not stored: the good site was not crawled", site.Entry)
			}
			hostKinds := ""
			if hv := e.Snapshot().Hosts; hv != nil {
				for i := range hv.Hosts.Len() {
					if row := hv.Hosts.At(i); row.Name == c.host {
						hostKinds = fmt.Sprint(row.Errors, row.Kinds)
					}
				}
			}
			if !strings.HasPrefix(hostKinds, c.hostRow) {
				t.Errorf("Hosts pane's row of the misspelt host: %q, want one error, dns", hostKinds)
			}
			want := "dns: " + c.host + " " + c.warning
			warned := false
			for _, ev := range e.EventsSince(0, 1<<20) {
				if ev.Level == view.LevelWarn && strings.HasPrefix(ev.Msg, want) {
					warned = true
				}
			}
			if !warned {
				t.Errorf("no warning starting %q", want)
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
			if got := fmt.Sprint(stored.ErrorKinds); !strings.Contains(got, "{dns 1}") {
				t.Errorf("stats' error kinds %s, want {dns 1} among them", got)
			}
		})
	}
}
