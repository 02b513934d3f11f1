package main

// Benchmark "console": what the operator console (package ui) costs.
//
//	go run ./bench console [-lanes 1000] [-hosts 10000] [-frames 1000] [-idle 5s]
//
// frame_ms_1000_lanes: one engine snapshot -> Update -> View at 120×40 with 1000
// lanes, per pane, against the same frame with 10 lanes in the same run (the
// console renders only the visible rows, so the ratio should stay near 1).
// frame_ms_hosts: the same frame on the Hosts pane with -hosts hosts in the
// report, in name order and sorted by a figure the ticks move, against 10 hosts.
// idle_cpu_share: the console's CPU share of one core, running headless on a
// pseudo-terminal at the default refresh over an idle crawl, measured with
// getrusage over the whole process, against a bare Bubble Tea program on the same
// kind of terminal.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/ui"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

func init() { register("console", runConsole) }

func runConsole(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	lanes := fs.Int("lanes", 1000, "lanes in the large snapshot")
	frames := fs.Int("frames", 1000, "frames timed per pane and size")
	idle := fs.Duration("idle", 5*time.Second, "how long the idle CPU share is measured")
	hosts := fs.Int("hosts", 10000, "hosts in the Hosts pane's large report")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *lanes < 10 || *frames < 10 || *hosts < 10 || *idle < time.Second {
		return nil, errors.New("-lanes, -hosts and -frames must be >= 10, -idle >= 1s")
	}
	fmt.Printf("console: GOMAXPROCS %d, %s, load average %s\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(3))

	// Frame cost, per pane, 10 lanes (baseline) and -lanes lanes.
	fmt.Printf("\nframe = snapshot -> Update -> View at 120x40, TrueColor, %d frames each\n", *frames)
	fmt.Printf("%-8s %12s %12s %12s %12s %7s\n", "pane", "10 lanes ms", "p99 ms", fmt.Sprintf("%d lanes ms", *lanes), "p99 ms", "ratio")
	worst := 0.0
	byPane := map[string]float64{}
	for i, pane := range []string{"Lanes", "Groups", "Log", "DNS", "Egress", "Revisit"} {
		small, smallP99, err := consoleFrame(10, i, *frames)
		if err != nil {
			return nil, err
		}
		big, bigP99, err := consoleFrame(*lanes, i, *frames)
		if err != nil {
			return nil, err
		}
		fmt.Printf("%-8s %12.3f %12.3f %12.3f %12.3f %7.2f\n", pane, small, smallP99, big, bigP99, big/small)
		byPane[strings.ToLower(pane)] = round3(big)
		worst = max(worst, big)
	}
	fmt.Printf("frame_ms_1000_lanes (worst pane, mean) = %.3f ms (goal <= 2 ms)\n", worst)

	// The Hosts pane: 10 hosts (baseline) and -hosts hosts, in name order and sorted
	// by a figure the ticks move (the sort the snapshot must redo).
	fmt.Printf("\nHosts pane, %d frames each\n", *frames)
	fmt.Printf("(cpu ms: the process's CPU time a frame, GC included: what a loaded box's wall clock hides)\n")
	fmt.Printf("%-16s %12s %12s %12s %12s %12s %7s\n", "order", "10 hosts ms", "p99 ms", fmt.Sprintf("%d hosts ms", *hosts), "p99 ms", "cpu ms", "ratio")
	worstHosts, worstHostsCPU := 0.0, 0.0
	for _, order := range []struct {
		name string
		keys string
	}{{"by name", ""}, {"by fetched", "o"}, {"by refused", "ooooooo"}} {
		small, smallP99, _, err := hostsFrame(10, order.keys, *frames)
		if err != nil {
			return nil, err
		}
		big, bigP99, bigCPU, err := hostsFrame(*hosts, order.keys, *frames)
		if err != nil {
			return nil, err
		}
		fmt.Printf("%-16s %12.3f %12.3f %12.3f %12.3f %12.3f %7.2f\n", order.name, small, smallP99, big, bigP99, bigCPU, big/small)
		worstHosts, worstHostsCPU = max(worstHosts, big), max(worstHostsCPU, bigCPU)
	}
	fmt.Printf("frame_ms_%d_hosts (worst order, mean) = %.3f ms wall, %.3f ms CPU (goal <= 2 ms)\n", *hosts, worstHosts, worstHostsCPU)

	// Idle CPU share on a pseudo-terminal.
	fmt.Printf("\nidle CPU share of one core over %s on a pseudo-terminal (120x40), getrusage(RUSAGE_SELF)\n", *idle)
	bare, err := consoleIdleShare(*idle/2, func(ctx context.Context, tty *os.File) error {
		_, err := tea.NewProgram(bareModel{}, tea.WithContext(ctx), tea.WithInput(tty), tea.WithOutput(tty),
			tea.WithAltScreen(), tea.WithFPS(30)).Run() // same frame rate as the console
		return err
	})
	if err != nil {
		return nil, err
	}
	ctrl := fake.New(fake.Config{Lanes: 24})
	ctrl.Idle()
	console, err := consoleIdleShare(*idle, func(ctx context.Context, tty *os.File) error {
		return ui.Run(ctx, ctrl, ui.Options{Input: tty, Output: tty})
	})
	if err != nil {
		return nil, err
	}
	fmt.Printf("%-34s %10s\n", "program", "CPU share")
	fmt.Printf("%-34s %10.4f\n", "bare Bubble Tea program, 30 fps", bare)
	fmt.Printf("%-34s %10.4f\n", fmt.Sprintf("console, refresh %s", ui.DefaultRefresh), console)
	fmt.Printf("idle_cpu_share = %.4f (goal <= 0.03); console - baseline = %.4f\n", console, console-bare)

	return map[string]any{
		"frame_ms_1000_lanes":         round3(worst),
		"frame_ms_1000_lanes_by_pane": byPane,
		"frame_ms_hosts":              round3(worstHosts),
		"frame_cpu_ms_hosts":          round3(worstHostsCPU),
		"hosts":                       *hosts,
		"idle_cpu_share":              round4(console),
		"idle_cpu_share_bare_tea":     round4(bare),
		"lanes":                       *lanes,
		"frames":                      *frames,
	}, nil
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
func round4(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// consoleFrame times frames of one pane with n lanes and returns the mean and p99
// in milliseconds.
func consoleFrame(n, pane, frames int) (mean, p99 float64, err error) {
	ctrl := fake.New(fake.Config{Lanes: n, Events: 1000})
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	m := ui.NewModel(ctrl, ui.Options{Clock: func() time.Time { return fake.Epoch }}, r)
	m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = consoleSettle(m, ui.SnapshotMsg{Snapshot: ctrl.Snapshot()}) // events for the log
	m = consoleSettle(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune('1' + pane)}})
	if pane == 1 { // expand the first groups so children rows are drawn too
		for range 5 {
			m = consoleSettle(m, tea.KeyMsg{Type: tea.KeyEnter})
			m = consoleSettle(m, tea.KeyMsg{Type: tea.KeyDown})
		}
	}
	if v := m.View(); !strings.Contains(v, "sandbox.test") {
		return 0, 0, fmt.Errorf("pane %d shows no data:\n%s", pane+1, v)
	}
	times := make([]time.Duration, frames)
	for i := range frames {
		ctrl.Tick() // counters move, as in a running crawl
		t0 := time.Now()
		s := ctrl.Snapshot()
		m, _ = m.Update(ui.SnapshotMsg{Snapshot: s})
		_ = m.View()
		times[i] = time.Since(t0)
	}
	mean, p99 = frameStats(times)
	return mean, p99, nil
}

// frameStats returns the mean and the p99 of times in ms; it sorts times.
func frameStats(times []time.Duration) (mean, p99 float64) {
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	var sum time.Duration
	for _, d := range times {
		sum += d
	}
	return millis(sum) / float64(len(times)), millis(times[len(times)*99/100])
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// hostsFrame times frames of the Hosts pane over a report of n hosts, ordered by
// the sort keys typed (o: the next figure), and returns the mean and p99 in ms and
// the process's CPU time a frame.
func hostsFrame(n int, keys string, frames int) (mean, p99, cpu float64, err error) {
	ctrl := fake.New(fake.Config{Hosts: n})
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	m := ui.NewModel(ctrl, ui.Options{Clock: func() time.Time { return fake.Epoch }}, r)
	m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = consoleSettle(m, ui.SnapshotMsg{Snapshot: ctrl.Snapshot()})
	m = consoleSettle(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'7'}})
	for _, k := range keys {
		m = consoleSettle(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{k}})
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "[7 Hosts]") || !strings.Contains(v, ".test") {
		return 0, 0, 0, fmt.Errorf("the Hosts pane shows no hosts:\n%s", v)
	}
	times := make([]time.Duration, frames)
	var ticking time.Duration // CPU of the fake crawl's ticks, not the console's
	c0 := crawlCPU()
	for i := range frames {
		t := crawlCPU()
		ctrl.Tick()
		ticking += crawlCPU() - t
		t0 := time.Now()
		s := ctrl.Snapshot()
		m, _ = m.Update(ui.SnapshotMsg{Snapshot: s})
		_ = m.View()
		times[i] = time.Since(t0)
	}
	mean, p99 = frameStats(times)
	return mean, p99, millis(crawlCPU()-c0-ticking) / float64(frames), nil
}

// consoleSettle delivers msg and the messages of the Cmds it returns (one level:
// the events fetch the first snapshot starts).
func consoleSettle(m tea.Model, msg tea.Msg) tea.Model {
	m, cmd := m.Update(msg)
	if cmd != nil {
		if next := cmd(); next != nil {
			if b, ok := next.(tea.BatchMsg); ok {
				for _, c := range b {
					if c != nil {
						m, _ = m.Update(c())
					}
				}
			} else {
				m, _ = m.Update(next)
			}
		}
	}
	return m
}

// consoleIdleShare runs run on a fresh pseudo-terminal (its output drained, as a
// terminal emulator would) and returns the process's CPU time over d divided by d,
// after a one-second warm-up.
func consoleIdleShare(d time.Duration, run func(ctx context.Context, tty *os.File) error) (float64, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return 0, fmt.Errorf("pseudo-terminal: %w", err)
	}
	defer master.Close()
	defer tty.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 120, Rows: 40}); err != nil {
		return 0, err
	}
	go func() { _, _ = io.Copy(io.Discard, master) }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, tty) }()
	time.Sleep(time.Second) // warm-up: first frames, terminal set-up
	c0, t0 := crawlCPU(), time.Now()
	select {
	case err := <-done:
		cancel()
		return 0, fmt.Errorf("the program ended early: %v", err)
	case <-time.After(d):
	}
	share := float64(crawlCPU()-c0) / float64(time.Since(t0))
	cancel()
	if err := <-done; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return 0, err
	}
	return share, nil
}

// bareModel is the baseline: a Bubble Tea program that draws a static screen and
// does nothing else.
type bareModel struct{}

func (bareModel) Init() tea.Cmd                       { return nil }
func (bareModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return bareModel{}, nil }
func (bareModel) View() string                        { return "idle" }
