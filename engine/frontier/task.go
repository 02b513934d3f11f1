// Package frontier holds what the crawl knows about URLs before they are fetched: the
// Task that carries a URL through the engine, the canonical form of a URL (Normalize,
// Resolve) and its stable 64-bit Hash, the scope rules that decide which links to follow
// (Scope), and M4's link dedupe (Dedupe).
//
// # Dedupe and the store
//
// Seed 002 filters links on the master with an in-memory LRU of recent URLs, then a
// bit-array (Bloom) filter. A Bloom filter has no false negatives but does have false
// positives: it can claim to have seen a URL it never saw. Dropping on its word would
// lose that URL for good, silently. So Dedupe.Check answers with three verdicts and the
// store's UNIQUE index on the URL is the final truth:
//
//   - New: certainly never seen. The engine inserts it.
//   - Maybe: the Bloom filter has it, the LRU does not. The engine inserts it with
//     INSERT OR IGNORE; the store reports whether a row was added. Added means it was a
//     false positive and the URL is queued like a New one; ignored means a duplicate.
//   - Recent: the LRU has it. It was recorded (and handed to the store) moments ago, so
//     the engine drops it without a store round trip. This is the only verdict that
//     drops a URL without the store.
//
// Recent is exact up to 64-bit hash collisions: the LRU keys on Hash, and two distinct
// URLs share one with probability about L/2^64 per check for an LRU of L entries (under
// 1e-6 over a billion checks with the default size); that is the one, bounded, way a new
// URL can be dropped. Maybe is where the false positives go: with the filter sized for
// the crawl they are at most the target rate (1% by default) of new URLs, and each costs
// one indexed store lookup, never a lost URL. The contract on the engine's side: every
// URL that Check answers New or Maybe for reaches the store.
package frontier

// Task is one URL waiting in, or moving through, the frontier. It carries what M1 needs to
// place it in a lane (Host, ParentHash) and what M3 needs to account for it (Class, Site,
// Keyword). Where it stands in its life (M4's three states, failed, deferred) is
// store.State: the store persists it and is its one definition.
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

	// Set by the frontier side when it hands the task to a lane, so that a lane needs
	// nothing from the store (M4: a worker has none).
	Refetch      bool   // a stored page fetched again (M2): its outcome replaces the page
	ETag         string // validators of the stored page, for a conditional refetch (M2)
	LastModified string
	Lease        uint64 // M4: which hand-out of the URL to a worker this is (0 in one process)
	// Hand: the lane that took the task holds its URL's revisit mark with this hold
	// (front.Marks.Taken; 0: the task is not the marked revisit), so that only its
	// release lets the mark go. It stays in this process.
	Hand uint64 `json:"-"`
	// Urgent asks the lane board for the head of its lane's queue (lanes.Board.AddFirst):
	// an entry or search URL the operator added while the crawl runs. It
	// travels to a worker with the task (M4), so the worker's board does the same.
	Urgent bool `json:",omitempty"`
	// Ahead asks for a place ahead of the lane's ordinary tasks, behind urgent ones
	// (lanes.Board.AddAhead): an article a feed or sitemap read has just listed as
	// new. It travels to a worker with the task, as Urgent does.
	Ahead bool `json:",omitempty"`
	// Stood: since it was queued, a page fetched named this URL as its
	// rel=canonical and is stored standing for it. The lane ends it unsent (a
	// master marks it so as it hands it to a worker, which has no such memory).
	Stood bool `json:",omitempty"`
	// Budgeted: the front counted the task against the page budgets as it placed it
	// or handed it to a worker, so a hand-back takes the count back. It stays in
	// this process.
	Budgeted bool `json:"-"`
}

// Hash returns the task's own URL hash: the ParentHash its outgoing links will carry.
func (t Task) Hash() uint64 { return Hash(t.URL) }
