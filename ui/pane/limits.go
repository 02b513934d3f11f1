package pane

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Limits is what holds a crawl's lanes back at one snapshot, so that a polite crawl
// at 0.3 pages/s is not taken for a hung one: each lane that does not fetch counts
// under the term that holds it. The console's Lanes pane, the headless progress
// line and `ctl status` say it in the same words.
type Limits struct {
	Lanes   int // lanes alive
	Waiting int // lanes not fetching: waiting out their host's gap, gated, paused, or on a spent budget
	// By counts the waiting lanes by what holds them: the term that sets their
	// host's gap (delay, crawl-delay, latency, backoff), budget (their host's round
	// budget is spent), paused (by the operator).
	By map[string]int
}

// LimitsOf reads what holds the lanes of s back.
func LimitsOf(s *view.Snapshot) Limits {
	l := Limits{Lanes: len(s.Lanes), By: map[string]int{}}
	for i := range s.Lanes {
		if why := laneHeldBy(s, &s.Lanes[i]); why != "" {
			l.By[why]++
			l.Waiting++
		}
	}
	return l
}

// Politeness says what holds the crawl back when most of its lanes wait rather than
// fetch ("limited by politeness: 8 of 12 lanes wait (crawl-delay 5, delay 3)"), ""
// while most lanes fetch.
func (l Limits) Politeness() string {
	if l.Waiting == 0 || 2*l.Waiting < l.Lanes {
		return ""
	}
	if l.By["paused"] == l.Waiting { // the operator's pause, not the crawl's politeness
		return fmt.Sprintf("%d of %d lanes paused", l.Waiting, l.Lanes)
	}
	return fmt.Sprintf("limited by politeness: %d of %d lanes wait (%s)", l.Waiting, l.Lanes, l.terms())
}

// Summary is the crawl-wide line: Politeness when it holds, else how many lanes
// fetch and what holds the others.
func (l Limits) Summary() string {
	if p := l.Politeness(); p != "" {
		return p
	}
	if l.Lanes == 0 {
		return ""
	}
	s := fmt.Sprintf("%d of %d lanes fetch", l.Lanes-l.Waiting, l.Lanes)
	if l.Waiting > 0 {
		s += "; the others wait (" + l.terms() + ")"
	}
	return s
}

// terms lists By, most first: "crawl-delay 5, delay 3".
func (l Limits) terms() string {
	whys := make([]string, 0, len(l.By))
	for w := range l.By {
		whys = append(whys, w)
	}
	sort.Slice(whys, func(i, j int) bool {
		return l.By[whys[i]] > l.By[whys[j]] || l.By[whys[i]] == l.By[whys[j]] && whys[i] < whys[j]
	})
	parts := make([]string, len(whys))
	for i, w := range whys {
		parts[i] = fmt.Sprintf("%s %d", w, l.By[w])
	}
	return strings.Join(parts, ", ")
}

// laneHeldBy is the term that holds lane l back, "" if it fetches (or is idle).
func laneHeldBy(s *view.Snapshot, l *view.Lane) string {
	switch l.Status {
	case view.LanePaused:
		return "paused"
	case view.LaneWaiting, view.LaneGated:
		if s.Hosts != nil && len(s.Hosts.Live) > 0 && budgetSpent(s, LaneHost(*l)) {
			return "budget"
		}
		if l.GapWhy == "" {
			return "delay"
		}
		return l.GapWhy
	}
	return ""
}

// budgetSpent reports whether host has a round budget and has used it up.
func budgetSpent(s *view.Snapshot, host string) bool {
	if s.Hosts == nil || host == "" {
		return false
	}
	live, ok := s.Hosts.Live[host]
	return ok && live.Budget > 0 && live.BudgetUsed >= live.Budget
}

// LaneLimit says what lane l is doing and, when it does not fetch, what holds it:
// "lane 4 waits out news-03.example's 5.0s crawl-delay gap, next request in 2.1s".
func LaneLimit(s *view.Snapshot, l view.Lane, now time.Time) string {
	host := LaneHost(l)
	name := fmt.Sprintf("lane %d", l.ID)
	if l.Node != "" {
		name += " (" + l.Node + ")"
	}
	next := ""
	if !l.NextFetch.IsZero() {
		next = ", next request in " + Countdown(l.NextFetch, now)
	}
	switch why := laneHeldBy(s, &l); {
	case l.Status == view.LaneFetching:
		return name + " fetches from " + orSomeHost(host)
	case why == "paused" && s.State == view.StatePaused:
		return name + " is paused with the whole crawl (p resumes it)"
	case why == "paused":
		return name + " is paused, or its host is (space resumes the lane, H the host)"
	case why == "budget":
		live := s.Hosts.Live[host]
		return fmt.Sprintf("%s waits: %s spent its round budget (%d of %d pages)", name, host, live.BudgetUsed, live.Budget)
	case l.Status == view.LaneGated:
		return name + " is gated: " + orSomeHost(host) + "'s cap of requests, or a fetch of an adjacent host on the same egress" + next
	case l.Status == view.LaneWaiting:
		gap := ""
		if l.Gap > 0 {
			gap = " " + Countdown(now.Add(l.Gap), now)
		}
		return fmt.Sprintf("%s waits out %s's%s %s gap%s", name, orSomeHost(host), gap, why, next)
	}
	return name + " is " + string(l.Status)
}

func orSomeHost(h string) string {
	if h == "" {
		return "its host"
	}
	return h
}

// LaneHost is "the lane's host": the host of the URL it fetches, else its first.
func LaneHost(l view.Lane) string {
	if u, err := url.Parse(l.Current); err == nil && u.Hostname() != "" {
		if slices.Contains(l.Hosts, u.Hostname()) || len(l.Hosts) == 0 {
			return u.Hostname()
		}
	}
	if len(l.Hosts) > 0 {
		return l.Hosts[0]
	}
	return ""
}
