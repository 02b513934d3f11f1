package engine

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/store"
)

// :site rm, then :site add news of the same entry: the entry, fetched before, is
// queued again at once (the README: "its entry is queued now"), not left for the
// next round. (A walkthrough saw "0 entry/search URLs queued": its entry was in a
// lane's hand; the message now says so, queuedNote.)
func TestSiteAddAgainQueuesItsEntryNow(t *testing.T) {
	t.Parallel()
	a := newsSite(newDiscoSite(t))
	entry := "http://" + a.host + "/"
	o := discoveryPollOptions(t, entry)
	o.Sites = []config.SiteOptions{{Name: "127.0.0.1", Kind: config.SiteNews, Entry: entry}}
	o.Discovery.Probe = config.ProbeOff
	e := startEngine(t, o)
	// Stored, not only requested: until its result is in, the entry is in a lane's
	// hand and rightly not queued twice (the test raced with that 1 run in 10).
	waitFor(t, "the entry stored", func() bool {
		if a.requested("/") < 1 || e.st.Flush() != nil {
			return false
		}
		rows, err := e.st.URLStates([]string{entry})
		return err == nil && len(rows) == 1 && rows[0].State == store.Processed
	})
	if _, err := e.Steer(steer.Change{Op: steer.SiteRm, Site: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	before := a.requested("/")
	msg, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: entry})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "1 entry/search URLs queued") {
		t.Errorf("message %q, want its entry queued", msg)
	}
	waitFor(t, "the entry fetched again", func() bool { return a.requested("/") > before })
}
