package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// runLane is one lane's life (M1): take the next task, fetch it, pause a random
// human-like interval, repeat; retire when the lane runs dry and finds no work to
// take over.
func (e *Engine) runLane(ls *laneState) {
	defer e.wg.Done()
	l := ls.lane
	e.mu.Lock()
	egress := e.egress[l.Egress].Name // Egress is guarded by e.mu (rebalance moves lanes)
	e.mu.Unlock()
	if e.st != nil {
		e.st.LaneOpened(l.ID, egress, e.now())
	}
	e.logf(LevelDebug, l.ID, "", "lane %d opened on %s", l.ID, egress)
	// next is the earliest start of the lane's next request (M1's random pause);
	// floor is delay_min after the last response, the shortest pause the lane ever
	// draws: an operator's task (steering) waits only until then, and the gate still
	// holds the host's gap (never less than delay_min between adjacent requests on an
	// address).
	var next, floor time.Time
	for {
		t, link, ok := e.nextTask(ls)
		if !ok {
			return
		}
		e.mu.Lock()
		if ls.urgent && !e.opts.SteerBaseline {
			next = floor
		}
		e.mu.Unlock()
		if d := next.Sub(e.now()); d > 0 {
			// The lane ran dry and asked for work before its pause was over; it
			// took over tasks from a busy lane (lanes.Board.Next) or a task joined
			// it, and they wait out the pause like any other.
			e.mu.Lock()
			ls.status, ls.nextFetch = LaneWaiting, next
			e.mu.Unlock()
			swapped := e.pauseInHand(ls, t, next) // a stop ends it early; holdTask then lets the task go
			// The operator may have paused the crawl, this lane or the task's host
			// meanwhile (nextTask checked before the pause); a rebalance may have
			// moved the lane to another egress.
			e.mu.Lock()
			if swapped { // the operator's task goes first; it waits until floor only (above)
				e.releaseTask(t, false)
				e.mu.Unlock()
				continue
			}
			held := e.holdTask(ls, t)
			if held {
				link = e.egress[ls.lane.Egress]
				ls.status, ls.current, ls.nextFetch = LaneFetching, t.URL, time.Time{}
			}
			e.mu.Unlock()
			if !held {
				return
			}
		}
		ended, swapped := e.process(ls, link, t)
		e.mu.Lock()
		e.releaseTask(t, ended)
		e.checkIdle() // the last discovery task may have ended on a lane that goes on revisiting
		e.mu.Unlock()
		if swapped {
			continue // nothing was sent: the lane's pause is already served
		}
		// M1's random pause runs from the end of the response, not from the end of
		// parsing and storing it. A lane with nothing left asks for work at once: it
		// retires without waiting out a pause when there is none, and pauses above
		// before the tasks it took over (the gate still keeps the next adjacent
		// request on its address MinGap away).
		e.mu.Lock()
		dry := ls.lane.Backlog() == 0
		from := ls.fetchEnd
		if from.IsZero() {
			from = e.now()
		}
		next, floor = from.Add(e.delay()), from.Add(e.opts.Lanes.DelayMin)
		ls.status, ls.nextFetch = LaneWaiting, next
		e.mu.Unlock()
		if dry {
			continue
		}
		if !e.pause(ls, next, floor) {
			return
		}
	}
}

// pause waits out the lane's pause until next. An operator's task that joins the
// head of the lane's queue meanwhile (steering: Engine.addUrgent kicks the lane)
// cuts it short to floor: the lane takes that task next, and it goes as soon as
// delay_min and the gate's gaps allow rather than at the end of a random pause that
// was drawn for the lane's ordinary work. false: the engine is stopping.
func (e *Engine) pause(ls *laneState, next, floor time.Time) bool {
	if e.opts.SteerBaseline {
		return e.sleep(next.Sub(e.now()))
	}
	for {
		e.mu.Lock()
		if floor.Before(next) && e.board.UrgentAhead(ls.lane) { // one joined now, or before the pause began
			next = floor
			ls.nextFetch = next
		}
		e.mu.Unlock()
		d := next.Sub(e.now())
		if d <= 0 {
			return e.ctx.Err() == nil
		}
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
			return true
		case <-e.ctx.Done():
			tm.Stop()
			return false
		case <-ls.kick:
			tm.Stop()
		}
	}
}

// nextTask blocks while the crawl, the lane or the task's host is paused, then hands
// out the lane's next task and the egress it leaves from (a rebalance may move the
// lane between tasks). ok=false: the lane retired or the engine is stopping.
func (e *Engine) nextTask(ls *laneState) (frontier.Task, *route.Link, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if e.ctx.Err() != nil {
			return frontier.Task{}, nil, false
		}
		if e.paused || ls.lane.Paused() {
			ls.status, ls.nextFetch = LanePaused, time.Time{}
			if !e.waitWake() {
				return frontier.Task{}, nil, false
			}
			continue
		}
		t, ok, opened := e.board.Next(ls.lane)
		for _, l := range opened {
			e.startLane(l)
		}
		e.startRefill()
		if !ok {
			if ls.lane.Paused() {
				continue
			}
			delete(e.lanes, ls.lane.ID)
			e.checkIdle()
			id, done := ls.lane.ID, ls.lane.Done()
			e.mu.Unlock()
			if e.st != nil {
				e.st.LaneRetired(id, e.now(), done)
			}
			e.logf(LevelDebug, id, "", "lane %d retired", id)
			e.mu.Lock()
			return frontier.Task{}, nil, false
		}
		ls.urgent = ls.lane.TookUrgent()
		e.inHand++ // in hand from here, even while its host is paused: not idle
		if e.rv.queued[t.URL] {
			e.rv.onBoard--
			e.rv.inHand++
		}
		if !e.holdTask(ls, t) {
			return frontier.Task{}, nil, false
		}
		ls.status, ls.current, ls.nextFetch = LaneFetching, t.URL, time.Time{}
		return t, e.egress[ls.lane.Egress], true
	}
}

// pauseInHand waits until next with task t in hand, as the lane's pause asks; if an
// operator's task joins the head of the lane's queue meanwhile, t goes back behind it
// (swapForUrgent) and it returns true at once. A stop ends the wait early (false).
func (e *Engine) pauseInHand(ls *laneState, t frontier.Task, next time.Time) bool {
	for {
		d := next.Sub(e.now())
		if d <= 0 {
			return false
		}
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
			return false
		case <-e.ctx.Done():
			tm.Stop()
			return false
		case <-ls.kick:
			tm.Stop()
			e.mu.Lock()
			swapped, _ := e.swapForUrgent(ls, t) // nothing begun yet: a dropped task needs no undoing
			e.mu.Unlock()
			if swapped {
				return true
			}
		}
	}
}

// holdTask keeps a task the lane took in hand while the crawl, the lane or the task's
// host is paused. Caller holds e.mu. false means the engine is stopping: the task is
// released.
func (e *Engine) holdTask(ls *laneState, t frontier.Task) bool {
	for (e.paused || ls.lane.Paused() || e.pausedHosts[t.Host]) && e.ctx.Err() == nil {
		ls.status, ls.current, ls.nextFetch = LanePaused, t.URL, time.Time{}
		if !e.waitWake() {
			break
		}
	}
	if e.ctx.Err() != nil {
		e.releaseTask(t, false)
		return false
	}
	return true
}

// releaseTask ends a lane's hold on a task taken by nextTask; ended says its fetch
// is over (not moved to another egress or deferred), so a revisit is no longer
// queued. Caller holds e.mu.
func (e *Engine) releaseTask(t frontier.Task, ended bool) {
	e.inHand--
	if e.rv.queued[t.URL] {
		e.rv.inHand--
		if ended {
			delete(e.rv.queued, t.URL)
		}
	}
}

// waitWake releases e.mu until something is resumed or the engine stops. Caller
// holds e.mu; it is held again on return. false means stop.
func (e *Engine) waitWake() bool {
	w := e.wake
	e.mu.Unlock()
	select {
	case <-w:
	case <-e.ctx.Done():
	}
	e.mu.Lock()
	return e.ctx.Err() == nil
}

// process fetches one task on its lane and hands the outcome to the frontier side
// (record: this process's store, or the master of a distributed crawl). ended is
// false when the task did not end here: moved to another egress or deferred (M3), or
// left queued because the engine is stopping. swapped: it was not sent, as an
// operator's task took its place; the lane takes that one without a pause.
func (e *Engine) process(ls *laneState, eg *route.Link, t frontier.Task) (ended, swapped bool) {
	l := ls.lane
	if e.pool != nil && !e.pool.Rotation().Serves(eg.Name, t.Host) {
		// M3: this egress was banned for the host (or is cooling down) since the
		// task was queued here: move it to one that may serve it.
		e.mu.Lock()
		e.relocate(t)
		e.mu.Unlock()
		e.flushDeferred()
		return false, false
	}
	o := Outcome{Task: t, Lane: l.ID, Egress: eg.Name}
	e.front.prepare(&o) // M2: is it a refetch, and with which validators
	t = o.Task
	u, err := url.Parse(t.URL)
	if err != nil {
		o.Kind = frontier.KindMalformed
		e.front.deliver(o)
		return true, false
	}
	var rules *robots.Rules
	if e.opts.EtiquetteFor(t.Host).Robots {
		var err error
		rules, err = e.robotsFor(eg, u)
		if err != nil { // stopping: leave the URL queued
			return false, false
		}
		if be := refusedOrigin(rules, u); be != nil {
			// The SSRF guard refused the site's own address: robots.txt was never
			// asked for, and the page would be refused the same way. The URL fails
			// as the page would (ssrf_blocked), not as a site that is down: deferred
			// and tried again, it would never get anywhere under this policy.
			e.warnRefused(be, t.URL)
			o.Kind = fetch.KindBlocked
			e.front.deliver(o)
			return true, false
		}
		if rules.Unreachable && !t.Refetch {
			// RFC 9309 §2.3.1.4: an unreachable robots.txt (429, 5xx, no answer)
			// disallows everything, for now. The site's URLs wait (deferred, never
			// dropped) until robots.txt is tried again, with backoff.
			e.c.addError(fetch.KindRobotsDown)
			until := e.robots.Expires(u.Scheme + "://" + u.Host)
			if !until.After(e.now()) {
				until = e.now().Add(e.robots.RetryAfter(1))
			}
			e.mu.Lock()
			e.deferTask(t, until)
			e.mu.Unlock()
			e.flushDeferred()
			return true, false
		}
		if !rules.Allowed(u.RequestURI()) {
			o.Kind = fetch.KindRobots
			if rules.Unreachable {
				o.Kind = fetch.KindRobotsDown
			}
			e.front.deliver(o)
			return true, false
		}
	}
	e.front.begin(t, l.ID)
	res, hops, kind, moved := e.fetchWithRetry(ls, eg, t, conditionalHeaders(t))
	if kind == kindSwapped { // the operator's task goes before this one
		return false, true
	}
	e.mu.Lock()
	ls.fetchEnd = e.now()
	e.mu.Unlock()
	if moved {
		return false, false // M3 rerouted or deferred the task
	}
	if kind == fetch.KindCanceled || e.ctx.Err() != nil {
		e.front.abandon(t, l.ID) // resumes next run
		return false, false
	}
	o.Res, o.Hops, o.Kind, o.At = res, hops, kind, ls.fetchEnd
	if res != nil {
		e.fetchCost.add(res.Duration)
	}
	if o.Kind == fetch.KindRefused && e.pool == nil {
		if ra := egress.ParseRetryAfter(res.Header.Get("Retry-After"), e.now()); ra > e.opts.Fetch.RefusalBackoff {
			// The server asks for a longer wait than the lane's back-off: the host's
			// URLs wait (deferred, never dropped, capped at fetch.max_retry_after)
			// instead of the lane sleeping on them; the lane goes on with other work.
			e.c.response(res.Status) // a response handled here, not delivered
			e.c.refused.Add(1)
			e.deferForRetryAfter(l.ID, t, res.Status, ra)
			return false, false
		}
	}
	e.attachRobotsSitemaps(u, rules, res) // the frontier side queues them
	e.front.deliver(o)
	if o.Kind == fetch.KindRefused && e.pool == nil {
		wait := e.opts.Fetch.RefusalBackoff // a Retry-After above it deferred the URL
		e.logf(LevelWarn, l.ID, t.Host, "refused (%d) %s; lane backs off %v", res.Status, t.URL, wait)
		e.mu.Lock()
		ls.status, ls.nextFetch = LaneWaiting, e.now().Add(wait)
		e.mu.Unlock()
		e.sleep(wait)
	}
	return true, false
}

// kindSwapped is fetchWithRetry's answer when the lane traded its task for an
// operator's before sending it (never recorded: the task is back in the queue).
const kindSwapped = "swapped"

// Defaults of the caps on server hints, for options built without them.
const (
	defaultMaxRetryAfter = time.Hour
	defaultMaxCrawlDelay = time.Minute
)

// maxRetryAfter is fetch.max_retry_after: the longest a Retry-After defers a host.
func (e *Engine) maxRetryAfter() time.Duration {
	if d := e.opts.Fetch.MaxRetryAfter; d > 0 {
		return d
	}
	return defaultMaxRetryAfter
}

// maxCrawlDelay is fetch.max_crawl_delay: the largest robots.txt Crawl-delay obeyed.
func (e *Engine) maxCrawlDelay() time.Duration {
	if d := e.opts.Fetch.MaxCrawlDelay; d > 0 {
		return d
	}
	return defaultMaxCrawlDelay
}

// deferForRetryAfter sets a refused task, and its host's other tasks on the board,
// aside for the server's Retry-After, capped at fetch.max_retry_after, and says so.
// The deferral requeues them when due (maintainDeferred).
func (e *Engine) deferForRetryAfter(lane int, t frontier.Task, status int, retryAfter time.Duration) {
	wait := min(retryAfter, e.maxRetryAfter())
	capped := ""
	if wait < retryAfter {
		capped = fmt.Sprintf(" (Retry-After %v capped at fetch.max_retry_after)", retryAfter)
	}
	until := e.now().Add(wait)
	e.mu.Lock()
	e.deferTask(t, until)
	others := e.offBoard(e.board.DropHost(t.Host))
	for _, m := range others {
		e.deferTask(m, until)
	}
	e.mu.Unlock()
	e.flushDeferred()
	e.logf(LevelWarn, lane, t.Host, "refused (%d) %s; host %s asks to wait %v%s: %d URLs deferred until %s",
		status, t.URL, t.Host, wait, capped, 1+len(others), until.Format(time.RFC3339))
}

// conditionalHeaders asks for a stored page only if it changed since (M2):
// If-None-Match with its ETag, else If-Modified-Since. The validators travel with the
// task (the frontier side set them, with conditional GET on).
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
func (e *Engine) fetchWithRetry(ls *laneState, eg *route.Link, t frontier.Task, hdr http.Header) (res *fetch.Result, hops []fetch.Exchange, kind string, moved bool) {
	e.mu.Lock()
	egIdx := e.egressIndex(eg.Name)
	urgent := ls.urgent
	e.mu.Unlock()
	for attempt := 0; ; attempt++ {
		w := lanes.Wait{Urgent: urgent}
		if attempt == 0 && !urgent {
			w.Stop = ls.kick
		}
		tk, err := e.gate.AcquireWith(e.ctx, w, egIdx, t.Host, t.ParentHash)
		for err == lanes.ErrStopped { // an operator's task joined the lane
			e.mu.Lock()
			swapped, dropped := e.swapForUrgent(ls, t)
			e.mu.Unlock()
			if swapped {
				if !dropped { // a withdrawn task's end is written by flushSteeredOut
					e.front.abandon(t, ls.lane.ID)
				}
				return nil, nil, kindSwapped, false
			}
			tk, err = e.gate.AcquireWith(e.ctx, w, egIdx, t.Host, t.ParentHash)
		}
		if err != nil {
			return nil, nil, fetch.KindCanceled, false
		}
		res, err := eg.F.Fetch(t.URL, hdr)
		e.gate.Finish(tk, gateResponse(res, err)) // the host's adaptive gap learns from the answer
		var v egress.Verdict
		if fetch.Kind(err) != fetch.KindCanceled {
			res, err, v = e.judged(eg, egIdx, t, hdr, res, err) // one classifier, both routes
		}
		if v.Class == egress.SiteBan && v.OneURL { // one URL's soft refusal punishes nobody
			if e.oneURLRefusal(eg, t, res, v) {
				return nil, nil, "", true
			}
			return res, nil, fetch.KindRefused, false
		}
		if e.pool == nil && v.Class == egress.SiteBan && !v.Unavailable {
			e.punished(eg, t, res, v, "lane backs off")
			return res, nil, fetch.KindRefused, false
		}
		if e.pool != nil && fetch.Kind(err) != fetch.KindCanceled {
			d := e.pool.Report(eg.Name, t.Host, v)
			// The stats' "refused" counts 403/429/ban pages. A 503 with Retry-After also
			// rotates (the classifier counts it as a site ban) but is an overloaded or broken
			// server as far as the operator's figures go.
			unavailable := v.Unavailable
			if v.Class == egress.SiteBan {
				e.punished(eg, t, res, v, route.RotationAction(eg.Name, d))
			}
			if v.Class == egress.SiteBan && !unavailable {
				e.c.refused.Add(1)
			}
			moving := d.Action == egress.DeferHost || (d.Action == egress.Retry && t.Attempts < maxReroutes)
			if moving && res != nil {
				e.c.response(res.Status) // process() counts the responses it handles
			}
			if moving {
				t.Attempts++
				e.reroute(eg, t, v, d)
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
		var be *fetch.BlockedError
		if errors.As(err, &be) {
			e.warnRefused(be, t.URL)
		}
		if kind == "" && res.Status/100 == 5 {
			kind = fetch.KindHTTP5xx
		}
		if kind == "" || !fetch.Transient(kind) || attempt >= e.opts.Fetch.Retries {
			if kind == fetch.KindHTTP5xx {
				kind = "" // a 5xx page is still a response: process() records it
			}
			if res == nil {
				// Failed with no response, but maybe after redirects that were
				// answered: they go to the archive all the same (saveCaptures).
				hops = fetch.FailedExchanges(err)
			}
			return res, hops, kind, false
		}
		backoff := e.opts.Fetch.RetryBackoff << attempt
		e.logf(LevelInfo, 0, t.Host, "%s on %s, retry %d in %v", kind, t.URL, attempt+1, backoff)
		if !e.sleep(backoff) {
			return nil, nil, fetch.KindCanceled, false
		}
	}
}

// maxReroutes is how many times one task moves to another egress after a refusal
// before it counts as failed: a page that refuses every client (a broken page
// answering 503 with Retry-After, say) must not walk its host off every egress.
const maxReroutes = 2

// refusedOrigin returns the SSRF guard's refusal of u's own host when that is why
// its robots.txt got no answer (rules unreachable), nil otherwise: a robots.txt
// redirected to a refused address leaves the site itself allowed, and unreachable.
func refusedOrigin(rules *robots.Rules, u *url.URL) *fetch.BlockedError {
	var be *fetch.BlockedError
	if rules == nil || !rules.Unreachable || !errors.As(rules.Err, &be) || !strings.EqualFold(be.Host, u.Hostname()) {
		return nil
	}
	return be
}

// warnRefused tells the operator, once per host this run, that the SSRF guard
// refused a host's address (a WARN: its URLs fail as ssrf_blocked), and how to let
// it through. first is the URL whose fetch met it first (the host may be a
// redirect's target).
func (e *Engine) warnRefused(be *fetch.BlockedError, first string) {
	if _, warned := e.ssrfWarned.LoadOrStore(strings.ToLower(be.Host), struct{}{}); warned {
		return
	}
	fix := "start the crawl with --allow-private %s (on a distributed crawl, the workers need it too)"
	if e.role == roleWorker {
		fix = "start this worker with --allow-private %s (every worker that may fetch it needs it)"
	}
	e.logf(LevelWarn, 0, be.Host, "%s (%s) refused by the SSRF guard (a loopback/private/reserved address), first at %s: "+
		"its URLs fail as ssrf_blocked (tried again at every start); to crawl it, "+fix,
		be.Host, be.Addr, first, netip.PrefixFrom(be.Addr, be.Addr.BitLen()))
}

// robotsFor returns the robots.txt rules of u's origin, fetching them through this
// lane's egress and the gate when they are missing or older than
// etiquette.robots_cache_for (a robots.txt request is a request to the host like any
// other, for the site's bot detection). Each fetch sets the host's Crawl-delay anew,
// capped at fetch.max_crawl_delay.
func (e *Engine) robotsFor(eg *route.Link, u *url.URL) (*robots.Rules, error) {
	origin := u.Scheme + "://" + u.Host
	host := u.Hostname()
	return e.robots.Get(e.ctx, origin, func(ctx context.Context) (*robots.Rules, error) {
		e.mu.Lock()
		egIdx := e.egressIndex(eg.Name)
		e.mu.Unlock()
		tk, err := e.gate.Acquire(ctx, egIdx, host, 0)
		if err != nil {
			return nil, err
		}
		r := eg.F.FetchRobots(ctx, origin, robots.ProductToken(e.opts.UserAgent))
		e.gate.Release(tk)
		if ctx.Err() != nil {
			return nil, ctx.Err() // stopping: not an answer from the site
		}
		if !r.Unreachable {
			cd := r.CrawlDelay
			if limit := e.maxCrawlDelay(); cd > limit {
				cd = limit
				e.logf(LevelWarn, 0, host, "robots.txt for %s asks Crawl-delay %v; capped at fetch.max_crawl_delay %v", origin, r.CrawlDelay, limit)
			}
			e.mu.Lock()
			if cd > 0 {
				e.crawlDelay[host] = cd
			} else {
				delete(e.crawlDelay, host) // new rules without a Crawl-delay lift the old one
			}
			e.mu.Unlock()
		}
		e.logf(LevelDebug, 0, host, "robots.txt for %s: %s", origin, r)
		return r, nil
	})
}
