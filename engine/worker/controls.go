package worker

import (
	"fmt"
	"strconv"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
)

// Controls are the operator's controls of the lanes a worker runs, as the console
// calls them on one box (the engine's Control methods of the same names): the
// master passes them on over the wire.
type Controls interface {
	PauseLane(id int, paused bool) error
	RotateLane(id int) (string, error)
	PauseHost(host string, paused bool) error
	SetHostDisabled(host string, disabled bool) error
	RemoveEgress(name string) error
	SetMaxLanes(n int) error
	FlushDNS(domain string) (int, error)
}

// control carries out on the lanes a control the master passed on (wire.OpPauseLane,
// OpRotateLane, OpPauseHost, OpDisableHost, OpRemoveEgress, OpSetLanes,
// OpFlushDNS); result is the reply's Result.
func control(l Controls, c *wire.Control) (result string, err error) {
	switch c.Op {
	case wire.OpPauseLane:
		err = l.PauseLane(c.Lane, c.Paused)
	case wire.OpRotateLane:
		result, err = l.RotateLane(c.Lane)
	case wire.OpPauseHost:
		err = l.PauseHost(c.Host, c.Paused)
	case wire.OpDisableHost:
		err = l.SetHostDisabled(c.Host, c.Paused)
	case wire.OpRemoveEgress:
		err = l.RemoveEgress(c.Host)
	case wire.OpSetLanes:
		err = l.SetMaxLanes(c.N)
	case wire.OpFlushDNS:
		var n int
		n, err = l.FlushDNS(c.Domain)
		result = strconv.Itoa(n)
	default:
		err = fmt.Errorf("unknown control %q: this worker may be older than its master (run the same crawlconsole version on both)", c.Op)
	}
	return result, err
}
