package deferral

import (
	"fmt"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// TestALongCrawlKeepsOnlyTheDeferralsStillWaiting: a run files every URL it
// defers under the host it waits for, for an enable to bring back at once. A long
// crawl defers many whose end comes by itself (a disable running out by
// rotation.disable_for, a pause's robots.txt retry, a Retry-After): those came
// back already, and are forgotten, so what the run keeps for the enables is what
// still waits, not every deferral it made.
func TestALongCrawlKeepsOnlyTheDeferralsStillWaiting(t *testing.T) {
	var d Deferrals
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	now := start
	for i := range 10000 { // a deferral a second, each for a minute, over hosts disabled and enabled by no one
		host := fmt.Sprintf("h%d.test", i%50)
		d.Add(Deferred{Task: frontier.Task{URL: fmt.Sprintf("http://%s/%d", host, i), Host: host}, Until: now.Add(time.Minute)}, now)
		d.Take() // written to the front, as each second
		now = now.Add(time.Second)
	}
	// A host the operator disables now: its URLs wait an hour.
	d.Add(Deferred{Task: frontier.Task{URL: "http://held.test/a", Host: "held.test"}, Until: now.Add(time.Hour)}, now)
	d.Add(Deferred{Task: frontier.Task{URL: "http://behind.test/", Host: "behind.test"}, Until: now.Add(time.Hour), Behind: "held.test"}, now)
	if n := d.Waiting(); n > 62 {
		t.Fatalf("after %v of deferrals a minute long, %d URLs are kept for the enables, want the minute's (60) and held.test's 2", now.Sub(start), n)
	}
	if got := d.TakeHost("held.test"); len(got) != 2 {
		t.Fatalf("enabling held.test brings back %v, want its page and the site's behind it", got)
	}
	if got := d.TakeHost("h0.test"); len(got) > 2 {
		t.Fatalf("enabling h0.test brings back %d URLs, want only those deferred within the last minute", len(got))
	}
}
