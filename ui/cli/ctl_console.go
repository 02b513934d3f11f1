package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// `ctl COMMAND...` runs the console's ":COMMAND..." against the attached crawl: the
// same registry, parsing and engine calls (ui/commands), with this Console in place
// of the screen. What the console would show in its status line is printed, and the
// outcome decides the exit status.

// ExitUnreachable is ctl's exit status when the crawl was not reached: nothing
// accepted the connection, nothing answers under the prefix, or no answer in time.
const ExitUnreachable = 4

// consoleOnly are the ":" commands that act on a console's screen, not on the crawl.
var consoleOnly = map[string]bool{"theme": true, "quit": true, "help": true}

// ctlConsole is a commands.Console without a screen.
type ctlConsole struct {
	client *attach.Client
	common *pane.Common
	snap   *view.Snapshot
	yes    bool     // rebalance: apply the plan, not only show it
	out    []string // plan lines for the operator, printed before the outcome
}

func newCtlConsole(client *attach.Client, yes bool) *ctlConsole {
	return &ctlConsole{client: client, common: pane.NewCommon(client), yes: yes}
}

func (c *ctlConsole) Common() *pane.Common { return c.common }

// Snapshot is fetched on first need (lane numbers are checked against it).
func (c *ctlConsole) Snapshot() *view.Snapshot {
	if c.snap == nil {
		s := c.client.Snapshot()
		c.snap = &s
	}
	return c.snap
}

func (c *ctlConsole) SetPaused(paused bool) tea.Cmd {
	client := c.client
	if paused {
		return c.common.Control("pause the crawl", "crawl paused", func(control.Control) error { client.Pause(); return client.Err() })
	}
	return c.common.Control("resume the crawl", "crawl resumed", func(control.Control) error { client.Resume(); return client.Err() })
}

func (c *ctlConsole) SetTheme(string) error { return errors.New("theme is a console command") }
func (c *ctlConsole) RequestQuit() tea.Cmd  { return nil }
func (c *ctlConsole) OpenHelp()             {}

// PlanRebalance asks for the plan, keeps it for printing, and applies it with --yes.
func (c *ctlConsole) PlanRebalance() tea.Cmd {
	client := c.client
	return c.common.ControlResult("rebalance", func(control.Control) (string, error) {
		p := client.PlanRebalance()
		if err := client.Err(); err != nil {
			return "", err
		}
		c.out = planLines(p)
		if len(p.Moves) == 0 && len(p.Units) == 0 {
			return "rebalance: nothing to move (" + p.Summary + ")", nil
		}
		if !c.yes {
			return "rebalance planned, not applied: " + p.Summary + " (run again with ctl --yes rebalance to apply)", nil
		}
		if err := client.ApplyRebalance(p); err != nil {
			return "", err
		}
		return "rebalanced: " + p.Summary, nil
	})
}

// planLines is a rebalance plan as the console's dialog lists it.
func planLines(p view.RebalancePlan) []string {
	var out []string
	for _, mv := range p.Moves {
		out = append(out, fmt.Sprintf("  lane %-4d %s -> %s  (%.1fs queued)", mv.Lane, mv.From, mv.To, mv.Cost))
	}
	for _, mv := range p.Units {
		out = append(out, fmt.Sprintf("  %s  %s -> %s  (%.3f)", mv.Unit, mv.From, mv.To, mv.Weight))
	}
	return out
}

// ctlOutcome is what one ctl command did, as --json prints it.
type ctlOutcome struct {
	Command string   `json:"command"`
	OK      bool     `json:"ok"`
	Result  string   `json:"result,omitempty"`
	Plan    []string `json:"plan,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Refused: the crawl said no; Unreachable: it was not reached (the change may
	// or may not have been made when it did not answer in time).
	Refused     bool `json:"refused,omitempty"`
	Unreachable bool `json:"unreachable,omitempty"`
	Exit        int  `json:"exit"`
}

// runCtlCommand runs one console command line on the crawl and reports it on
// stdout (the outcome) or stderr (why not), or as one JSON object on stdout.
func runCtlCommand(con *ctlConsole, words []string, url, prefix string, asJSON bool, stdout, stderr io.Writer) int {
	line := strings.Join(words, " ")
	o := ctlOutcome{Command: line}
	finish := func() int {
		if asJSON {
			clikit.WriteJSON(stdout, o) // the outcome's exit status stands: it says what the command did
		} else if o.OK {
			for _, l := range o.Plan {
				fmt.Fprintln(stdout, l)
			}
			fmt.Fprintln(stdout, o.Result)
		} else {
			fmt.Fprintf(stderr, "crawlconsole ctl: %s\n", o.Error)
		}
		return o.Exit
	}
	if len(words) > 0 && consoleOnly[words[0]] {
		o.Error, o.Exit = fmt.Sprintf("%q acts on a console's screen, not on the crawl: ctl takes the other commands (crawlconsole ctl --help)", words[0]), ExitUsage
		return finish()
	}
	cmd, err := commands.Run(con, line)
	if err == nil && con.snap != nil && attach.Unreachable(con.snap.State) {
		err = con.client.Err() // the snapshot a lane number was checked against never came
	}
	if err != nil {
		if u := unreached(err, url, prefix); u != nil {
			o.Error, o.Unreachable, o.Exit = line+": "+u.Error(), true, unreachedExit(u)
			return finish()
		}
		if uc := (*commands.UnknownCommandError)(nil); errors.As(err, &uc) {
			switch uc.Word {
			case "stats", "export", "show":
				// Commands of crawlconsole itself, which read the store: an
				// operator reaching for them through ctl is told where they are.
				err = fmt.Errorf("%q reads the crawl's store, not the running crawl: crawlconsole %s --db PATH (ctl status says how the crawl goes)", uc.Word, uc.Word)
			default:
				err = fmt.Errorf("unknown command %q (crawlconsole ctl --help lists them)", uc.Word)
			}
		}
		if nc := (*commands.NotInCrawlError)(nil); errors.As(err, &nc) {
			// Right words, a lane the crawl does not have: refused, as a site it
			// does not have is, not a usage error.
			o.Error, o.Refused, o.Exit = line+": "+err.Error(), true, 1
			return finish()
		}
		o.Error, o.Exit = line+": "+err.Error(), ExitUsage
		return finish()
	}
	for _, msg := range settle(cmd) {
		switch m := msg.(type) {
		case pane.ControlDoneMsg:
			if m.Err != nil {
				if u := unreached(m.Err, url, prefix); u != nil {
					o.Error, o.Unreachable, o.Exit = m.Action+": "+u.Error(), true, unreachedExit(u)
				} else {
					o.Error, o.Refused, o.Exit = pane.Refusal(m.Action, m.Err), true, 1
				}
				return finish()
			}
			o.Result = m.Text
		case pane.StatusMsg:
			if m.Err {
				o.Error, o.Refused, o.Exit = m.Text, true, 1
				return finish()
			}
			o.Result = m.Text
		}
	}
	o.OK, o.Plan = true, con.out
	if o.Result == "" {
		o.Result = line + ": done"
	}
	return finish()
}

// unreachedExit is the exit status of a request that did not get its answer: a
// refused credential is the caller's to fix (usage); the rest is unreachable.
func unreachedExit(err error) int {
	if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrPermissionViolation) {
		return ExitUsage
	}
	return ExitUnreachable
}

// settle runs a command's Cmd to the end and returns its messages (a batch's in
// order). ctl has no screen: what a Cmd would deliver to it is the outcome.
func settle(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, settle(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}
