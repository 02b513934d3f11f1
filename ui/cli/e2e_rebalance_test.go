package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	storedRe      = regexp.MustCompile(`stored ([\d,]+)`)
	workerMoveRe  = regexp.MustCompile(`(?m)^ *│ +\S.* +w\d -> w\d +\(\d\.\d{3}\)`)
	workerTotalRe = regexp.MustCompile(`(?m)^ *│ +w\d +\d+ sites? +\d\.\d{3} +-> +\d+ sites? +\d\.\d{3}`)
	planSummaryRe = regexp.MustCompile(`move \d+ sites?/keyword shards?; gap \d\.\d{3} -> \d\.\d{3}`)
	appliedRe     = regexp.MustCompile(`rebalance over workers: (\d+) of (\d+) sites?/keyword shards? moving`)
)

// stored reads the header's stored counter (-1 if absent).
func stored(scr string) int { return counter(storedRe, scr) }

// waitWithin is waitFor with its own deadline: the rebalance test keeps to a budget.
func (s *tmuxSession) waitWithin(d time.Duration, what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %s within %v; screen:\n%s", what, d, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// planAnswer is what `r` shows on a master: the plan dialog, or a status line.
type planAnswer int

const (
	answerPlan planAnswer = iota
	answerNothing
	answerBusy
)

// askPlan presses r and waits for the master's answer. A dialog title still on
// screen from before never counts: the caller closed it first.
func (s *tmuxSession) askPlan(d time.Duration) (planAnswer, string) {
	s.t.Helper()
	s.keys("r")
	var ans planAnswer
	scr := s.waitWithin(d, "answer to r (plan dialog or rebalance status)", func(scr string) bool {
		switch {
		case strings.Contains(scr, "Rebalance sites over workers (seed 003)"):
			// The whole dialog, down to its bottom border: tmux may capture the
			// terminal while a frame is still being painted.
			title := strings.Index(scr, "Rebalance sites over workers (seed 003)")
			if !strings.Contains(scr[title:], "╰") {
				return false
			}
			ans = answerPlan
		case strings.Contains(scr, "rebalance: ") && strings.Contains(scr, "nothing to move"):
			ans = answerNothing
		case strings.Contains(scr, "a rebalance is being applied"):
			ans = answerBusy
		default:
			return false
		}
		return true
	})
	return ans, scr
}

// checkPlan asserts what a worker plan dialog must show: moves "w? -> w?" with their
// weights, each of the three workers' totals before -> after, and the variance.
func checkPlan(t *testing.T, scr string) string {
	t.Helper()
	if !workerMoveRe.MatchString(scr) {
		t.Fatalf("the plan names no move \"UNIT  wN -> wM  (weight)\":\n%s", scr)
	}
	if n := len(workerTotalRe.FindAllString(scr, -1)); n != 3 {
		t.Fatalf("the plan shows %d worker totals before -> after, want 3:\n%s", n, scr)
	}
	if !regexp.MustCompile(`variance \S+ -> \S+`).MatchString(scr) {
		t.Fatalf("the plan shows no \"variance A -> B\":\n%s", scr)
	}
	sum := planSummaryRe.FindString(scr)
	if sum == "" {
		t.Fatalf("the plan has no summary line \"move N sites/keyword shards; gap A -> B\":\n%s", scr)
	}
	return sum
}

// TestDemoWorkersRebalanceInTmux runs `crawlconsole demo --workers 3` in a real
// terminal (tmux, 120×40) and uses seed 003's rebalance key on the master: once the
// Nodes pane shows three active workers and pages are stored, r shows the plan (moves
// "w? -> w?", each worker's total before -> after, the variance), y applies it (the
// status says "rebalancing:", the log that every planned move was taken), and a
// second r answers with a new plan, "nothing to move", or, applied while the first is
// still moving, "a rebalance is being applied".
//
// The demo's natural costs are enough: its sites differ in size (sections, articles,
// social keyword shards), and the first even spread is by count, so the workers'
// weight totals are far apart (a gap of ~0.3 of the total, threshold 0.1) within
// seconds. If no plan shows within planWithin the test fails: it must be able to.
func TestDemoWorkersRebalanceInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t, "runs the demo with 3 workers")
	const (
		// Guards, not measures: an idle box takes seconds for each, a loaded
		// two-core box running the whole suite many times that.
		startWithin  = 3 * time.Minute  // build done: the console up, 3 workers, pages stored
		planWithin   = 3 * time.Minute  // the first plan with moves
		answerWithin = 90 * time.Second // any one answer of the console
	)
	script := bin + " demo --workers 3 --db " + filepath.Join(dir, "demo.db") + `; echo "EXIT=$?"; sleep 600`
	s := startTmux(t, dir, "e2e", script)

	// The Nodes pane: three active workers, and pages stored.
	s.waitWithin(startWithin, "Nodes tab", func(scr string) bool { return strings.Contains(scr, "7 Nodes") })
	s.keys("7")
	s.waitWithin(startWithin, "3 active workers and 200 pages stored", func(scr string) bool {
		return strings.Contains(scr, "3 workers: 3 active") && stored(scr) >= 200
	})

	// r until a plan with moves shows (the costs build up as results come in).
	var scr string
	began := time.Now()
	for {
		ans, got := s.askPlan(answerWithin)
		if ans == answerPlan {
			scr = got
			break
		}
		if time.Since(began) > planWithin {
			t.Fatalf("no rebalance plan with moves within %v of pages stored; last answer:\n%s", planWithin, got)
		}
		// Wait for the status line to move on (more pages stored) before asking again.
		n := stored(got)
		s.waitWithin(answerWithin, "more pages stored", func(scr string) bool { return stored(scr) > n+50 })
	}
	first := checkPlan(t, scr)
	t.Logf("first plan after %.1fs: %s", time.Since(began).Seconds(), first)

	// y applies: the status says rebalancing, the log that every move was taken.
	s.keys("y")
	s.waitWithin(answerWithin, `"rebalancing: `+first+`"`, func(scr string) bool {
		return strings.Contains(scr, "rebalancing: "+first) && !strings.Contains(scr, "Rebalance sites over workers")
	})
	// The Log pane filtered to the rebalance's line: unfiltered, it follows the
	// master's stream of events, and the line can scroll off between two captures
	// on a loaded box.
	s.keys("3")
	s.keys("/")
	s.keys("-l", "rebalance over workers")
	s.keys("Enter")
	scr = s.waitWithin(answerWithin, "the log's rebalance line", func(scr string) bool { return appliedRe.MatchString(scr) })
	// A move whose unit the crawl changed since the plan was made (its site's round
	// ended, its worker already handed it on) is skipped, and the log counts it: on a
	// loaded box more time passes between r and y, so only "none taken" is a failure.
	if m := appliedRe.FindStringSubmatch(scr); m[1] == "0" {
		t.Fatalf("none of the plan's %s moves was taken, seconds after it was made:\n%s", m[2], scr)
	} else if m[1] != m[2] {
		t.Logf("%s of the plan's %s moves were taken; the others' units moved on since the plan", m[1], m[2])
	}
	s.keys("7")
	s.waitWithin(answerWithin, "Nodes pane", func(scr string) bool { return strings.Contains(scr, "3 workers: 3 active") })

	// r again: a new plan (y: applied, or refused while the first still moves), or
	// nothing to move.
	ans, scr := s.askPlan(answerWithin)
	switch ans {
	case answerPlan:
		second := checkPlan(t, scr)
		s.keys("y")
		scr = s.waitWithin(answerWithin, "the second plan applied or refused", func(scr string) bool {
			return !strings.Contains(scr, "Rebalance sites over workers") &&
				(strings.Contains(scr, "rebalancing: "+second) || strings.Contains(scr, "could not rebalance: a rebalance is being applied"))
		})
		if strings.Contains(scr, "could not rebalance") {
			t.Logf("second plan (%s): refused, the first still moving", second)
		} else {
			t.Logf("second plan (%s): applied", second)
		}
	case answerNothing:
		t.Logf("second r: nothing to move")
	case answerBusy:
		t.Logf("second r: a rebalance is being applied")
	}

	// The crawl goes on after the moves: more pages are stored.
	n := stored(s.screen())
	s.waitWithin(answerWithin, "more pages stored after the rebalance", func(scr string) bool { return stored(scr) > n })

	s.keys("q")
	s.waitWithin(answerWithin, "quit dialog", func(scr string) bool { return strings.Contains(scr, "Quit crawlconsole?") })
	s.keys("y")
	scr = s.waitWithin(answerWithin, "the demo to exit", func(scr string) bool { return strings.Contains(scr, "EXIT=") })
	if !strings.Contains(scr, "EXIT=0") {
		t.Fatalf("demo exit status not 0:\n%s", scr)
	}
}
