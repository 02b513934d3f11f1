package lanes

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/internal/noanswer"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/robots"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// process fetches one task on its lane and hands the outcome to the front. ended is
// false when the task did not end here: moved to another egress or deferred (M3),
// or left queued because the crawl is stopping. swapped: it was not sent, as an
// operator's task took its place; the lane takes that one without a pause.
func (r *Runner) process(s *Slot, link *route.Link, t frontier.Task) (ended, swapped bool) {
	l := s.Lane
	if r.Pool != nil && !r.Pool.Rotation().Serves(link.Name, t.Host) {
		// M3: this egress was banned for the host (or is cooling down) since the
		// task was queued here: move it to one that may serve it.
		r.Mu.Lock()
		r.Relocate(t)
		r.Mu.Unlock()
		r.Front.Flush()
		return false, false
	}
	if err := r.leaseHeld(r.Ctx, t.Lease); err != nil {
		r.dropLost(l.ID, t)
		return false, false
	}
	o := Outcome{Task: t, Lane: l.ID, Egress: link.Name}
	r.Record.Prepare(&o) // M2: is it a refetch, and with which validators
	// A kind set by the front ends the task unsent (a canonical URL a fetched page
	// stands for).
	if o.Kind != "" {
		r.Record.Deliver(o)
		return true, false
	}
	t = o.Task
	u, err := parseTaskURL(t.URL)
	if err != nil {
		o.Kind = frontier.KindMalformed
		r.Record.Deliver(o)
		return true, false
	}
	var rules *robots.Rules
	if r.Opts.EtiquetteFor(t.Host).Robots {
		var be *fetch.BlockedError
		var err error
		rules, be, err = r.robotsFor(link, t.URL, u)
		if pf, ok := errors.AsType[*proxyFault](err); ok {
			r.reroute(link, t, pf.v, pf.d) // the task was not begun: nothing to undo
			return false, false
		}
		if errors.Is(err, errHostHeld) { // not begun: nothing to undo
			return false, r.heldInHand(s, t, false, t.Host)
		}
		if hh, ok := errors.AsType[*heldHop](err); ok {
			return false, r.heldInHand(s, t, false, hh.host)
		}
		if err != nil { // stopping: leave the URL queued
			return false, false
		}
		if be != nil {
			// The SSRF guard refused the site's own address: robots.txt was never
			// asked for, and the page would be refused the same way. The URL fails
			// as the page would (ssrf_blocked), not as a site that is down: deferred
			// and tried again, it would never get anywhere under this policy.
			r.warnRefused(be, t.URL)
			o.Kind = fetch.KindBlocked
			r.Record.Deliver(o)
			return true, false
		}
		if rules.Unreachable {
			if _, final, ok := noanswer.NameFailure(rules.Err, u.Hostname()); ok && r.dnsGivesUp(final, originOf(t.URL, u)) {
				// The site's name does not resolve: its pages would fail the same
				// way, so the URL fails as dns (counted, the crawl goes on to its
				// end) instead of waiting for a robots.txt that cannot come.
				o.Kind = fetch.KindDNS
				r.Record.Deliver(o)
				return true, false
			}
		}
		if rules.Unreachable && !t.Refetch {
			// RFC 9309 §2.3.1.4: an unreachable robots.txt (429, 5xx, no answer)
			// disallows everything, for now. The site's URLs wait (deferred, never
			// dropped) until robots.txt is tried again, with backoff. The URL is
			// counted under robots_unreachable as it is written deferred, once while
			// it waits (Counters.Deferral).
			until := r.Robots.Expires(u.Scheme + "://" + u.Host)
			if !until.After(r.now()) {
				until = r.now().Add(r.Robots.RetryAfter(1))
			}
			r.Mu.Lock()
			r.Front.DeferAs(t, until, fetch.KindRobotsDown)
			r.Mu.Unlock()
			r.Front.Flush()
			return true, false
		}
		if !rules.Allowed(u.RequestURI()) {
			o.Kind = fetch.KindRobots
			if rules.Unreachable {
				o.Kind = fetch.KindRobotsDown
			}
			r.Record.Deliver(o)
			return true, false
		}
	}
	r.Record.Begin(t, l.ID)
	res, hops, kind, moved := r.fetchWithRetry(s, link, t, conditionalHeaders(t))
	if kind == kindSwapped { // the operator's task goes before this one
		return false, true
	}
	if kind == kindLeaseLost {
		r.dropLost(l.ID, t)
		return false, false
	}
	r.Mu.Lock()
	s.FetchEnd = r.now()
	r.Mu.Unlock()
	if moved {
		return false, false // M3 rerouted or deferred the task
	}
	if kind == fetch.KindCanceled || r.Ctx.Err() != nil {
		r.Record.Abandon(t, l.ID) // resumes next run
		return false, false
	}
	o.Res, o.Hops, o.Kind, o.At = res, hops, kind, s.FetchEnd
	if res != nil {
		r.Front.Cost(res.Duration)
	}
	if o.Kind == fetch.KindRefused && r.Pool == nil {
		if ra := egress.ParseRetryAfter(res.Header.Get("Retry-After"), r.now()); ra > r.Opts.Fetch.RefusalBackoff {
			// The server asks for a longer wait than the lane's back-off: the host's
			// URLs wait (deferred, never dropped, capped at fetch.max_retry_after)
			// instead of the lane sleeping on them; the lane goes on with other work.
			r.Front.Response(res.Status) // a response handled here, not delivered
			r.Front.Refusal()
			r.deferForRetryAfter(l.ID, t, res.Status, ra)
			return false, false
		}
	}
	if o.Kind == "" {
		// A page to render is delivered when its render ends, beside the lane's
		// next fetches (the task stays in hand until then); one whose render
		// decides how its section's next pages are read is awaited.
		render, learn := r.renderPlan(link, res)
		switch {
		case render == nil:
		case learn:
			o.Kind = r.finishRender(s, link, t, rules, res, render)
		case r.renderLater(s, link, t, u, rules, o, render):
			s.HandedOff = true
			return true, false
		default: // stopping: the render ends at once, and the page is kept as fetched
			o.Kind = r.finishRender(s, link, t, rules, res, render)
		}
	}
	r.attachRobotsSitemaps(u, rules, res) // the front queues them
	r.Record.Deliver(o)
	if o.Kind == fetch.KindRefused && r.Pool == nil {
		wait := r.Opts.Fetch.RefusalBackoff // a Retry-After above it deferred the URL
		r.Front.Logf(view.LevelWarn, l.ID, t.Host, "refused (%d) %s; lane backs off %v", res.Status, t.URL, wait)
		r.Mu.Lock()
		s.Status, s.NextFetch = view.LaneWaiting, r.now().Add(wait)
		r.Mu.Unlock()
		r.sleep(wait)
	}
	return true, false
}

// kindSwapped is fetchWithRetry's answer when the lane traded its task for an
// operator's before sending it (never recorded: the task is back in the queue).
const kindSwapped = "swapped"

// LeaseCut begins the warning of a request cut at the end of the worker's lease
// (M4), the URL after it: its answer may have come already, and the request asked
// again is then answered twice.
const LeaseCut = "request cut at the end of the worker's lease:"

// kindLeaseLost is fetchWithRetry's answer when the worker's lease on the task's
// host was lost before the request left (never recorded: the master gave the task to
// another worker, or queued it again).
const kindLeaseLost = "lease_lost"

// dropLost lets go of a task whose hand-out the worker lost (M4: paused past its
// lease, the master gave its host to another worker): nothing was sent. When the
// lease wait ended for the crawl stopping, nothing is said.
func (r *Runner) dropLost(lane int, t frontier.Task) {
	if r.Ctx.Err() != nil {
		return
	}
	r.Front.Logf(view.LevelDebug, lane, t.Host, "%s dropped unfetched: the master gave its host to another worker while this one could not hear it", t.URL)
}

// Defaults of the caps on server hints, for options built without them.
const (
	defaultMaxRetryAfter = time.Hour
	defaultMaxCrawlDelay = time.Minute
)

// maxRetryAfter is fetch.max_retry_after: the longest a Retry-After defers a host.
func (r *Runner) maxRetryAfter() time.Duration {
	if d := r.Opts.Fetch.MaxRetryAfter; d > 0 {
		return d
	}
	return defaultMaxRetryAfter
}

// maxCrawlDelay is fetch.max_crawl_delay: the largest robots.txt Crawl-delay obeyed.
func (r *Runner) maxCrawlDelay() time.Duration {
	if d := r.Opts.Fetch.MaxCrawlDelay; d > 0 {
		return d
	}
	return defaultMaxCrawlDelay
}

// deferForRetryAfter sets a refused task, and its host's other tasks on the board,
// aside for the server's Retry-After, capped at fetch.max_retry_after, and says so.
// The front requeues them when due.
func (r *Runner) deferForRetryAfter(lane int, t frontier.Task, status int, retryAfter time.Duration) {
	wait := min(retryAfter, r.maxRetryAfter())
	capped := ""
	if wait < retryAfter {
		capped = fmt.Sprintf(" (Retry-After %v capped at fetch.max_retry_after)", retryAfter)
	}
	until := r.now().Add(wait)
	r.Mu.Lock()
	r.Front.Defer(t, until)
	others := r.Front.OffBoard(r.Board.DropHost(t.Host))
	for _, m := range others {
		r.Front.Defer(m, until)
	}
	r.Mu.Unlock()
	r.Front.Flush()
	r.Front.Logf(view.LevelWarn, lane, t.Host, "refused (%d) %s; host %s asks to wait %v%s: %d URLs deferred until %s",
		status, t.URL, t.Host, wait, capped, 1+len(others), until.Format(time.RFC3339))
}

// conditionalHeaders asks for a stored page only if it changed since (M2):
// If-None-Match with its ETag, else If-Modified-Since. The validators travel with the
// task (the front set them, with conditional GET on).
func conditionalHeaders(t frontier.Task) http.Header {
	switch {
	case !t.Refetch:
		return nil
	case t.ETag != "":
		return http.Header{"If-None-Match": {t.ETag}}
	case t.LastModified != "":
		return http.Header{"If-Modified-Since": {t.LastModified}}
	}
	return nil
}

// parseTaskURL is url.Parse(raw), reading a URL in the frontier's plain canonical
// form (almost every task's) without url.Parse's scan.
func parseTaskURL(raw string) (*url.URL, error) {
	u := new(url.URL)
	if frontier.ParseCanonical(raw, u) {
		return u, nil
	}
	return url.Parse(raw)
}
