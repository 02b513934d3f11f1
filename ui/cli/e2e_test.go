package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// e2eDeadline bounds each wait of the end-to-end tests: the engine tests' patience,
// since a loaded 2-core box can take minutes to build a screen that an idle one
// shows in seconds; every wait returns as soon as the screen shows what it waits for.
const e2eDeadline = enginetest.Patience

// tmuxSession is the demo running in a private tmux server (its own socket, so it
// never touches anybody else's tmux).
type tmuxSession struct {
	t    *testing.T
	sock string
	name string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", s.name) }

func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// waitFor polls the screen until ok holds, and returns that screen.
func (s *tmuxSession) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(e2eDeadline)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			alt, _ := exec.Command("tmux", "-S", s.sock, "display-message", "-p", "-t", s.name, "#{alternate_on} #{pane_dead}").Output()
			s.t.Fatalf("timed out waiting for %s; alternate screen, pane dead: %s; screen:\n%s", what, strings.TrimSpace(string(alt)), scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// joinRE is the join command a master's console shows while it has no worker.
var joinRE = regexp.MustCompile(`crawlconsole worker --join (\S+) --name NAME --token-file (\S+)`)

// joinCommand waits until the master's screen shows its whole join command, with
// the token file beside the master's --db (db+".token"), and also(screen) holds; it
// returns the command's --join URL and token file. The command wraps over two
// lines, and under load a screen can be captured while its second line is still
// being drawn ("--token-file /tmp/"), so the wait is for the whole path.
func (s *tmuxSession) joinCommand(db string, also func(string) bool) (join, token, scr string) {
	s.t.Helper()
	scr = s.waitFor("the join command with the token file "+db+".token", func(scr string) bool {
		m := joinRE.FindStringSubmatch(strings.ReplaceAll(strings.Join(strings.Fields(scr), " "), `\ `, ""))
		if m == nil || m[2] != db+".token" || !also(scr) {
			return false
		}
		join, token = m[1], m[2]
		return true
	})
	return join, token, scr
}

func (s *tmuxSession) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(strconv.Quote(text), func(scr string) bool { return strings.Contains(scr, text) })
}

var (
	fetchedRe = regexp.MustCompile(`fetched ([\d,]+)`)
	laneRowRe = regexp.MustCompile(`(?m)^[▸ ] +\d+ +\S+ +\d+/\d+ +(fetching|waiting|gated|idle|paused) `)
	dnsRateRe = regexp.MustCompile(`(?m)^  positive +\d+\.\d%`)
	// errors N ... skipped M (M > 0) on the totals line of the header
	headerSkipsRe = regexp.MustCompile(`(?m)^ fetched .* errors [\d,]+ .*skipped [1-9][\d,]* `)
	// done: ...; errors: KINDS; skipped: KINDS (the line may wrap, and tmux drops the
	// space at a wrap)
	summaryKindsRe = regexp.MustCompile(`; errors: ?([^;]*); skipped: ?([a-z_=\d ]*)`)
	// a Log pane row (time, level, lane, host, message) of an egress the operator added
	operatorEgressRe = regexp.MustCompile(`\d\d:\d\d:\d\d +INFO +- +- +egress \S+ added by operator`)
)

// fetched reads the header's fetched counter (-1 if absent).
func fetched(scr string) int { return counter(fetchedRe, scr) }

// counter reads the figure re captures on the screen, thousands separators and
// all (-1 if absent).
func counter(re *regexp.Regexp, scr string) int {
	m := re.FindStringSubmatch(scr)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil {
		return -1
	}
	return n
}

// startTmux runs script in a new detached tmux session name (120×40, its socket in
// dir), killed with the test. What the session runs is crawlconsole under any name
// (asCrawlconsoleEnv), never the tests. A tmux server outlives the test binary that
// started it, whose cleanups do not run when -timeout ends it: the script is killed
// at that deadline, so no console or crawl is left running after the tests.
func startTmux(t *testing.T, dir, name, script string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, sock: filepath.Join(dir, name+".sock"), name: name}
	run := []string{"sh", "-c", script}
	if deadline, ok := t.Deadline(); ok {
		run = append([]string{"timeout", "-k", "5", fmt.Sprintf("%.0f", time.Until(deadline).Seconds()+5)}, run...)
	}
	cmd := exec.Command("tmux", append([]string{"-S", s.sock, "new-session", "-d", "-x", "120", "-y", "40", "-s", s.name}, run...)...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", asCrawlconsoleEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	return s
}

// tmuxBinary skips t under -short or where tmux is missing (why: what the test does
// beyond running crawlconsole), and returns a temporary directory and the
// crawlconsole the tests run: this test binary under that name (see TestMain).
func tmuxBinary(t *testing.T, why string) (dir, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: runs crawlconsole and " + why)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the end-to-end console test needs it")
	}
	// The tmux tests wait on crawls in real time, not on the CPU, so they run side
	// by side; they share one link to the test binary.
	t.Parallel()
	e2eBin.once.Do(func() {
		self, err := os.Executable()
		if err != nil {
			e2eBin.err = err
			return
		}
		if e2eBin.dir, e2eBin.err = os.MkdirTemp("", "crawlconsole-e2e-"); e2eBin.err != nil {
			return
		}
		e2eBin.bin = filepath.Join(e2eBin.dir, "crawlconsole")
		if err := os.Symlink(self, e2eBin.bin); err != nil {
			e2eBin.err = fmt.Errorf("crawlconsole for the tmux tests: %v", err)
		}
	})
	if e2eBin.err != nil {
		t.Fatal(e2eBin.err)
	}
	return t.TempDir(), e2eBin.bin
}

// e2eBin is the crawlconsole the tmux tests run: a link named crawlconsole to this
// test binary (removed by TestMain).
var e2eBin struct {
	once     sync.Once
	dir, bin string
	err      error
}

// TestDemoInTmux runs `crawlconsole demo` in a real terminal (tmux, 120×40): the lanes
// fill, p pauses (PAUSED, the fetched count stops) and resumes, ? lists the keys, the
// DNS, Revisit and Egress panes show the engine's data, :egress add with a password
// never shows it, q asks and quits, and the terminal comes back cooked from the
// alternate screen.
func TestDemoInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t, "runs the demo")
	if out, err := exec.Command(bin, "demo", "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "demo") {
		t.Skipf("`crawlconsole demo --help` does not work yet (%v); skipping the end-to-end console test", err)
	}

	// After the demo, the shell reports its exit status and the terminal modes, then
	// idles so the pane can be captured.
	// The operator port lets the test ask the crawl's counts (ctl status) before it
	// quits, so that what the end-of-crawl line must say is certain by then.
	// The sandbox's time runs 100 times faster, not the demo's 20: the crawl meets
	// a robots.txt exclusion in a second or two instead of ten, and still runs far
	// longer than the test (over 90 s).
	addr, db := uitest.FreeAddr(t), filepath.Join(dir, "demo.db")
	script := bin + " demo --scale 100 --db " + db + " --operator " + addr + `; echo "EXIT=$?"; stty -a; sleep 600`
	s := startTmux(t, dir, "e2e", script)

	// Start: the console comes up and the lanes fill.
	s.waitFor("RUNNING with lanes and pages fetched", func(scr string) bool {
		return strings.Contains(scr, "RUNNING") && len(laneRowRe.FindAllString(scr, -1)) >= 3 && fetched(scr) > 0
	})

	// p pauses: PAUSED shows and the fetched count stops growing once in-flight
	// requests are done (it must hold still for two seconds).
	s.keys("p")
	scr := s.waitText("PAUSED")
	last, since := fetched(scr), time.Now()
	s.waitFor("the fetched count to stop growing", func(scr string) bool {
		if n := fetched(scr); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= 2*time.Second
	})
	paused := last

	// p again resumes, and the count grows again.
	s.keys("p")
	s.waitFor("RUNNING and more pages than while paused", func(scr string) bool {
		return strings.Contains(scr, "RUNNING") && fetched(scr) > paused
	})

	// The demo's robots.txt exclusions and missing /sitemap.xml probes are counted
	// as skipped, apart from errors: the header shows both. (Which comes first
	// depends on the box's speed; the end-of-crawl line below tells them apart.)
	s.waitFor("skipped URLs apart from errors in the header", func(scr string) bool {
		return headerSkipsRe.MatchString(scr)
	})

	// ? lists the real keys (from the same keymap that drives the console). Under
	// load a screen can be captured while the help is still being drawn over the
	// lanes (its title there, its last rows not yet), so the wait is for every key;
	// a key the help never shows times out with the screen.
	s.keys("?")
	km := pane.DefaultKeyMap()
	s.waitFor("the help to list every global key of pane.DefaultKeyMap", func(scr string) bool {
		if !strings.Contains(scr, "Help: keys and commands") {
			return false
		}
		for _, b := range km.GlobalHelp() {
			h := b.Help()
			if !regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc)).MatchString(scr) {
				return false
			}
		}
		return true
	})
	s.keys("Escape")
	s.waitFor("the help to close", func(scr string) bool { return !strings.Contains(scr, "Help: keys and commands") })

	// The DNS, Egress and Revisit panes show the engine's own data.
	s.keys("4")
	s.waitFor("DNS hit rates", func(scr string) bool {
		return strings.Contains(scr, "[4 DNS]") && dnsRateRe.MatchString(scr) && strings.Contains(scr, "SLOWEST DOMAIN")
	})
	s.keys("6")
	s.waitText("DUE PAGE")

	// An egress added with a password: the engine takes it, and neither the pane,
	// the status line nor the log ever shows the password (M3).
	s.keys("5")
	s.waitText("PAIR-BANNED HOST")
	s.keys(":")
	s.keys("-l", "egress add http://bob:hunter2@127.0.0.1:9")
	s.keys("Enter")
	scr = s.waitText("added (http://bob:***@127.0.0.1:9)")
	// The Log pane filtered for the operator's event: unfiltered, the events after
	// it (a burst of refusals and retries) can scroll it out of the rows on screen
	// before a capture comes.
	s.keys("3", "/")
	s.keys("-l", "added by operator")
	s.keys("Enter")
	scr += s.waitFor("the Log pane's row of the egress added by operator", func(scr string) bool {
		return operatorEgressRe.MatchString(scr)
	})
	s.keys("Escape") // clears the filter
	if strings.Contains(scr, "hunter2") {
		t.Fatalf("the egress password shows on screen:\n%s", scr)
	}
	s.keys("1")

	// Every listing page links to its host's /private/ page, which robots.txt
	// disallows, and some sites have no /sitemap.xml: wait until the crawl has met
	// both, so that the end-of-crawl line must count each.
	waitSkips(t, bin, addr, db, "robots_disallowed", "no_sitemap")

	// q asks first (the crawl is running), y quits; the terminal is restored.
	s.keys("q")
	s.waitText("Quit crawlconsole?")
	s.keys("y")
	// The shell prints the exit status, then stty's modes: wait for both, as a
	// capture may come between the two.
	modesRe := regexp.MustCompile(`(^|\s)(-?)(icanon|echo)(\s|$)`)
	scr = s.waitFor("the exit status and stty's modes", func(scr string) bool {
		return strings.Contains(scr, "EXIT=") && len(modesRe.FindAllStringSubmatch(scr, -1)) >= 2
	})
	if !strings.Contains(scr, "EXIT=0") {
		t.Fatalf("demo exit status not 0:\n%s", scr)
	}
	m := summaryKindsRe.FindStringSubmatch(strings.ReplaceAll(scr, "\n", ""))
	for _, kind := range []string{"robots_disallowed", "no_sitemap"} {
		if m == nil || strings.Contains(m[1], kind) || !regexp.MustCompile(kind+`=[1-9]`).MatchString(m[2]) {
			t.Fatalf("the end-of-crawl line should count %s as skipped, not as an error:\n%s", kind, scr)
		}
	}
	if alt := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{alternate_on}")); alt != "0" {
		t.Fatalf("still on the alternate screen after quitting (alternate_on=%s)", alt)
	}
	for _, m := range modesRe.FindAllStringSubmatch(scr, -1) {
		if m[2] == "-" {
			t.Fatalf("terminal left with -%s after quitting:\n%s", m[3], scr)
		}
	}
	if strings.Contains(scr, "LANE EGRESS") {
		t.Fatalf("the console is still on screen after quitting:\n%s", scr)
	}
}

// waitSkips waits until `crawlconsole ctl status` of the crawl at operator port addr
// (its store db, the token beside it) counts each kind among the skipped URLs.
func waitSkips(t *testing.T, bin, addr, db string, kinds ...string) {
	t.Helper()
	deadline := time.Now().Add(e2eDeadline)
	for {
		out, err := exec.Command(bin, "ctl", "--attach", "nats://"+addr, "--token-file", db+".token", "--json", "status").Output()
		var st struct{ Skipped map[string]int64 }
		if err == nil && json.Unmarshal(out, &st) == nil {
			missing := false
			for _, k := range kinds {
				missing = missing || st.Skipped[k] == 0
			}
			if !missing {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("ctl status never counted %v among the skipped: %v\n%s", kinds, err, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
