package ui

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// The Lanes pane's foot says what holds the crawl back (most lanes waiting on
// politeness, by the term that holds each: a host's crawl-delay, the delay between
// requests, a spent round budget) and what holds the selected lane, so a crawl at
// a few pages a minute reads as polite, not hung.
func TestLanesPaneSaysWhatHoldsTheLanesBack(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	now := fake.Epoch
	h.send(SnapshotMsg{Snapshot: view.Snapshot{
		State: view.StateRunning, StartedAt: now.Add(-time.Minute), PagesPerSec: 0.3, LanesMax: 4, LanesBusy: 4,
		Lanes: []view.Lane{
			{ID: 1, Status: view.LaneFetching, Hosts: []string{"news.test"}, Current: "http://news.test/a"},
			{ID: 2, Status: view.LaneWaiting, Hosts: []string{"slow.test"}, Current: "http://slow.test/b",
				Gap: 5 * time.Second, GapWhy: "crawl-delay", NextFetch: now.Add(2 * time.Second)},
			{ID: 3, Status: view.LaneWaiting, Hosts: []string{"capped.test"}, Current: "http://capped.test/c",
				Gap: 2 * time.Second, GapWhy: "delay", NextFetch: now.Add(time.Second)},
			{ID: 4, Status: view.LaneWaiting, Hosts: []string{"plain.test"}, Current: "http://plain.test/d",
				Gap: 3 * time.Second, GapWhy: "delay", NextFetch: now.Add(3 * time.Second)},
		},
		Hosts: &view.HostsView{Live: map[string]view.HostLive{"capped.test": {Budget: 40, BudgetUsed: 40}}},
	}})
	h.press("1")
	h.mustShow("limited by politeness: 3 of 4 lanes wait (budget 1, crawl-delay 1, delay 1)",
		"lane 1 fetches from news.test")
	h.press("down")
	h.mustShow("lane 2 waits out slow.test's 5.0s crawl-delay gap, next request in 2.0s")
	h.press("down")
	h.mustShow("lane 3 waits: capped.test spent its round budget (40 of 40 pages)")

	// The operator's pause is not politeness.
	snap := h.m.snap
	snap.State = view.StatePaused
	for i := range snap.Lanes {
		snap.Lanes[i].Status = view.LanePaused
	}
	h.send(SnapshotMsg{Snapshot: snap})
	h.mustShow("4 of 4 lanes paused", "lane 3 is paused with the whole crawl (p resumes it)")
	h.mustNotShow("limited by politeness")
}
