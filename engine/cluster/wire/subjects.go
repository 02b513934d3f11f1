package wire

import (
	"fmt"
	"strings"
)

// Subjects names the subjects and streams of one crawl: its value is the prefix
// (config.DefaultClusterPrefix unless the operator chose another).
type Subjects string

func (p Subjects) join(parts ...string) string {
	return string(p) + "." + strings.Join(parts, ".")
}

// Join is the subject of a worker's join request.
func (p Subjects) Join() string { return p.join("join") }

// Heartbeat is the subject of node's heartbeats; "*" for every node's.
func (p Subjects) Heartbeat(node string) string { return p.join("hb", node) }

// Leave is the subject of a worker's leave requests.
func (p Subjects) Leave() string { return p.join("leave") }

// Tasks is the subject of node's task batches; ">" for every node's.
func (p Subjects) Tasks(node string) string { return p.join("task", node) }

// Results is the subject of node's result frames; ">" for every node's results and
// deferrals.
func (p Subjects) Results(node string) string { return p.join("result", node) }

// Deferrals is the subject of node's deferrals, inside the results' stream (so they
// keep their place among the node's results).
func (p Subjects) Deferrals(node string) string { return p.join("result", node, "defer") }

// IsDeferral tells whether subject is a node's deferrals subject, not its results'.
// A node name holds no dot (config.ValidNodeName), so the two never look alike.
func (p Subjects) IsDeferral(subject string) bool {
	rest, ok := strings.CutPrefix(subject, p.join("result", ""))
	if !ok {
		return false
	}
	node, kind, ok := strings.Cut(rest, ".")
	return ok && node != "" && kind == "defer"
}

// Control is the subject of the master's control requests to node.
func (p Subjects) Control(node string) string { return p.join("ctl", node) }

// Claim is the subject of a worker's claims on the master's egress account table.
func (p Subjects) Claim() string { return p.join("egress", "claim") }

// TaskStream is the JetStream stream of task batches (Tasks(">")).
func (p Subjects) TaskStream() string { return p.stream("TASK") }

// ResultStream is the JetStream stream of results and deferrals (Results(">")).
func (p Subjects) ResultStream() string { return p.stream("RESULT") }

// stream names a stream after the prefix, with what a stream name may not hold
// replaced by '_'.
func (p Subjects) stream(kind string) string {
	out := []byte(p)
	for i, c := range out {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			out[i] = '_'
		}
	}
	return fmt.Sprintf("%s_%sS", out, kind)
}
