package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/themes"
)

// Run shows the console full-screen (alternate screen) on the local terminal until
// the operator quits (confirming first if the crawl is running) or ctx is done, then
// restores the terminal. It never stops the engine: the caller does that when Run
// returns. A cancelled ctx is a normal end and returns nil.
func Run(ctx context.Context, ctrl control.Control, opts Options) error {
	if opts.Theme != "" {
		if _, ok := themes.Lookup(opts.Theme); !ok {
			return fmt.Errorf("unknown theme %q (have %s)", opts.Theme, strings.Join(themes.Names(), ", "))
		}
	}
	in, out := opts.Input, opts.Output
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	// The renderer reads the terminal's colour support and NO_COLOR from out.
	// The colour cache matters: converting a theme colour to a 16-colour
	// terminal's palette is a perceptual search, and a frame paints hundreds of cells.
	r := lipgloss.NewRenderer(out, termenv.WithColorCache(true))
	m := newModel(ctrl, opts, r)
	popts := []tea.ProgramOption{
		tea.WithInput(in),
		tea.WithOutput(out),
		tea.WithAltScreen(),
		// 30 frames a second is smooth for a dashboard refreshed 4 times a second
		// and halves the renderer's wake-ups when nothing changes (idle CPU).
		tea.WithFPS(30),
	}
	if opts.Mouse {
		popts = append(popts, tea.WithMouseCellMotion())
	}
	p := tea.NewProgram(m, popts...)
	// A cancelled ctx ends the console like a confirmed q, not by killing it: a
	// killed Bubble Tea program returns without waiting for its input reader, which
	// may then still be reading in after Run returned. A console stuck in Update is
	// killed after quitGrace.
	stop := context.AfterFunc(ctx, func() {
		p.Quit()
		time.AfterFunc(quitGrace, p.Kill)
	})
	defer stop()
	_, err := p.Run()
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil
	}
	return err
}

// quitGrace is how long a cancelled Run waits for the console to quit cleanly.
const quitGrace = 2 * time.Second
