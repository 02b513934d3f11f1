package cli

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// ctlStatusReport is `ctl status --json`: the console's header as one object. Its
// field names are part of the command-line contract.
type ctlStatusReport struct {
	State view.State `json:"state"`
	// NextRound and NextRevisit say when an IDLE crawl goes on: the next round of
	// the declared sites and the next revisit, each that is coming (the text line
	// says the sooner); absent otherwise.
	NextRound    *time.Time       `json:"next_round,omitempty"`
	NextRevisit  *time.Time       `json:"next_revisit,omitempty"`
	StartedAt    time.Time        `json:"started_at"`
	PagesFetched int64            `json:"pages_fetched"`
	PagesStored  int64            `json:"pages_stored"`
	PagesPerS    float64          `json:"pages_per_s"`
	Queue        int              `json:"queue"`
	URLsDone     int64            `json:"urls_done"`
	LanesBusy    int              `json:"lanes_busy"`
	LanesMax     int              `json:"lanes_max"`
	Refused      int64            `json:"refused"`
	Errors       map[string]int64 `json:"errors"`
	Skipped      map[string]int64 `json:"skipped"`
	Warnings     map[string]int64 `json:"warnings"` // discovery's document warnings; nothing failed by them
	// Deferred counts the URLs set aside so far (a disabled host, robots.txt not
	// answering, a budget); RobotsWaiting those waiting now for their site's
	// robots.txt, each counted once under errors' robots_unreachable.
	Deferred      int64              `json:"deferred"`
	RobotsWaiting view.RobotsWaiting `json:"robots_waiting"`
	PausedLanes   []int              `json:"paused_lanes"`
	PausedHosts   []string           `json:"paused_hosts"`
	Disabled      []string           `json:"disabled_hosts"`
	Waiting       map[string]int     `json:"lanes_waiting"`     // lanes waiting, by the term that holds them back
	Workers       []ctlWorker        `json:"workers,omitempty"` // a master's
	StoreError    string             `json:"store_error,omitempty"`
}

// ctlWorker is one worker of a master in `ctl status`.
type ctlWorker struct {
	Name      string         `json:"name"`
	State     view.NodeState `json:"state"`
	Lanes     int            `json:"lanes"`
	PagesPerS float64        `json:"pages_per_s"`
	Queue     int            `json:"queue"`
	// HeartbeatAgeS is the age of its last heartbeat on the master's clock (-1: none
	// came); HeartbeatLate says it is past two heartbeat periods, the Nodes pane's
	// "!": a worker killed is still "active" until the master declares it dead.
	HeartbeatAgeS float64 `json:"heartbeat_age_s"`
	HeartbeatLate bool    `json:"heartbeat_late"`
}

func statusOf(s view.Snapshot) ctlStatusReport {
	r := ctlStatusReport{State: s.State, StartedAt: s.StartedAt, PagesFetched: s.Totals.PagesFetched,
		PagesStored: s.Totals.PagesStored, PagesPerS: pane.PagesPerSec(&s), Queue: s.QueueDepth, URLsDone: s.Totals.URLsDone,
		LanesBusy: s.LanesBusy, LanesMax: s.LanesMax, Refused: s.Totals.Refused, Errors: s.Totals.Errors,
		Skipped: s.Totals.Skipped, Warnings: s.Totals.Warnings, Deferred: s.Totals.Deferred, RobotsWaiting: s.Totals.Robots,
		PausedLanes: []int{}, PausedHosts: append([]string{}, s.PausedHosts...),
		Disabled: disabledOf(s), StoreError: s.StoreError}
	if r.Errors == nil {
		r.Errors = map[string]int64{}
	}
	if r.Warnings == nil {
		r.Warnings = map[string]int64{}
	}
	if r.Skipped == nil {
		r.Skipped = map[string]int64{}
	}
	for _, l := range s.Lanes {
		if l.Status == view.LanePaused && s.State != view.StatePaused {
			r.PausedLanes = append(r.PausedLanes, l.ID)
		}
	}
	_, r.Waiting = limitedBy(s)
	if s.State == view.StateIdle {
		if at := s.NextRound; !at.IsZero() {
			r.NextRound = &at
		}
		if at := s.NextRevisit; !at.IsZero() {
			r.NextRevisit = &at
		}
	}
	now := s.At
	if now.IsZero() {
		now = time.Now()
	}
	for _, n := range s.Nodes {
		w := ctlWorker{Name: n.Name, State: n.State, Lanes: n.Lanes, PagesPerS: n.PagesPerSec, Queue: n.Queue, HeartbeatAgeS: -1}
		age, never, late := pane.HeartbeatAge(n, now, s.HeartbeatEvery)
		if !never {
			w.HeartbeatAgeS = age.Round(100 * time.Millisecond).Seconds()
		}
		w.HeartbeatLate = late
		r.Workers = append(r.Workers, w)
	}
	return r
}

func disabledOf(s view.Snapshot) []string {
	out := []string{}
	if s.Egress != nil {
		for _, d := range s.Egress.Disabled {
			out = append(out, d.Host)
		}
	}
	sort.Strings(out)
	return out
}

// snapshotOrFail fetches the crawl's snapshot, or prints why it could not (exit 4,
// or 2 for a refused credential).
func snapshotOrFail(client *attach.Client, url, prefix string, stderr io.Writer) (view.Snapshot, int) {
	s := client.Snapshot()
	if attach.Unreachable(s.State) {
		err := client.Err()
		if u := unreached(err, url, prefix); u != nil {
			fmt.Fprintf(stderr, "crawlconsole ctl: %v\n", u)
			return s, unreachedExit(u)
		}
		fmt.Fprintf(stderr, "crawlconsole ctl: the crawl at %s gave no snapshot: %v\n", url, err)
		return s, 1
	}
	return s, 0
}

// ctlStatus is `ctl status`: the console's header, as text or one JSON object.
func ctlStatus(client *attach.Client, url, prefix string, asJSON bool, stdout, stderr io.Writer) int {
	s, code := snapshotOrFail(client, url, prefix, stderr)
	if code != 0 {
		return code
	}
	return printStatus(s, asJSON, stdout)
}

// printStatus writes a snapshot as `ctl status` says it: text or one JSON object.
func printStatus(s view.Snapshot, asJSON bool, stdout io.Writer) int {
	r := statusOf(s)
	if asJSON {
		return clikit.WriteJSON(stdout, r)
	}
	state := string(r.State)
	if what, at := pane.IdleWait(&s); what != "" {
		state += fmt.Sprintf(" (next %s in %s)", what, max(at.Sub(time.Now()), 0).Truncate(time.Second))
	}
	fmt.Fprintf(stdout, "%s  up %s  pages %d (stored %d)  %s  queue %d  done %d  lanes %d/%d  refused %d\n",
		state, time.Since(r.StartedAt).Truncate(time.Second), r.PagesFetched, r.PagesStored, pane.Rate(r.PagesPerS),
		r.Queue, r.URLsDone, r.LanesBusy, r.LanesMax, r.Refused)
	if why, _ := limitedBy(s); why != "" {
		fmt.Fprintln(stdout, why)
	}
	fmt.Fprintf(stdout, "errors: %s\nskipped: %s\n", kindList(r.Errors), kindList(r.Skipped))
	if w := pane.RobotsWait(r.RobotsWaiting); w != "" {
		fmt.Fprintln(stdout, w+" (fetched once it answers)")
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(stdout, "warnings: %s\n", kindList(r.Warnings))
	}
	if len(r.PausedLanes) > 0 {
		fmt.Fprintf(stdout, "paused lanes: %s\n", strings.Trim(fmt.Sprint(r.PausedLanes), "[]"))
	}
	if len(r.PausedHosts) > 0 {
		fmt.Fprintf(stdout, "paused hosts: %s\n", strings.Join(r.PausedHosts, ", "))
	}
	if len(r.Disabled) > 0 {
		fmt.Fprintf(stdout, "disabled hosts: %s\n", strings.Join(r.Disabled, ", "))
	}
	for _, w := range r.Workers {
		beat := "no heartbeat yet"
		if w.HeartbeatAgeS >= 0 {
			beat = fmt.Sprintf("heartbeat %s ago", time.Duration(w.HeartbeatAgeS*float64(time.Second)).Truncate(time.Second))
		}
		if w.HeartbeatLate {
			beat += fmt.Sprintf(" (late: none for over %s)", pane.HeartbeatLate(s.HeartbeatEvery))
		}
		fmt.Fprintf(stdout, "worker %s: %s, %s, %s, %s, queue %d\n", w.Name, w.State, beat, plural.Count(w.Lanes, "lane"), pane.Rate(w.PagesPerS), w.Queue)
	}
	if r.StoreError != "" {
		fmt.Fprintf(stdout, "STORE FAILED: %s\n", r.StoreError)
	}
	return 0
}

// ctlHost is one host of `ctl hosts`.
type ctlHost struct {
	Host  string `json:"host"`
	Lanes []int  `json:"lanes"`
	// Nodes are the workers running Lanes, in their order, on a master (the master's
	// Lanes pane's NODE column); none on a one-box crawl.
	Nodes    []string `json:"nodes,omitempty"`
	Status   []string `json:"status"` // each lane's, in the order of Lanes
	Egress   []string `json:"egress"`
	Paused   bool     `json:"paused"`
	Disabled bool     `json:"disabled"`
}

// ctlHosts is `ctl hosts`: each host the crawl has on a lane, paused or disabled.
func ctlHosts(client *attach.Client, url, prefix string, asJSON bool, stdout, stderr io.Writer) int {
	s, code := snapshotOrFail(client, url, prefix, stderr)
	if code != 0 {
		return code
	}
	return printHosts(s, asJSON, stdout)
}

// printHosts writes a snapshot's hosts as `ctl hosts` says them: a table or JSON.
func printHosts(s view.Snapshot, asJSON bool, stdout io.Writer) int {
	hosts := hostsOf(s)
	if asJSON {
		return clikit.WriteJSON(stdout, hosts)
	}
	if len(hosts) == 0 {
		fmt.Fprintln(stdout, "no host is on a lane, paused or disabled now")
		return 0
	}
	distributed := false
	for _, h := range hosts {
		distributed = distributed || len(h.Nodes) > 0
	}
	var tb clikit.Table
	if distributed { // as the master's Lanes pane, a NODE column: lane numbers are per worker
		tb.Row("HOST", "NODE", "LANES", "STATUS", "EGRESS", "PAUSED", "DISABLED")
	} else {
		tb.Row("HOST", "LANES", "STATUS", "EGRESS", "PAUSED", "DISABLED")
	}
	for _, h := range hosts {
		lanes := strings.Trim(fmt.Sprint(h.Lanes), "[]")
		row := []string{h.Host}
		if distributed {
			row = append(row, clikit.Dash(strings.Join(h.Nodes, ",")))
		}
		tb.Row(append(row, clikit.Dash(lanes), clikit.Dash(strings.Join(h.Status, ",")),
			clikit.Dash(strings.Join(slices.Compact(slices.Clone(h.Egress)), ",")), yesNo(h.Paused), yesNo(h.Disabled))...)
	}
	return clikit.Exit(tb.Write(stdout) == nil)
}

func hostsOf(s view.Snapshot) []ctlHost {
	by := map[string]*ctlHost{}
	get := func(h string) *ctlHost {
		if by[h] == nil {
			by[h] = &ctlHost{Host: h, Lanes: []int{}, Status: []string{}, Egress: []string{}}
		}
		return by[h]
	}
	for _, l := range s.Lanes {
		for _, h := range l.Hosts {
			c := get(h)
			c.Lanes = append(c.Lanes, l.ID)
			if l.Node != "" {
				c.Nodes = append(c.Nodes, l.Node)
			}
			c.Status = append(c.Status, string(l.Status))
			c.Egress = append(c.Egress, l.Egress)
		}
	}
	for _, h := range s.PausedHosts {
		get(h).Paused = true
	}
	for _, h := range disabledOf(s) {
		get(h).Disabled = true
	}
	out := make([]ctlHost, 0, len(by))
	for _, h := range by {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// limitedBy says what holds the crawl back when most of its lanes wait rather than
// fetch ("" while most lanes fetch), and the waiting lanes by what holds them.
func limitedBy(s view.Snapshot) (text string, counts map[string]int) {
	l := pane.LimitsOf(&s)
	return l.Politeness(), l.By
}
