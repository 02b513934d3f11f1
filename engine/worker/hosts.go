package worker

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The operator's host pauses and disables reach a worker two ways: as controls
// (pause_host, disable_host) while it is live, and as its join reply's list
// (wire.JoinReply.PausedHosts, DisabledHosts) when it joins or rejoins, for those
// sent while it was not live. The master numbers both (wire.Control.Seq,
// JoinReply.HostsSeq); a control the master sent after the join reply was taken can
// reach the worker before it, so the reply leaves alone a host a higher-numbered
// control set.

// hostKey is one host control's target: op (wire.OpPauseHost, OpDisableHost) on host.
type hostKey struct{ op, host string }

// hostMark is the state of a hostKey the master last set here, and its number.
type hostMark struct {
	seq uint64
	on  bool
}

// hostControl carries out a pause_host or disable_host unless a higher-numbered
// state of the same host was applied already, and records it.
func (n *Node) hostControl(c *wire.Control) (string, error) {
	n.hostsMu.Lock()
	defer n.hostsMu.Unlock()
	k := hostKey{c.Op, c.Host}
	if m, ok := n.hostMarks[k]; ok && c.Seq != 0 && c.Seq < m.seq {
		return "", nil
	}
	result, err := n.hostSet(k, c.Paused, c.For)
	if err == nil {
		n.hostMarks[k] = hostMark{seq: c.Seq, on: c.Paused}
	}
	return result, err
}

// hostSet holds or lets go a host as k says; a disable lasts d, what is left of
// the master's (0: the worker's rotation.disable_for), so that the host comes back
// on every worker when the master lets it go, and not before.
func (n *Node) hostSet(k hostKey, on bool, d time.Duration) (string, error) {
	if k.op == wire.OpDisableHost && on && d > 0 {
		return "", n.lanes.DisableHostFor(k.host, d)
	}
	return control(n.lanes, &wire.Control{Op: k.op, Host: k.host, Paused: on})
}

// joinHosts makes the join reply's paused and disabled hosts this worker's: it
// holds those listed (a disable for what is left of the master's, though it held
// it already: its own may have run out sooner) and lets go those the master had it
// hold that are no longer listed (let go while it was not live, ended, or a
// restarted master's baseline), except a host a control numbered above the list
// set since. A host the worker disabled by itself (a block page) is none of the
// master's and stays.
func (n *Node) joinHosts(reply *wire.JoinReply) {
	if reply.HostsSeq == 0 {
		return // a master that does not send them
	}
	n.hostsMu.Lock()
	defer n.hostsMu.Unlock()
	want := map[hostKey]bool{}
	for _, h := range reply.PausedHosts {
		want[hostKey{wire.OpPauseHost, h}] = true
	}
	for _, h := range reply.DisabledHosts {
		want[hostKey{wire.OpDisableHost, h}] = true
	}
	set := func(k hostKey, on bool) {
		if _, err := n.hostSet(k, on, reply.DisabledFor[k.host]); err != nil {
			n.lanes.Logf(view.LevelWarn, "%s %s from the master's join reply: %v", k.op, k.host, err)
			return
		}
		n.hostMarks[k] = hostMark{seq: reply.HostsSeq, on: on}
	}
	for k := range want {
		if m, ok := n.hostMarks[k]; ok && (m.seq > reply.HostsSeq || m.on && k.op == wire.OpPauseHost) {
			continue
		}
		set(k, true)
	}
	for k, m := range n.hostMarks {
		if m.on && !want[k] && m.seq <= reply.HostsSeq {
			set(k, false)
		}
	}
}
