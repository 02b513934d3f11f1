package frontier

// Task is one URL waiting in, or moving through, the frontier. It carries what M1 needs to
// place it in a lane (Host, ParentHash) and what M3 needs to account for it (Class, Site,
// Keyword).
type Task struct {
	Seq        int64  // store row id; orders the queue and survives restarts
	URL        string // normalized (see Normalize); the dedupe and store key
	Host       string // host of URL, lower-case ASCII, no port: M1's "same host" test
	ParentHash uint64 // Hash of the URL of the page this link was found on; 0 for seeds (M1)
	Depth      int    // links followed from a seed; seeds are 0 (Scope.MaxDepth)
	Class      string // page class for revisit windows: "soc", "web_com", "web_net", ... (M2)
	Site       string // site the task belongs to, for M3 assignment and cost tables
	Keyword    string // search keyword that produced it, for social sites (M3); else ""
	Attempts   int    // fetch attempts so far, for retry backoff
}

// Hash returns the task's own URL hash: the ParentHash its outgoing links will carry.
func (t Task) Hash() uint64 { return Hash(t.URL) }

// State is where a task stands in its life. The store persists it, so a restart knows
// what was done; M4's three frontier states plus the two ways a task can stop early.
type State int

// The task states, in the order a task normally passes through them. The numeric values
// are persisted: append new states, never renumber.
const (
	Unprocessed State = iota // queued, not yet handed to a lane
	InProgress               // handed to a lane; back to Unprocessed after a crash
	Processed                // fetched and stored (or found not to be a page)
	Failed                   // gave up: a permanent error or retries exhausted
	Deferred                 // set aside this round (M3 host_disable_list), never lost
)

var stateNames = [...]string{"unprocessed", "in_progress", "processed", "failed", "deferred"}

// String names the state as the store and the console show it.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return "unknown"
	}
	return stateNames[s]
}

// ParseState is the inverse of State.String.
func ParseState(name string) (State, bool) {
	for i, n := range stateNames {
		if n == name {
			return State(i), true
		}
	}
	return 0, false
}
