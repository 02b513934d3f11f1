package lanes

import (
	"context"
	"errors"
	"net/http"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// fetchWithRetry fetches through the politeness gate, retrying transient failures
// (timeouts, resets, 5xx) with exponential backoff; never client errors or refusals.
// With egress rotation (M3) every outcome is classified first: a site ban or a proxy
// fault reroutes the task to another egress or defers its host (moved=true).
//
// While an ordinary task waits at the gate for its first attempt, an operator's task
// joining the lane takes its place: the answer is kindSwapped, with the
// task already back in the lane's queue (and marked unprocessed again), or dropped
// when it was withdrawn meanwhile.
//
// hops are the redirects answered on the way of a fetch that failed with no response
// (fetch.Error.Exchanges), for the archive; nil otherwise.
func (r *Runner) fetchWithRetry(s *Slot, link *route.Link, t frontier.Task, hdr http.Header) (res *fetch.Result, hops []fetch.Exchange, kind string, moved bool) {
	r.Mu.Lock()
	urgent := s.Urgent
	r.Mu.Unlock()
	egIdx := link.Index
	for attempt := 0; ; attempt++ {
		w := Wait{Urgent: urgent}
		if attempt == 0 && !urgent {
			w.Stop = s.Kick
		}
		tk, err := r.Gate.AcquireWith(r.Ctx, w, egIdx, t.Host, t.ParentHash)
		for err == ErrStopped { // an operator's task joined the lane
			r.Mu.Lock()
			swapped, dropped := r.Front.SwapForUrgent(s, t)
			r.Mu.Unlock()
			if swapped {
				if !dropped { // a withdrawn task's end is written by the front
					r.Record.Abandon(t, s.Lane.ID)
				}
				return nil, nil, kindSwapped, false
			}
			tk, err = r.Gate.AcquireWith(r.Ctx, w, egIdx, t.Host, t.ParentHash)
		}
		if err != nil {
			return nil, nil, fetch.KindCanceled, false
		}
		// The last moment before the request leaves: a worker paused past its
		// lease (stopped, cut off) waits for a renewal here, or drops the task
		// (M4); a host the operator disabled or paused while the task waited in
		// hand (at the gate, for the lease, between retries) holds the task too,
		// as it held those on the board.
		if err := r.mayLeave(r.Ctx, t.Host, t.Lease); err != nil {
			r.Gate.Release(tk)
			return r.notLeft(s, t, err)
		}
		var bound context.Context
		if r.LeaseBound != nil {
			bound = r.LeaseBound()
		}
		res, err := link.F.FetchWithin(bound, t.URL, hdr)
		if err != nil && bound != nil && bound.Err() != nil && r.Ctx.Err() == nil {
			// Cut at the lease's end: the host may be another worker's by now. The
			// lease's wait above says whether it is still this worker's to ask
			// again (renewed) or to drop (the master took it back). The host's
			// adaptive gap learns nothing from a cut it did not cause. The server
			// may have answered already (a process starved of CPU reads the answer
			// after its lease ran out), so asked again the URL can be answered
			// twice: the warning names it, the fault path's cost.
			r.Gate.Finish(tk, Response{})
			r.Front.Logf(view.LevelWarn, s.Lane.ID, t.Host, "%s %s (no heartbeat answer renewed the lease in time; asked again once renewed, dropped if the master gave the host to another worker)", LeaseCut, t.URL)
			attempt--
			continue
		}
		if _, held := errors.AsType[*fetch.HeldError](err); held {
			// The transport did not send an attempt (net/http's own resend on a new
			// connection, a redirect's hop) to a host held meanwhile: the task waits
			// for the hold's end like one mayLeave kept. The gap learns nothing.
			r.Gate.Finish(tk, Response{})
			return r.notLeft(s, t, errHostHeld)
		}
		r.Gate.Finish(tk, ResponseOf(res, err)) // the host's adaptive gap learns from the answer
		var v egress.Verdict
		if fetch.Kind(err) != fetch.KindCanceled {
			res, err, v = r.judged(link, egIdx, t, hdr, res, err) // one classifier, both routes
			// The refetch confirming a refusal did not leave (mayLeave).
			if errors.Is(err, errHostHeld) || errors.Is(err, errLeaseLost) {
				return r.notLeft(s, t, err)
			}
		}
		if v.Class == egress.SiteBan && v.OneURL { // one URL's soft refusal punishes nobody
			if r.oneURLRefusal(link, t, res, v) {
				return nil, nil, "", true
			}
			return res, nil, fetch.KindRefused, false
		}
		if r.Pool == nil && v.Class == egress.SiteBan && !v.Unavailable {
			r.punished(link, t, res, v, "lane backs off")
			return res, nil, fetch.KindRefused, false
		}
		if r.Pool != nil && fetch.Kind(err) != fetch.KindCanceled {
			d := r.Pool.Report(link.Name, t.Host, v)
			// The stats' "refused" counts 403/429/ban pages. A 503 with Retry-After also
			// rotates (the classifier counts it as a site ban) but is an overloaded or broken
			// server as far as the operator's figures go.
			unavailable := v.Unavailable
			if v.Class == egress.SiteBan {
				r.punished(link, t, res, v, route.RotationAction(link.Name, d))
			}
			if v.Class == egress.SiteBan && !unavailable {
				r.Front.Refusal()
			}
			moving := d.Action == egress.DeferHost || (d.Action == egress.Retry && t.Attempts < maxReroutes)
			if moving && res != nil {
				r.Front.Response(res.Status) // process counts the responses it handles
			}
			if moving {
				t.Attempts++
				if d.Action == egress.Retry {
					// Back on the board for another egress: unprocessed in the store
					// until a lane begins it again, so that a stop meanwhile leaves
					// it queued, not in progress as a crashed run would.
					r.Record.Abandon(t, s.Lane.ID)
				}
				r.reroute(link, t, v, d)
				return nil, nil, "", true
			}
			if d.Action == egress.Retry { // refused on several egresses: it is this page, not us
				if unavailable {
					return res, nil, fetch.KindHTTP5xx, false
				}
				return res, nil, fetch.KindRefused, false
			}
		}
		kind := fetch.Kind(err)
		if be, ok := errors.AsType[*fetch.BlockedError](err); ok {
			r.warnRefused(be, t.URL)
		}
		if kind == "" && res.Status/100 == 5 {
			kind = fetch.KindHTTP5xx
		}
		if kind == "" || !fetch.Transient(kind) || fetch.NameNotFound(err) || attempt >= r.Opts.Fetch.Retries {
			if kind == fetch.KindHTTP5xx {
				kind = "" // a 5xx page is still a response: the front records it
			}
			if res == nil {
				// Failed with no response, but maybe after redirects that were
				// answered: they go to the archive all the same.
				hops = fetch.FailedExchanges(err)
			}
			return res, hops, kind, false
		}
		backoff := r.Opts.Fetch.RetryBackoff << attempt
		r.Front.Logf(view.LevelInfo, 0, t.Host, "%s on %s, retry %d in %v", kind, t.URL, attempt+1, backoff)
		if !r.sleep(backoff) {
			return nil, nil, fetch.KindCanceled, false
		}
	}
}

// deferDisabled defers t when host (t's, or the one its robots.txt redirects to)
// is on the host_disable_list now, and says whether it did. Mu not held. The list
// is read under Mu, where an enable takes the host's deferrals back (Deferrals.
// TakeHost): a task deferred as the host is enabled is among them, not left to
// wait out the disable.
func (r *Runner) deferDisabled(t frontier.Task, host string) bool {
	if r.Pool == nil {
		return false
	}
	r.Mu.Lock()
	until, off := r.Pool.Rotation().DisabledUntil(host)
	if !off {
		r.Mu.Unlock()
		return false
	}
	if host != t.Host {
		// A site behind host comes back as host is enabled, and at robots.txt's
		// first retry at the latest: a disable may last long past its robots.txt's
		// next answer (it may stop redirecting).
		if retry := r.now().Add(r.Robots.RetryAfter(1)); retry.Before(until) {
			until = retry
		}
		r.Front.DeferBehind(t, until, host)
	} else {
		r.Front.Defer(t, until)
	}
	r.Mu.Unlock()
	r.Front.Flush()
	return true
}

// asidePaused gives t back to its lane's queue when the operator paused its host
// while it waited in hand, and says whether it did. Mu not held.
func (r *Runner) asidePaused(s *Slot, t frontier.Task) bool {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	return r.HostPaused(t.Host) && r.Front.SetAsideInHand(s, t)
}

// maxReroutes is how many times one task moves to another egress after a refusal
// before it counts as failed: a page that refuses every client (a broken page
// answering 503 with Retry-After, say) must not walk its host off every egress.
const maxReroutes = 2

// isFetchError reports whether err is a *fetch.Error (a response came back).
func isFetchError(err error) bool {
	_, ok := errors.AsType[*fetch.Error](err)
	return ok
}

// ResponseOf is what the gate learns from one fetch: the status, whether the
// server named its own wait (Retry-After), whether it timed out, and how long it
// took.
func ResponseOf(res *fetch.Result, err error) Response {
	var r Response
	if fetch.Kind(err) == fetch.KindTimeout {
		r.Timeout = true
	}
	if res != nil && (err == nil || isFetchError(err)) {
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
		return Response{}
	}
	return r
}
