// Package clikit holds what crawlconsole's commands share: the usage exit status, a
// flag parse that says how to get help, and the cells of their text tables.
package clikit

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// ExitUsage is the exit status for bad flags, config or arguments.
const ExitUsage = 2

// Parse is fs.Parse(args) that keeps a mistake readable: the error, named after
// its command like the command's other errors, and one line pointing at --help,
// not the whole flag list after it (which scrolled the error away); the list is
// printed when asked for, with -h or --help, on help (the command's stdout: asked
// for, it is the command's output, and `crawlconsole crawl --help | less` pages
// it), the command's usage writing to fs.Output().
func Parse(fs *flag.FlagSet, args []string, help io.Writer) error {
	usage, out := fs.Usage, fs.Output()
	// The flag package prints its error bare ("flag provided but not defined:
	// -bogus"); it is printed here instead, with the command's name.
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(help)
		if usage != nil {
			usage()
		} else {
			fs.PrintDefaults()
		}
		fs.SetOutput(out)
	case err != nil:
		msg := valueWanted(fs, err.Error())
		if hint := FlagHint(fs, msg); hint != "" {
			msg += ": " + hint
		}
		Usage(out, fs.Name(), msg)
	}
	return err
}

// Usage says what was wrong with a command's flags or arguments (a bad value, a
// required flag not given) and where its flags are listed, and returns ExitUsage:
// the line to --help is what an operator who left out --db needs next.
func Usage(w io.Writer, cmd, msg string) int {
	fmt.Fprintf(w, "crawlconsole %s: %s\nRun \"crawlconsole %s --help\" for its flags.\n", cmd, msg, cmd)
	return ExitUsage
}

// FlagHint is the flag an undefined one was likely meant to be ("did you mean
// --headless?"), as a config key's typo is answered, or "": msg is the flag
// package's error, which names only the bad flag, and the list is a --help away.
func FlagHint(fs *flag.FlagSet, msg string) string {
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: ")
	if !ok {
		return ""
	}
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	best, bestD := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		if d := EditDistance(name, f.Name); d < bestD || d == bestD && f.Name < best {
			best, bestD = f.Name, d
		}
	})
	if best == "" || bestD >= len(name) {
		return ""
	}
	return "did you mean --" + best + "?"
}

// valueWanted is msg with the flag package's bare "parse error", which it gives for
// any bad value of its own kinds (`--duration 5`), replaced by what the flag takes,
// so the error says how to write it without a trip to --help.
func valueWanted(fs *flag.FlagSet, msg string) string {
	head, ok := strings.CutSuffix(msg, ": parse error")
	if !ok {
		return msg
	}
	_, name, ok := strings.Cut(head, " for flag -")
	if !ok {
		return msg
	}
	f := fs.Lookup(name)
	if f == nil {
		return msg
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return msg
	}
	var want string
	switch g.Get().(type) {
	case time.Duration:
		want = "want a duration with its unit, e.g. 90s, 10m or 1h30m"
	case int, int64:
		want = "want a whole number"
	case uint, uint64:
		want = "want a whole number >= 0"
	case float64:
		want = "want a number, e.g. 0.5"
	default:
		return msg
	}
	return head + ": " + want
}

// EditDistance is the Levenshtein distance between a and b (bytes; flags and
// config keys are ASCII).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Set returns the names of the flags given on the command line (not defaulted).
func Set(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// Dash is s, or "-" for an empty cell of a text table.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJSON writes v as one indented JSON document, a command's --json output, and
// returns the command's exit status: 0, or 1 when it could not be written.
func WriteJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return Exit(enc.Encode(v) == nil)
}

// Exit is a command's exit status from whether its output could be written: 0, or
// 1 when it could not.
func Exit(ok bool) int {
	if ok {
		return 0
	}
	return 1
}
