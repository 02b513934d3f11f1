package engine

import (
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// hostGap is the current gap of a host and why, for the Lanes and Groups panes.
func (e *Engine) hostGap(host string) (time.Duration, lanes.Reason) {
	if e.gate == nil || host == "" {
		return 0, ""
	}
	return e.gate.Gap(host)
}

// laneGapHost is the host whose gap a lane's row shows: the one it fetches (or
// fetched last), else the first it holds.
func laneGapHost(l view.Lane) string {
	if l.Current != "" {
		if u, err := url.Parse(l.Current); err == nil && u.Hostname() != "" {
			return u.Hostname()
		}
	}
	if len(l.Hosts) > 0 {
		return l.Hosts[0]
	}
	return ""
}
