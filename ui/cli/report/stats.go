package report

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// Stats implements `crawlconsole stats --db PATH [--json]`: what a crawl store holds.
func Stats(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite store `PATH` to read")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	var hr hostsReport
	hr.flags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: crawlconsole stats --db PATH [--json] [--hosts [--by site] [--sort FIGURE] [--filter TEXT] [--top N]]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := clikit.Parse(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return clikit.ExitUsage
	}
	if *db == "" {
		return clikit.Usage(stderr, "stats", "--db PATH is required")
	}
	if _, err := os.Stat(*db); err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: --db %s: no such store\n", *db)
		return clikit.ExitUsage
	}
	st, err := openForReading(*db)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: %v\n", err)
		return 1
	}
	defer st.Close()
	if hr.on {
		return hr.run(st, *asJSON, stdout, stderr)
	}
	s, err := st.Stats()
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: %v\n", err)
		return 1
	}
	s.SeparateSkips(front.IsSkip)
	nodes, err := readNodes(st)
	if err != nil {
		// The rest of the report stands; only the node table is left out.
		fmt.Fprintf(stderr, "crawlconsole stats: %s: %v; nodes left out\n", clusterNodesKey, err)
	}
	failure := readStoreFailure(st)
	if *asJSON {
		return clikit.WriteJSON(stdout, statsReport{Stats: s, Nodes: nodes, StoreFailure: failure})
	}
	if failure != nil {
		fmt.Fprintf(stdout, "STORE FAILED at %s: %s\n  the crawl stopped there; free disk space, then resume with --db %s\n",
			failure.At.UTC().Format(time.RFC3339), failure.Error, *db)
	}
	if err := s.WriteText(stdout); err != nil {
		return 1
	}
	if err := writeNodesText(stdout, nodes); err != nil {
		return 1
	}
	return 0
}

// clusterNodesKey is where the master of a distributed crawl (M4) keeps its node
// table in the store's meta table: a JSON array of clusterNode.
const clusterNodesKey = "cluster.nodes.v1"

// clusterNode is one worker as the master persists it (M4).
type clusterNode struct {
	Name string `json:"name"`
	nodeStats
}

// nodeStats is one worker in the report: `stats --json` keys them by name.
type nodeStats struct {
	// State is active, paused, leaving, dead or left (view.NodeState), or
	// awaited: a worker the master's last run knew live that has not rejoined
	// this run yet, while its grace period waits for it (no heartbeat or join
	// this run: both are zero).
	State     string    `json:"state"`
	Heartbeat time.Time `json:"heartbeat"` // its last heartbeat, master's clock (RFC 3339)
	Joined    time.Time `json:"joined"`    // when it (last) joined
	Hosts     int64     `json:"hosts"`     // hosts it held
	Results   int64     `json:"results"`   // its results the master committed
	Late      int64     `json:"late"`      // its results dropped as already committed
}

// statsReport is what `stats --json` prints: the store's figures and, for a
// distributed crawl, its workers (omitted on a single-process crawl).
type statsReport struct {
	store.Stats
	Nodes map[string]nodeStats `json:"nodes,omitempty"`
	// StoreFailure is the store failure that stopped the last crawl, when
	// it could be recorded; no later crawl has resumed since.
	StoreFailure *front.StoreFailure `json:"store_failure,omitempty"`
}

// readStoreFailure is the failure the last crawl left in the store, if any.
func readStoreFailure(st *store.Store) *front.StoreFailure {
	b, err := st.GetMeta(front.StoreFailureMeta)
	if err != nil || len(b) == 0 {
		return nil
	}
	var f front.StoreFailure
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}

// readNodes reads the master's node table; nil when the crawl never had workers.
func readNodes(st *store.Store) (map[string]nodeStats, error) {
	b, err := st.GetMeta(clusterNodesKey)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []clusterNode
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]nodeStats, len(rows))
	for _, r := range rows {
		if r.Name == "" {
			return nil, errors.New("a node without a name")
		}
		out[r.Name] = r.nodeStats
	}
	return out, nil
}

// writeNodesText prints one line per worker, by name, under the store's table.
func writeNodesText(w io.Writer, nodes map[string]nodeStats) error {
	if len(nodes) == 0 {
		return nil
	}
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "nodes\t%d\n", len(nodes))
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[name]
		fmt.Fprintf(tw, "  %s\t%s\theartbeat %s\tjoined %s\t%s\t%s\t%d late\n",
			name, n.State, stamp(n.Heartbeat), stamp(n.Joined), plural.Count(n.Hosts, "host"), plural.Count(n.Results, "result"), n.Late)
	}
	return tw.Flush()
}
