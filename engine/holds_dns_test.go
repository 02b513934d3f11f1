package engine_test

import (
	"net/url"
	"path/filepath"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/holds"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestAHeldHostsNameIsNotLookedUpUntilItIsResumed: a host the operator paused gets
// no request of any kind, a DNS query for its name included, though its seed
// waits on the board, where M5 prefetches the names of the tasks placed. The
// other site's pages are fetched meanwhile (its name was looked up in the same
// prefetch batch); resumed, the held host's name is looked up and its page
// fetched.
func TestAHeldHostsNameIsNotLookedUpUntilItIsResumed(t *testing.T) {
	t.Parallel()
	sb := enginetest.StartSandbox(t, redirectsWeb())
	o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	sites := sb.Info().Sites
	heldSite, other := sites[0], sites[1]
	u, err := url.Parse(heldSite.Entry)
	if err != nil {
		t.Fatal(err)
	}
	held := u.Hostname()
	o.Seeds = []string{heldSite.Entry, other.Entry}
	// Paused on an earlier run: held from the start, before a seed is placed.
	st, err := store.Open(o.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	holds.New(st).Pause(held, true)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	e := enginetest.Start(t, o)
	fetched := func(entry string) bool {
		for _, r := range sb.Truth().Requests() {
			if r.URL == entry {
				return true
			}
		}
		return false
	}
	enginetest.WaitFor(t, "the other site's entry fetched", func() bool { return fetched(other.Entry) })
	if n := sb.Truth().DNSQueries()[held]; n > 0 {
		t.Fatalf("%s, paused by the operator, had its name looked up %d times", held, n)
	}
	if err := e.PauseHost(held, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, held+"'s name looked up once resumed", func() bool { return sb.Truth().DNSQueries()[held] > 0 })
	enginetest.WaitFor(t, held+"'s entry fetched once resumed", func() bool { return fetched(heldSite.Entry) })
}
