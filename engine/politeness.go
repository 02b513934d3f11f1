package engine

import (
	"errors"
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// Pacer is a pluggable pacing policy for Options.Pacer (lanes.Pacer).
type Pacer = lanes.Pacer

// PacerResponse is what a Pacer learns from one answer (lanes.Response).
type PacerResponse = lanes.Response

// gateAdaptive is the politeness options as the gate takes them.
func gateAdaptive(p PolitenessOptions) lanes.Adaptive {
	return lanes.Adaptive{DelayFactor: p.DelayFactor, MaxDelay: p.MaxDelay, BackoffMin: p.BackoffMin, BackoffMax: p.BackoffMax, ForgiveAfter: p.ForgiveAfter}
}

// hostInterval is the aggregate floor of the gap between two requests to one host
// over all egresses: 1/host_rate, raised by robots.txt Crawl-delay (the
// aggregate gap across egresses), and which of the two it is.
func (e *Engine) hostInterval(host string) (time.Duration, lanes.Reason) {
	var iv time.Duration
	if e.opts.HostRate > 0 {
		iv = time.Duration(float64(time.Second) / e.opts.HostRate)
	}
	e.mu.Lock()
	cd := e.crawlDelay[host]
	e.mu.Unlock()
	if cd > iv {
		return cd, lanes.ReasonCrawlDelay
	}
	if iv > 0 {
		return iv, lanes.ReasonDelay
	}
	return 0, ""
}

// gateResponse is what the gate learns from one fetch: the status, whether the
// server named its own wait (Retry-After), whether it timed out, and how long it
// took.
func gateResponse(res *fetch.Result, err error) lanes.Response {
	var r lanes.Response
	if fetch.Kind(err) == fetch.KindTimeout {
		r.Timeout = true
	}
	var fe *fetch.Error
	if res != nil && (err == nil || errors.As(err, &fe)) {
		r.Status = res.Status
		if res.Header != nil {
			r.RetryAfter = res.Header.Get("Retry-After") != ""
		}
		// The response time on the real clock (Options.Now may be a test's, and
		// jump), unless the fetch paused inside for a same-host redirect hop.
		r.Latency = res.Duration
		if len(res.Exchanges) > 1 || r.Latency <= 0 {
			r.Latency = -1
		}
	}
	if r.Status == 0 && !r.Timeout {
		return lanes.Response{}
	}
	return r
}

// hostGap is the current gap of a host and why, for the Lanes and Groups panes.
func (e *Engine) hostGap(host string) (time.Duration, lanes.Reason) {
	if e.gate == nil || host == "" {
		return 0, ""
	}
	return e.gate.Gap(host)
}

// laneGapHost is the host whose gap a lane's row shows: the one it fetches (or
// fetched last), else the first it holds.
func laneGapHost(l Lane) string {
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
