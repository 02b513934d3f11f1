// Package clikit holds what crawlconsole's commands share: the usage exit status, a
// flag parse that says how to get help, and the cells of their text tables.
package clikit

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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
		fmt.Fprintf(out, "crawlconsole %s: %v\nRun \"crawlconsole %s --help\" for its flags.\n", fs.Name(), err, fs.Name())
	}
	return err
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
