package worker

import "github.com/nats-io/nats.go/jetstream"

// A master answers a rejoin and deals the worker its first batch at once, and the
// worker's consumer of its last life is still running: the batch can reach the
// lanes before the worker has applied the reply. The reply carries the master's
// holds (the hosts paused and disabled, the pauses, lanes.max); placed before them,
// a batch meets the holds of the last life instead, and a host the operator
// enabled while the worker was away defers its URLs back to the master until the
// old disable's end, for hand-outs the master counts as after the enable (it keeps
// them deferred). So the batches that come during a rejoin wait, unacknowledged,
// until its reply is applied (or its request failed), and are placed then.

// parkTasks makes the task batches that come from now on wait (park) until
// placeParked.
func (n *Node) parkTasks() {
	n.mu.Lock()
	n.rejoining = true
	n.mu.Unlock()
}

// park keeps msg for placeParked while a rejoin is under way; false: none is.
func (n *Node) park(msg jetstream.Msg) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.rejoining {
		n.parked = append(n.parked, msg)
	}
	return n.rejoining
}

// placeParked ends the wait parkTasks began and places the batches that came
// meanwhile, in their order.
func (n *Node) placeParked() {
	n.mu.Lock()
	n.rejoining = false
	parked := n.parked
	n.parked = nil
	n.mu.Unlock()
	for _, msg := range parked {
		n.onTasks(msg)
	}
}
