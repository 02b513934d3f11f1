package cli

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui"
)

// steeringDemo is the demo's crawl of a fault-free sandbox (scale 50): its news and
// social sites declared, running, and the first social site's name.
func steeringDemo(t *testing.T) (*engine.Engine, *sandbox.Sandbox, string, config.Options) {
	t.Helper()
	sb := clusterSandbox(t, 21, 24, nil)
	opts := DemoOptions(sb, filepath.Join(t.TempDir(), "demo.db"))
	social := ""
	for _, s := range opts.Sites {
		if s.Kind == config.SiteSocial {
			social = s.Name
			break
		}
	}
	if social == "" {
		t.Skip("this sandbox seed has no social site")
	}
	eng := startedEngine(t, opts)
	return eng, sb, social, opts
}

// socialSearchHost is the host of the named social site's search template.
func socialSearchHost(t *testing.T, opts config.Options, name string) string {
	t.Helper()
	for _, s := range opts.Sites {
		if s.Name == name {
			u, err := url.Parse(strings.NewReplacer("{keyword}", "x", "{page}", "1").Replace(s.Search))
			if err != nil {
				t.Fatal(err)
			}
			return u.Hostname()
		}
	}
	t.Fatalf("no site %q", name)
	return ""
}

// searched waits until the sandbox has answered a search on host.
func searched(t *testing.T, sb *sandbox.Sandbox, host string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, r := range sb.Truth().Requests() {
			if u, err := url.Parse(r.URL); err == nil && u.Hostname() == host && u.Query().Get("q") != "" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never searched within %v", host, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// firstSearch waits for the sandbox's first request searching q and returns when it
// started.
func firstSearch(t *testing.T, sb *sandbox.Sandbox, q string, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, r := range sb.Truth().Requests() {
			if u, err := url.Parse(r.URL); err == nil && u.Query().Get("q") == q {
				return r.Start
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q was never searched within %v", q, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// On a running demo, :keyword add shows the keyword in the Sites pane, and the new
// keyword's first search-page fetch is the search host's next request after the
// engine takes the change, as the search goes to the head of its lane's queue.
func TestKeywordAddOnRunningDemo(t *testing.T) {
	t.Parallel() // its own demo and store; it waits on the crawl
	eng, sb, social, opts := steeringDemo(t)
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.Ascii)
	tm := teatest.NewTestModel(t, ui.NewModel(eng, ui.Options{Refresh: 50 * time.Millisecond}, r), teatest.WithInitialTermSize(160, 40))
	var out bytes.Buffer
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(enginetest.Patience)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("the console never showed %q; last output:\n%s", what, tail(out.String(), 3000))
			}
			time.Sleep(10 * time.Millisecond)
			out.ReadFrom(tm.Output())
		}
	}
	waitFor("Sites")
	tm.Send(keyRunes("7"))
	waitFor("KEYWORDS")
	tm.Send(keyRunes("/"))
	tm.Send(keyRunes(social))
	tm.Send(keyEnter())
	// A running crawl: the social site has been searched (its robots.txt is read,
	// its lanes are busy with searches for the other keywords).
	searched(t, sb, socialSearchHost(t, opts, social), enginetest.Patience)
	tm.Send(keyRunes(":keyword add " + social + " zeppelin"))
	asked := time.Now()
	// When the engine has the keyword (the console's way to it, a Cmd on a loaded
	// machine, is not the lane's delay): watched from the engine's own view.
	applied := make(chan time.Time, 1)
	go func() {
		for time.Since(asked) < enginetest.Patience {
			if v := eng.Snapshot().Sites; v != nil {
				for _, row := range v.Sites {
					if row.Name == social && slices.Contains(row.Keywords, "zeppelin") {
						applied <- time.Now()
						return
					}
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
		applied <- time.Time{}
	}()
	tm.Send(keyEnter())
	first := firstSearch(t, sb, "zeppelin", enginetest.Patience)
	at := <-applied
	if at.IsZero() {
		t.Fatal("the engine never had the new keyword")
	}
	waitFor("keywords zeppelin, ") // the selected site's line: its keywords, newest first
	// When the engine took the change: its log line's time, on the clock the
	// sandbox's request log uses (one process).
	var took time.Time
	for _, ev := range eng.EventsSince(0, 0) {
		if strings.HasPrefix(ev.Msg, "steering: ") && strings.Contains(ev.Msg, "zeppelin") {
			took = ev.At
		}
	}
	if took.IsZero() {
		t.Fatal("the engine logged no steering line for the new keyword")
	}
	// The search goes to the head of a lane of its host; a lane waiting with another
	// task in hand (at the gate, or pausing after it ran dry) trades it for the
	// search, which then takes the host's next slot ahead of the other lanes'
	// requests. So the search host serves no other request between the change and
	// the first search for the keyword, but one whose slot was already granted.
	// Without the trade and the head-of-queue insert, the lanes' queued pages and
	// searches went first (the search came 0.2-1.0 s late).
	host := socialSearchHost(t, opts, social)
	var ahead []string
	for _, r := range sb.Truth().Requests() {
		if u, err := url.Parse(r.URL); err == nil && u.Hostname() == host && r.Start.After(took) && r.Start.Before(first) {
			ahead = append(ahead, r.URL)
		}
	}
	t.Logf("first search for the new keyword %v after the engine took it, %v after :keyword add was typed; %d requests to %s between: %v",
		first.Sub(took), first.Sub(asked), len(ahead), host, ahead)
	if len(ahead) > 1 {
		t.Errorf("%d requests to %s went ahead of the new keyword's first search: %v; want the search in the host's next slot", len(ahead), host, ahead)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
}

// `crawlconsole ctl` steers a one-box crawl through its --operator port: a change is
// made and said; a refused one exits 1 with the reason; a bad command or a missing
// credential exits 2.
func TestCtlSteersACrawlThroughItsOperatorPort(t *testing.T) {
	eng, sb, social, opts := steeringDemo(t)
	var banner bytes.Buffer
	stop, err := operatorPort("127.0.0.1:0", opts.DB, eng, &banner, "crawl")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := regexp.MustCompile(`--attach (\S+) --token-file (\S+)`).FindStringSubmatch(banner.String())
	if m == nil {
		t.Fatalf("no attach line in %q", banner.String())
	}
	attach, tokenFile := m[1], m[2]
	cases := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"keyword add", []string{"keyword", "add", social, "storm", "surge"}, 0, `keyword "storm surge" added to ` + social, ""},
		{"private seed", []string{"seed", "add", "http://10.0.0.7/"}, 1, "", "loopback/private/link-local targets are blocked"},
		{"malformed seed", []string{"seed", "add", "http//x"}, 1, "", "is not a URL to crawl"},
		{"unknown site", []string{"keyword", "rm", "nosuchsite", "x"}, 1, "", `no site named "nosuchsite"`},
		{"bad command", []string{"site", "add", "blog", "http://x.test/"}, 2, "", `site kind must be "news" or "social"`},
		{"site budget in total", []string{"budget", social, "500", "total"}, 0, "budget of " + social + ": 500 pages in total", ""},
		{"host budget per round", []string{"budget", "host", "www.wire.test", "40"}, 0, "budget of host www.wire.test: 40 pages per round", ""},
		{"host budget given a URL", []string{"budget", "host", "http://www.wire.test/", "40"}, 2, "", "is a URL; give the host name alone"},
		{"budget span unknown", []string{"budget", social, "40", "weekly"}, 2, "", `"weekly" after the count must be "round"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runCtl(append([]string{"--attach", attach, "--token-file", tokenFile}, c.args...), &stdout, &stderr)
			if code != c.code || !strings.Contains(stdout.String(), c.out) || !strings.Contains(stderr.String(), c.err) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), c.code, c.out, c.err)
			}
		})
	}
	if _, err := operatorPort("0.0.0.0:0", opts.DB, eng, &banner, "crawl"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("--operator on a non-loopback address: %v, want a refusal naming loopback", err)
	}
	var stderr bytes.Buffer
	t.Setenv(tokenEnv, "")
	if code := runCtl([]string{"--attach", attach, "budget", social, "10"}, &bytes.Buffer{}, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "no credential") {
		t.Errorf("without a token: exit %d, %q", code, stderr.String())
	}
	firstSearch(t, sb, "storm surge", enginetest.Patience)
	for _, s := range eng.Snapshot().Sites.Sites {
		if s.Name == social && !strings.Contains(strings.Join(s.Keywords, ","), "storm surge") {
			t.Errorf("%s keywords %v after ctl keyword add", social, s.Keywords)
		}
	}
}

func keyRunes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func keyEnter() tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyEnter} }

// A worker that stopped sending heartbeats (killed with -9) stays "active" until the
// master declares it dead (four periods); meanwhile the Nodes pane marks its
// heartbeat late with "!", and `ctl status` says so too: it printed "worker b1:
// active, 2 lanes" with nothing to tell it from a live one.
func TestCtlStatusSaysAWorkerIsLate(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := view.Snapshot{At: at, StartedAt: at.Add(-time.Minute), State: view.StateRunning, HeartbeatEvery: 5 * time.Second,
		Nodes: []view.Node{
			{Name: "b1", State: view.NodeActive, Lanes: 2, Heartbeat: at.Add(-14 * time.Second)},
			{Name: "b2", State: view.NodeActive, Lanes: 1, PagesPerSec: 1.25, Heartbeat: at.Add(-2 * time.Second)},
		}}
	var out strings.Builder
	if code := printStatus(s, false, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"worker b1: active, heartbeat 14s ago (late: none for over 10s), 2 lanes,",
		"worker b2: active, heartbeat 2s ago, 1 lane, 1.25 pages/s, queue 0",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("ctl status:\n%s\nwant a line with %q", out.String(), want)
		}
	}
	var js strings.Builder
	printStatus(s, true, &js)
	var r struct {
		Workers []struct {
			Name string  `json:"name"`
			Age  float64 `json:"heartbeat_age_s"`
			Late bool    `json:"heartbeat_late"`
		} `json:"workers"`
	}
	if err := json.Unmarshal([]byte(js.String()), &r); err != nil || len(r.Workers) != 2 || !r.Workers[0].Late || r.Workers[0].Age != 14 || r.Workers[1].Late {
		t.Errorf("ctl --json status workers %+v (%v); want b1 late at 14 s, b2 not late", r.Workers, err)
	}
}

// On a master, `ctl hosts` says which worker runs each host's lane, as the master's
// Lanes pane does in its NODE column: the table named lanes without their workers.
func TestCtlHostsNamesTheWorkers(t *testing.T) {
	s := view.Snapshot{Lanes: []view.Lane{
		{ID: 1, Node: "c2", Hosts: []string{"a.example"}, Status: view.LaneWaiting, Egress: "direct"},
		{ID: 3, Node: "c1", Hosts: []string{"b.example"}, Status: view.LaneWaiting, Egress: "direct"},
	}}
	var out strings.Builder
	if code := printHosts(s, false, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "HOST") || !strings.Contains(lines[0], "NODE") ||
		len(strings.Fields(lines[1])) < 3 || strings.Fields(lines[1])[1] != "c2" || strings.Fields(lines[2])[1] != "c1" {
		t.Errorf("ctl hosts on a master:\n%s\nwant a NODE column naming c2 for a.example and c1 for b.example", out.String())
	}
	var one strings.Builder
	s.Lanes[0].Node, s.Lanes[1].Node = "", ""
	printHosts(s, false, &one)
	if strings.Contains(one.String(), "NODE") {
		t.Errorf("ctl hosts on a one-box crawl has a NODE column:\n%s", one.String())
	}
}

// An idle crawl waiting for its next revisit says when, as it says the next round:
// `ctl status` printed "IDLE" alone, with no word of when it would fetch again.
func TestCtlStatusSaysWhenAnIdleCrawlRevisits(t *testing.T) {
	next := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	s := view.Snapshot{At: time.Now(), StartedAt: time.Now().Add(-time.Minute), State: view.StateIdle, NextRevisit: next}
	var out strings.Builder
	if code := printStatus(s, false, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "IDLE (next revisit in 1h59m") {
		t.Errorf("ctl status:\n%s\nwant IDLE (next revisit in 1h59m…)", out.String())
	}
	var js strings.Builder
	printStatus(s, true, &js)
	var r struct {
		NextRevisit time.Time  `json:"next_revisit"`
		NextRound   *time.Time `json:"next_round"`
	}
	if err := json.Unmarshal([]byte(js.String()), &r); err != nil || !r.NextRevisit.Equal(next) || r.NextRound != nil {
		t.Errorf("ctl status --json: next_revisit %v, next_round %v (%v); want %v and none", r.NextRevisit, r.NextRound, err, next)
	}
	// A revisit due before the next round is when the crawl goes on: the line says
	// it (it said the round), the JSON gives both.
	round := next.Add(time.Hour)
	s.NextRound = round
	out.Reset()
	printStatus(s, false, &out)
	if !strings.Contains(out.String(), "IDLE (next revisit in 1h59m") {
		t.Errorf("ctl status, a round after the revisit:\n%s\nwant IDLE (next revisit in 1h59m…)", out.String())
	}
	js.Reset()
	printStatus(s, true, &js)
	r.NextRound = nil
	if err := json.Unmarshal([]byte(js.String()), &r); err != nil || !r.NextRevisit.Equal(next) || r.NextRound == nil || !r.NextRound.Equal(round) {
		t.Errorf("ctl status --json: next_revisit %v, next_round %v (%v); want %v and %v", r.NextRevisit, r.NextRound, err, next, round)
	}
}

// A document's warnings (a feed's invalid dates) are no errors: ctl status names
// them on a line of their own, and --json apart from errors.
func TestCtlStatusCountsWarningsApart(t *testing.T) {
	s := view.Snapshot{At: time.Now(), StartedAt: time.Now(), State: view.StateRunning,
		Totals: view.Totals{Errors: map[string]int64{"timeout": 1}, Warnings: map[string]int64{"discovery_invalid_date": 4}}}
	var out strings.Builder
	printStatus(s, false, &out)
	if !strings.Contains(out.String(), "errors: timeout=1\n") || !strings.Contains(out.String(), "warnings: discovery_invalid_date=4\n") {
		t.Errorf("ctl status:\n%s\nwant errors: timeout=1 and warnings: discovery_invalid_date=4 apart", out.String())
	}
	var js strings.Builder
	printStatus(s, true, &js)
	var r struct{ Errors, Warnings map[string]int64 }
	if err := json.Unmarshal([]byte(js.String()), &r); err != nil || len(r.Errors) != 1 || r.Warnings["discovery_invalid_date"] != 4 {
		t.Errorf("ctl status --json: errors %v, warnings %v (%v); want timeout only, and the warning apart", r.Errors, r.Warnings, err)
	}
}

// startedEngine builds an engine over opts and starts it, closed at the test's end.
func startedEngine(t *testing.T, opts config.Options) *engine.Engine {
	t.Helper()
	eng, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}
