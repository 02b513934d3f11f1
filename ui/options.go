// Package ui is crawlconsole's operator console: a Bubble Tea dashboard over an
// control.Control, run on the local terminal (Run) or, one Model per session, served to SSH clients
// by package ui/ssh (NewModel).
//
// Data flow: the console pulls control.Control.Snapshot on a tea.Tick at
// Options.Refresh and re-arms the tick; the engine never pushes messages. Every call
// into the engine runs in a tea.Cmd, never in Update.
//
// This package is the frame: the Model (focus, tabs, filter, command line, help
// overlay, dialogs), its view and the program runner. The tabs are in package
// panes, the ":" commands in package commands, and what both are made of (the
// Pane interface, the shared context, keys, table drawing) in package pane.
package ui

import (
	"io"
	"time"

	"github.com/crawlconsole/crawlconsole/themes"
)

// Options configure one console. The zero value is usable: withDefaults fills in
// every default in this one place.
type Options struct {
	// Theme names the colour theme: dark (default), light, high-contrast, mono.
	// NO_COLOR in the environment drops colour whatever the theme.
	Theme string
	// Mouse turns on mouse reporting (wheel scrolls, click selects a tab or row).
	// Off by default so the terminal's own text selection keeps working.
	Mouse bool
	// Refresh is how often the console pulls a snapshot; default 250ms.
	Refresh time.Duration
	// ReadOnly makes the console a viewer: every control answers "read-only
	// session" and changes nothing. View-only keys (panes, filter, freeze) work.
	ReadOnly bool
	// Title is the header title; default "crawlconsole".
	Title string
	// Clock gives the time for uptime and countdowns; default time.Now. Tests fix it.
	Clock func() time.Time
	// LogLines caps the events the Log pane keeps; default 1000.
	LogLines int
	// Detached says quitting the console leaves the crawl running (SSH sessions), so
	// q needs no confirmation. When false, q asks first if a crawl is running,
	// because the CLI stops the engine when Run returns.
	Detached bool
	// Input is where Run reads keys; default os.Stdin. NewModel ignores it.
	Input io.Reader
	// Output is where Run draws; default os.Stdout. NewModel ignores it.
	Output io.Writer
}

// DefaultRefresh is the snapshot pull interval when Options.Refresh is zero.
const DefaultRefresh = 250 * time.Millisecond

// DefaultLogLines is the Log pane's capacity when Options.LogLines is zero.
const DefaultLogLines = 1000

func (o Options) withDefaults() Options {
	if o.Theme == "" {
		o.Theme = themes.Default
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultRefresh
	}
	if o.Title == "" {
		o.Title = "crawlconsole"
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.LogLines <= 0 {
		o.LogLines = DefaultLogLines
	}
	return o
}
