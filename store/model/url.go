package model

import (
	"fmt"
	"time"
)

// State is where a URL is in its life in the frontier (M4: unprocessed, in progress,
// processed; plus failed and deferred).
type State int

// The URL states, as stored in urls.state. The numbers are part of the file format.
const (
	Unprocessed State = 0 // queued, waiting for a lane
	InProgress  State = 1 // handed to a lane; Open puts these back to Unprocessed
	Processed   State = 2 // fetched and its page stored
	Failed      State = 3 // given up on; ErrKind says why
	Deferred    State = 4 // set aside until DeferredUntil (M3: disabled host)
)

var stateNames = [...]string{"unprocessed", "in_progress", "processed", "failed", "deferred"}

// String returns the state's lower_snake name, as used in Stats.
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// URL is one frontier task: a URL with where it was found and how far it got.
type URL struct {
	Seq           int64  // assigned by the store on insert; monotonic discovery order
	URL           string // normalised URL; unique in the store
	Host          string
	ParentHash    uint64 // M1: hash of the URL of the page it was found on (0 for seeds)
	Depth         int
	Class         string // M2/M3 page class: soc, web_com, web_net, web_edu, web_gov
	Site          string // M3: the site it belongs to
	Keyword       string // M3: the keyword a social-site search was made for
	State         State
	Lane          int // M1: the lane number it was given
	Attempts      int // bumped every time it goes InProgress
	ErrKind       string
	DeferredUntil time.Time // meaningful when State == Deferred
	DiscoveredAt  time.Time // set by the store on insert
	UpdatedAt     time.Time // set by the store on every change
}
