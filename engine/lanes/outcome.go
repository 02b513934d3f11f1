package lanes

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Outcome is how one task ended on a lane: plain data, all that a worker sends back
// to the master for it (M4). The front records it.
type Outcome struct {
	Task   frontier.Task
	Lane   int
	Egress string        // name of the egress the request left from
	Node   string        // worker that fetched it (M4); "" in one process
	Kind   string        // error kind (fetch.Kind*, refused, robots, ...); "" = a response to record by its status
	Res    *fetch.Result // the response, if one came
	At     time.Time     // when the response ended
	// Hops are the responses received before a fetch failed with no Result
	// (fetch.Error.Exchanges; Res nil): the redirects answered, and a final response
	// whose body failed mid-read, cut. Stored for the WARC export, nothing else.
	Hops []fetch.Exchange

	// Note is the front's own note on the task from Prepare to Deliver (one box:
	// the page's stored revisit state, read once); the lanes never read it, and it
	// never goes on the wire.
	Note any
}
