package lanes

import (
	"errors"
	"net/http"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// judged classifies a fetch outcome and settles a soft refusal (evidence before
// punishment). A soft refusal another URL of the host repeated lately through
// the same egress stands as it is (the site refuses this client); otherwise the URL
// is fetched once more through the same egress, after the politeness gate, and the
// refetch's answer replaces the first: ordinary, it stands; a soft refusal again, it
// condemns this URL only (Verdict.OneURL) until another URL corroborates it; a hard
// refusal, it stands. The refetch passes mayLeave as any request: a host held
// meanwhile, a lease lost, is not asked again.
func (r *Runner) judged(link *route.Link, egIdx int, t frontier.Task, hdr http.Header, res *fetch.Result, ferr error) (*fetch.Result, error, egress.Verdict) {
	v := route.Verdict(r.Judge, link, t.Host, res, ferr)
	if v.Class != egress.SiteBan || !v.Confirm {
		return res, ferr, v
	}
	if other, ok := r.Judge.Corroborated(link.Name, t.Host, t.URL); ok {
		v.Confirm = false
		v.Reason += "; as " + other + " did"
		return res, ferr, v
	}
	r.Front.ConfirmFetch()
	r.Front.Logf(view.LevelDebug, 0, t.Host, "possible refusal of %s via %s (%s): fetching it once more", t.URL, link.Name, v.Reason)
	tk, err := r.Gate.Acquire(r.Ctx, egIdx, t.Host, t.ParentHash)
	if err != nil {
		return res, ferr, egress.Verdict{Class: egress.SiteError, Reason: "stopping before the refetch confirming " + v.Reason}
	}
	if err := r.mayLeave(r.Ctx, t.Host, t.Lease); err != nil { // held, the lease lost, stopping: not asked again
		r.Gate.Release(tk)
		if r.Ctx.Err() != nil {
			return nil, err, egress.Verdict{Class: egress.SiteError, Reason: "stopped"}
		}
		return nil, err, egress.Verdict{Class: egress.SiteError, Reason: "not asked again (" + err.Error() + ") to confirm " + v.Reason}
	}
	res2, err2 := link.F.Fetch(t.URL, hdr)
	r.Gate.Release(tk)
	if _, held := errors.AsType[*fetch.HeldError](err2); held { // the transport kept a resend or a hop: as mayLeave would
		return nil, errHostHeld, egress.Verdict{Class: egress.SiteError, Reason: "not asked again (" + errHostHeld.Error() + ") to confirm " + v.Reason}
	}
	if fetch.Kind(err2) == fetch.KindCanceled {
		return res2, err2, egress.Verdict{Class: egress.SiteError, Reason: "stopped"}
	}
	again := route.Verdict(r.Judge, link, t.Host, res2, err2)
	soft := again.Class == egress.SiteBan && again.Confirm
	v = egress.Confirmed(v, again)
	if soft {
		r.Judge.NoteSoft(link.Name, t.Host, t.URL, v.Reason)
		v.OneURL = true
	}
	return res2, err2, v
}

// maxSoftDeferrals: a URL whose soft refusal repeats (and no other URL of its host
// corroborates it) is set aside and tried again later this many times before it
// fails as refused; it is not lost to one bad moment, nor retried forever.
const maxSoftDeferrals = 2

// oneURLRefusal handles a soft refusal confirmed on one URL only (Verdict.OneURL):
// the host and the egress go unpunished; the URL waits a pair-ban time and is tried
// again ("later"), or fails as refused once it has waited
// maxSoftDeferrals times. moved reports that it was deferred.
func (r *Runner) oneURLRefusal(link *route.Link, t frontier.Task, res *fetch.Result, v egress.Verdict) (moved bool) {
	if t.Attempts > maxSoftDeferrals {
		r.punished(link, t, res, v, "URL refused; host and egress not punished (no other URL repeats it)")
		if r.Pool != nil {
			r.Front.Refusal() // the direct route's record counts its refusals
		}
		return false
	}
	wait := r.Opts.Rotation.PairBanFor
	if wait <= 0 {
		wait = egress.DefaultRotationConfig().PairBanFor
	}
	until := r.now().Add(wait)
	r.punished(link, t, res, v, "URL set aside until "+until.Format(time.TimeOnly)+"; host and egress not punished (no other URL repeats it)")
	r.Front.Fetched() // a response handled here, not delivered
	r.Mu.Lock()
	r.Front.Defer(t, until)
	r.Mu.Unlock()
	r.Front.Flush()
	return true
}

// punished logs and records a refusal the crawl acted on, with its evidence and
// what followed: the log line and `show URL` (store.Refusals) say why.
func (r *Runner) punished(link *route.Link, t frontier.Task, res *fetch.Result, v egress.Verdict, action string) {
	status := 0
	if res != nil {
		status = res.Status
	}
	r.Front.Logf(view.LevelWarn, 0, t.Host, "refusal of %s via %s (%d): %s; %s", t.URL, link.Name, status, v.Reason, action)
	r.Record.Refused(model.Refusal{URL: t.URL, At: r.now(), Host: t.Host, Egress: link.Name, Status: status,
		Vendor: v.Vendor, Evidence: v.Reason, Action: action})
}

// reroute handles a refusal decision for task t fetched through link: Retry moves
// the task (and the host's other tasks on that egress; every task on it after a
// proxy fault) to lanes on egresses that may serve them; DeferHost sets the host's
// URLs aside until the disable list lets it go (never lost).
func (r *Runner) reroute(link *route.Link, t frontier.Task, v egress.Verdict, d egress.Decision) {
	r.Front.Logf(view.LevelWarn, 0, t.Host, "%s via %s: %s", v.Class, link.Name, d.Reason)
	r.Mu.Lock()
	if d.Claimed != "" {
		if _, err := r.AddLink(d.Claimed); err != nil {
			r.Front.Logf(view.LevelError, 0, "", "egress %s: %v", d.Claimed, err)
		}
	}
	idx := link.Index
	if v.Class != egress.ProxyFault {
		// The session belongs to an address the site refused: the host goes on
		// from another egress with that egress's own jar.
		if site := link.DropSession(t.Host); site != "" {
			r.Front.Logf(view.LevelDebug, 0, t.Host, "cookie session for %s on %s dropped: the host moves to another egress", site, link.Name)
		}
	}
	switch d.Action {
	case egress.Retry:
		host := t.Host
		if v.Class == egress.ProxyFault {
			host = "" // the egress is out for every host
		}
		moved := r.Front.OffBoard(r.Board.Evict(host, idx))
		r.Relocate(t)
		for _, m := range moved {
			r.Relocate(m)
		}
	case egress.DeferHost:
		r.Front.Defer(t, d.Until)
		for _, m := range r.Front.OffBoard(r.Board.DropHost(t.Host)) {
			r.Front.Defer(m, d.Until)
		}
	}
	r.Mu.Unlock()
	r.Front.Flush()
}

// Relocate places a task again after its egress stopped serving its host. When no
// egress on the node may serve the host, the rotation decides: claim another from
// the table, or disable the host and defer its URLs. Mu held.
func (r *Runner) Relocate(t frontier.Task) {
	if r.Pool != nil && !r.servable(t.Host) {
		d := r.Pool.Pick(t.Host)
		if d.Claimed != "" {
			if _, err := r.AddLink(d.Claimed); err != nil {
				r.Front.Logf(view.LevelError, 0, "", "egress %s: %v", d.Claimed, err)
			}
		}
		if d.Action == egress.DeferHost {
			r.Front.Defer(t, d.Until)
			for _, m := range r.Front.OffBoard(r.Board.DropHost(t.Host)) {
				r.Front.Defer(m, d.Until)
			}
			return
		}
	}
	r.Front.Place(t)
}

// servable reports whether some egress on the node may serve host now. Mu held.
func (r *Runner) servable(host string) bool {
	for _, l := range r.Links {
		if r.Pool.Rotation().Serves(l.Name, host) {
			return true
		}
	}
	return false
}
