// Package commands is the console's ":" command line: the registry, parsing,
// completion and usage of commands, and the commands themselves (crawl control,
// egress rotation, live steering, DNS, nodes, revisit). actions.go holds the
// controls a pane's key shares with its command, so both do the same thing;
// secret.go masks the proxy passwords an egress spec typed on the line carries.
// A command acts on a Console, which package ui implements over its Model.
package commands

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// Console is the console a command line was typed in: what a command reads, and
// what it may do to the console itself. Engine calls go through Common's Control,
// in the returned Cmd.
type Console interface {
	// Common is the console's shared context: styles, keys, the engine controls.
	Common() *pane.Common
	// Snapshot is the state on screen (held still while the view is frozen).
	Snapshot() *view.Snapshot
	// SetPaused pauses or resumes the whole crawl.
	SetPaused(paused bool) tea.Cmd
	// SetTheme switches this console's theme; an unknown name is an error.
	SetTheme(name string) error
	// PlanRebalance asks for a rebalance plan and shows it for confirmation.
	PlanRebalance() tea.Cmd
	// RequestQuit quits, first asking when quitting would stop a live crawl.
	RequestQuit() tea.Cmd
	// OpenHelp opens the ? overlay.
	OpenHelp()
}

// Command is one ":" command. A capability adds its commands (":dns flush
// [domain]", ":egress add SPEC", ...) with Register calls in a file of its own.
type Command struct {
	Name     string // one or more words: "pause", "pause host"
	Args     string // argument usage: "NAME", "N", "[domain]"
	Help     string // one line for :help and the ? overlay
	Min, Max int    // bounds on the number of arguments
	Control  bool   // changes the crawl: refused in read-only sessions
	// When, if set, says whether the crawl has what the command acts on (M4's node
	// commands: workers). While false the command is left out of :help, the ?
	// overlay, completion and usage lines; typed anyway, run says why it cannot act.
	When func(con Console) bool
	// Complete, if set, proposes values for the (last) argument.
	Complete func(con Console) []string
	// Run checks the arguments and returns the Cmd that does the work (engine calls
	// belong in the Cmd, never here). An error is shown inline and nothing changes.
	Run func(con Console, args []string) (tea.Cmd, error)
}

// Usage is the command as the operator types it: "pause host NAME".
func (c *Command) Usage() string {
	if c.Args == "" {
		return c.Name
	}
	return c.Name + " " + c.Args
}

// available reports whether c is offered on this console's crawl now.
func (c *Command) available(con Console) bool { return c.When == nil || c.When(con) }

var commands []*Command

// Register adds a ":" command to every console. Call from init; unregister
// takes it away again (a test's extra command).
func Register(c Command) (unregister func()) {
	cmd := &c
	commands = append(commands, cmd)
	sort.SliceStable(commands, func(i, j int) bool { return commands[i].Name < commands[j].Name })
	return func() { commands = slices.DeleteFunc(commands, func(c *Command) bool { return c == cmd }) }
}

// Offered lists the commands con's crawl has now, in name order; a read-only
// session is not offered the ones that change the crawl.
func Offered(con Console) []*Command {
	var out []*Command
	for i := range commands {
		c := commands[i]
		if c.available(con) && !(c.Control && con.Common().ReadOnly) {
			out = append(out, c)
		}
	}
	return out
}

// UnknownCommandError is a line whose first word names no command; ctl says where
// its own list is, as ":help" is the console's.
type UnknownCommandError struct{ Word string }

func (e *UnknownCommandError) Error() string {
	return fmt.Sprintf("unknown command %q (try :help)", e.Word)
}

// lookupCommand finds the command whose name is the longest run of leading words of
// line, and returns it with the remaining words as arguments.
func lookupCommand(con Console, line string) (*Command, []string, error) {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil, nil, fmt.Errorf("empty command (try :help)")
	}
	var best *Command
	bestLen := 0
	for i := range commands {
		c := commands[i]
		cw := strings.Fields(c.Name)
		if len(cw) > len(words) || len(cw) <= bestLen {
			continue
		}
		ok := true
		for j, w := range cw {
			if words[j] != w {
				ok = false
				break
			}
		}
		if ok {
			best, bestLen = c, len(cw)
		}
	}
	if best == nil {
		return nil, nil, &UnknownCommandError{Word: words[0]}
	}
	args := words[bestLen:]
	if len(args) < best.Min || len(args) > best.Max {
		return nil, nil, fmt.Errorf("usage: %s", usagesOf(con, words[0]))
	}
	return best, args, nil
}

// usagesOf lists the forms of every command starting with word: "pause | pause host NAME".
func usagesOf(con Console, word string) string {
	var forms []string
	for i := range commands {
		if strings.Fields(commands[i].Name)[0] == word && commands[i].available(con) {
			forms = append(forms, ":"+commands[i].Usage())
		}
	}
	return strings.Join(forms, " | ")
}

// Run parses and runs the command line typed in con. It returns the work to do, or the
// inline error to show; an error changes nothing.
func Run(con Console, line string) (tea.Cmd, error) {
	c, args, err := lookupCommand(con, line)
	if err != nil {
		return nil, err
	}
	if c.Control && con.Common().ReadOnly {
		// Not an inline error: the line was fine, the session may not steer.
		return pane.Status(pane.ReadOnlyText, true), nil
	}
	return c.Run(con, args)
}

// Complete completes what was typed after ":" (tab). It returns the new line
// and, when the choice is ambiguous, the candidates to show.
func Complete(con Console, line string) (string, []string) {
	// Argument of a full command name: "theme h" -> "theme high-contrast".
	for i := range commands {
		c := commands[i]
		prefix := c.Name + " "
		if c.Complete == nil || !c.available(con) || !strings.HasPrefix(line, prefix) {
			continue
		}
		rest := line[len(prefix):]
		if strings.Contains(rest, " ") {
			continue
		}
		var cands []string
		for _, v := range c.Complete(con) {
			if strings.HasPrefix(v, rest) {
				cands = append(cands, v)
			}
		}
		if len(cands) == 0 {
			continue
		}
		if len(cands) == 1 {
			return prefix + cands[0], nil
		}
		return prefix + commonPrefix(cands), cands
	}
	// Command names: "pa" -> "pause" (with "pause host", "pause lane" shown).
	var cands []string
	for i := range commands {
		if strings.HasPrefix(commands[i].Name, line) && commands[i].available(con) {
			cands = append(cands, commands[i].Name)
		}
	}
	switch len(cands) {
	case 0:
		return line, nil
	case 1:
		if commandTakesArgs(cands[0]) {
			return cands[0] + " ", nil
		}
		return cands[0], nil
	}
	lcp := commonPrefix(cands)
	return lcp, cands
}

func commandTakesArgs(name string) bool {
	for i := range commands {
		if commands[i].Name == name {
			return commands[i].Max > 0
		}
	}
	return false
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// NotInCrawlError is a well-formed command naming something the crawl does not have
// now (a lane that is not open): the crawl refuses it, as it refuses a site it does
// not have, rather than the words being wrong. ctl exits 1 for it, not 2.
type NotInCrawlError struct{ Text string }

func (e *NotInCrawlError) Error() string { return e.Text }

// parseLaneID reads a lane number and checks the crawl has that lane.
func parseLaneID(con Console, s string) (int, error) {
	id, err := strconv.Atoi(s)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("lane must be a lane number, not %q", s)
	}
	for _, l := range con.Snapshot().Lanes {
		if l.ID == id {
			return id, nil
		}
	}
	if len(con.Snapshot().Lanes) == 0 {
		return 0, &NotInCrawlError{fmt.Sprintf("no lane %d: no lane is open", id)}
	}
	var ids []int
	for _, l := range con.Snapshot().Lanes {
		ids = append(ids, l.ID)
	}
	return 0, &NotInCrawlError{fmt.Sprintf("no lane %d (%s)", id, openLanes(ids))}
}

// openLanes names the open lanes' numbers, which are not 1..N (a lane keeps its
// number while others close): "12 lanes open: 1, 2, 3, 4, 5, 6, 7, 8, …, 12".
func openLanes(ids []int) string {
	slices.Sort(ids)
	var b strings.Builder
	b.WriteString(plural.Count(len(ids), "lane") + " open: ")
	for i, id := range ids {
		switch {
		case len(ids) > 10 && i == 8:
			b.WriteString(", …")
		case len(ids) > 10 && i > 8 && i < len(ids)-1:
		default:
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(id))
		}
	}
	return b.String()
}

// inSnapshot says whether the snapshot shows host: a lane holds it, it is paused,
// it is a declared site's entry or search host (paused before its round reaches
// it), or the hosts report has it (a response or an ending from it); a host past
// the report's cap cannot be told apart, and is taken. A host it does not show may
// still be known to the crawl (a seed before its first fetch, a URL queued in the
// store only): the crawl is asked (Control.KnowsHost).
func inSnapshot(con Console, host string) bool {
	s := con.Snapshot()
	for _, h := range s.PausedHosts {
		if h == host {
			return true
		}
	}
	for _, l := range s.Lanes {
		for _, h := range l.Hosts {
			if h == host {
				return true
			}
		}
	}
	if s.Sites != nil {
		for _, r := range s.Sites.Sites {
			if u, err := url.Parse(r.Entry); err == nil && strings.ToLower(u.Host) == host {
				return true
			}
		}
	}
	if hv := s.Hosts; hv != nil {
		if hv.Untracked > 0 {
			return true
		}
		if _, ok := hv.Live[host]; ok {
			return true
		}
		for i := range hv.Hosts.Len() {
			if hv.Hosts.At(i).Name == host {
				return true
			}
		}
	}
	return false
}

// checkHost refuses a host the crawl does not know (pausing a typo'd name said
// "paused" and held nothing), asking the crawl when the snapshot does not show it.
// It calls the engine: run it in a Cmd.
func checkHost(ctrl control.Control, shown bool, host string) error {
	if shown {
		return nil
	}
	known, err := ctrl.KnowsHost(host)
	if err != nil {
		return err
	}
	if !known {
		return &NotInCrawlError{fmt.Sprintf("no host %s in the crawl: no seed is on it and no URL of it was queued or fetched (check the name; the Hosts tab lists the hosts fetched)", host)}
	}
	return nil
}

// knownHosts lists the hosts bound to lanes, for completion.
func knownHosts(con Console) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range con.Snapshot().Lanes {
		for _, h := range l.Hosts {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	sort.Strings(out)
	return out
}

// verbs gives the imperative and past forms for pausing (true) and resuming.
var verbs = map[bool][2]string{true: {"pause", "paused"}, false: {"resume", "resumed"}}

func init() {
	hostOp := func(paused bool) func(con Console, args []string) (tea.Cmd, error) {
		return func(con Console, args []string) (tea.Cmd, error) {
			host := strings.ToLower(args[0])
			shown := inSnapshot(con, host)
			return con.Common().Control(verbs[paused][0]+" host "+host, "host "+host+" "+verbs[paused][1], func(ctrl control.Control) error {
				if err := checkHost(ctrl, shown, host); err != nil {
					return err
				}
				return ctrl.PauseHost(host, paused)
			}), nil
		}
	}
	laneOp := func(paused bool) func(con Console, args []string) (tea.Cmd, error) {
		return func(con Console, args []string) (tea.Cmd, error) {
			id, err := parseLaneID(con, args[0])
			if err != nil {
				return nil, err
			}
			return con.Common().Control(fmt.Sprintf("%s lane %d", verbs[paused][0], id), fmt.Sprintf("lane %d %s", id, verbs[paused][1]), func(ctrl control.Control) error {
				return ctrl.PauseLane(id, paused)
			}), nil
		}
	}
	for _, c := range []Command{
		{Name: "pause", Help: "pause the whole crawl", Control: true,
			Run: func(con Console, _ []string) (tea.Cmd, error) { return con.SetPaused(true), nil }},
		{Name: "resume", Help: "resume the crawl", Control: true,
			Run: func(con Console, _ []string) (tea.Cmd, error) { return con.SetPaused(false), nil }},
		{Name: "pause host", Args: "NAME", Min: 1, Max: 1, Control: true, Help: "stop fetching from a host",
			Complete: knownHosts, Run: hostOp(true)},
		{Name: "resume host", Args: "NAME", Min: 1, Max: 1, Control: true, Help: "fetch from a paused host again",
			Complete: func(con Console) []string { return con.Snapshot().PausedHosts }, Run: hostOp(false)},
		{Name: "pause lane", Args: "N", Min: 1, Max: 1, Control: true, Help: "pause one lane", Run: laneOp(true)},
		{Name: "resume lane", Args: "N", Min: 1, Max: 1, Control: true, Help: "resume one lane", Run: laneOp(false)},
		{Name: "lanes", Args: "N", Min: 1, Max: 1, Control: true, Help: "set lanes.max (at least 1)",
			Run: func(con Console, args []string) (tea.Cmd, error) {
				n, err := strconv.Atoi(args[0])
				if err != nil || n < 1 {
					return nil, fmt.Errorf("lanes: N must be a whole number >= 1, not %q", args[0])
				}
				return con.Common().Control(fmt.Sprintf("set lanes.max to %d", n), fmt.Sprintf("lanes.max set to %d", n), func(ctrl control.Control) error {
					return ctrl.SetMaxLanes(n)
				}), nil
			}},
		{Name: "theme", Args: "NAME", Min: 1, Max: 1, Help: "dark, light, high-contrast or mono",
			Complete: func(Console) []string { return themes.Names() },
			Run: func(con Console, args []string) (tea.Cmd, error) {
				if err := con.SetTheme(args[0]); err != nil {
					return nil, err
				}
				return pane.Status("theme "+args[0], false), nil
			}},
		{Name: "rebalance", Help: "re-deal lanes over egresses; on a master, sites over workers (confirm)", Control: true,
			Run: func(con Console, _ []string) (tea.Cmd, error) { return con.PlanRebalance(), nil }},
		{Name: "quit", Help: "quit (asks if the crawl would stop)",
			Run: func(con Console, _ []string) (tea.Cmd, error) { return con.RequestQuit(), nil }},
		{Name: "help", Help: "show keys and commands",
			Run: func(con Console, _ []string) (tea.Cmd, error) { con.OpenHelp(); return nil, nil }},
	} {
		Register(c)
	}
}
