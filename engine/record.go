package engine

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// prior is a page's revisit state before its fetch, as the front read it when a
// lane prepared the task (Outcome.Note, never on the wire): page nil for a first
// fetch; track false when it could not be read.
type prior struct {
	page  *revisit.Page
	track bool
}

// priorOf is the page state before o's fetch: the note prepare left, else read now.
func (e *Engine) priorOf(o Outcome) (*revisit.Page, bool) {
	if p, ok := o.Note.(prior); ok {
		return p.page, p.track
	}
	return e.revisitState(o.Task)
}

// recordHeaders are the response headers record reads; a worker sends only these
// to its master (M4: a result's headers cost the master's decoder more than its body).
// A header record starts to read must be added here.
var recordHeaders = []string{"Location", "Etag", "Last-Modified", "Content-Type"}

// frontPort is what a lane needs from the frontier side: this process's store and
// record on one box, the master on a worker of a distributed crawl (M4).
type frontPort interface {
	// prepare completes a task a lane is about to fetch: a stored page is a
	// refetch, with its validators for a conditional GET (M2); a Kind it sets
	// ends the task unsent (a URL a fetched page stands for as its canonical).
	prepare(o *Outcome)
	// begin marks the task in progress (back to unprocessed after a crash).
	begin(t frontier.Task, lane int)
	// abandon puts the task back to unprocessed: the lane let go of it (stopping).
	abandon(t frontier.Task, lane int)
	// deliver hands over a task that ended on the lane.
	deliver(o Outcome)
	// deferURLs sets URLs aside until a time (M3 disabled host, robots.txt down).
	deferURLs(list []deferredTask)
	// withdrawn ends a task the operator's steering took out of the queue
	// (front.Front.Withdraw): skipped, kind steered_out.
	withdrawn(t frontier.Task)
	// refused records a refusal the crawl acted on, with its evidence and what
	// followed (`show URL` says why), in the store that has the URL.
	refused(r store.Refusal)
	// requeueDeferred queues again the deferred URLs whose time has come (the
	// master does it for what its workers deferred).
	requeueDeferred()
	// start, run, started and stop are the front's part of the crawl's Start and
	// Stop (front.go); close closes its store, if it has one, once the crawl stopped.
	start() error
	run()
	started()
	stop()
	close() error
	// event keeps a warning or an error in the crawl's store.
	event(ev Event)
	// laneOpened and laneRetired keep the lanes' history.
	laneOpened(lane int, egress string, at time.Time)
	laneRetired(lane int, at time.Time, done int64)
}

// localFront is the frontier side in this process: the store and record.
type localFront struct{ e *Engine }

func (f localFront) prepare(o *Outcome) {
	p := prior{}
	p.page, p.track = f.e.revisitState(o.Task)
	o.Note = p
	if p.page != nil {
		f.e.setValidators(&o.Task)
		return
	}
	if f.e.variants.StandsFor(o.Task.URL) {
		// Queued before a page fetched since named it as its rel=canonical: the
		// article is stored under that page's URL, and is not fetched again.
		o.Kind = SkipCanonicalVariant
	}
}

func (f localFront) begin(t frontier.Task, lane int) {
	f.e.st.SetState(t.URL, store.InProgress, lane, "")
}

func (f localFront) abandon(t frontier.Task, lane int) {
	f.e.st.SetState(t.URL, store.Unprocessed, lane, "")
}

func (f localFront) deliver(o Outcome) { f.e.record(o) }

func (f localFront) refused(r store.Refusal) { f.e.st.AddRefusal(r) }

func (f localFront) close() error { return f.e.st.Close() }

func (f localFront) deferURLs(list []deferredTask) {
	for _, d := range list {
		f.e.st.Defer(d.url, d.until)
		f.e.c.Deferred.Add(1)
	}
}

// setValidators marks a task as a refetch of a stored page and gives it the page's
// validators for a conditional GET (M2), when conditional GET is on.
func (e *Engine) setValidators(t *frontier.Task) {
	t.Refetch = true
	if !e.opts.Revisit.ConditionalGet {
		return
	}
	if etag, lm, err := e.st.PageValidators(t.URL); err == nil {
		t.ETag, t.LastModified = etag, lm
	}
}

// record is the frontier side of a task's end: the page stored with its links and
// revisit state, or the URL marked failed with its kind, the counters moved.
//
// A page already stored is a refetch (M2): it was asked for conditionally, a 304
// keeps the stored page and counts as unchanged, and a failed refetch (or one with no
// usable text) leaves the stored page as it was (the URL stays processed) with a new
// due time.
func (e *Engine) record(o Outcome) {
	t, res := o.Task, o.Res
	prev, track := e.priorOf(o)
	refetch := prev != nil
	failed, observed := store.Failed, false
	if refetch {
		failed = store.Processed // the stored page stays; the error is recorded with it
		defer func() {
			if !observed {
				e.refetchFailed(t, prev)
			}
		}()
	}
	var capture *store.Capture // the exchange of a page to store, stored with it
	if res != nil {
		e.c.Response(res.Status)
		e.c.BytesFetched.Add(int64(len(res.Body)))
		e.hosts.Record(hostreport.Ending{Host: t.Host, Site: siteOf(t), Egress: o.Egress, Status: res.Status,
			Refused: o.Kind == fetch.KindRefused})
		e.countCost(t, res)
		capture = e.saveCaptures(o, refetch, o.Kind == "" && res.Status/100 == 2)
		if res.RobotsRead && e.disc != nil {
			// The origin's robots.txt Sitemap lines ride on its first response,
			// whatever it was: a 404 or a redirect never reaches discoverFrom, and
			// the host's cross-submission would be lost for the crawl.
			e.disc.RobotsSitemaps(t, res)
		}
	} else {
		// No response, and none counted; but the redirects answered before the
		// fetch failed (Outcome.Hops) are archived like any response received.
		e.saveCaptures(o, refetch, false)
	}
	l := o.Lane
	switch {
	case o.Kind == fetch.KindRefused && res != nil && e.pool == nil:
		e.c.Refused.Add(1)
		e.finish(t, refetch, l, failed, o.Kind)
	case o.Kind != "":
		if !IsSkip(o.Kind) {
			e.disc.SourceFailed(t.URL)
		}
		if o.Kind == fetch.KindContentType || o.Kind == fetch.KindBinary || o.Kind == fetch.KindTooLarge {
			e.disc.RefusedDocument(t, o.Kind, res)
		}
		e.finish(t, refetch, l, failed, o.Kind)
		switch {
		case o.Kind == fetch.KindBlocked:
			e.warnRefusedOn(o)
		case !IsSkip(o.Kind) && o.Kind != fetch.KindRobotsDown && o.Kind != frontier.KindMalformed:
			e.logf(LevelWarn, l, t.Host, "%s: %s", o.Kind, t.URL)
		}
	case res.Status == http.StatusNotModified:
		if refetch {
			// M2: unchanged, and it cost no body; the stored page is kept.
			rv := e.observeRevisit(t.URL, prev, e.now(), revisit.Outcome{NotModified: true})
			e.disc.NotModified(t.URL, rv)
			e.st.SaveRevisit(*rv)
			observed = true
		}
		e.finish(t, refetch, l, store.Processed, "")
	case res.Status/100 == 2 && res.Robots.NoIndex && e.opts.EtiquetteFor(t.Host).PageDirectives:
		e.skipNoindex(l, t, res, refetch, failed)
	case res.Status/100 == 2:
		e.savePage(l, o.Egress, t, res, prev, track, o.At, capture)
		observed = true
	case res.Status/100 == 3 && res.Header.Get("Location") != "":
		e.followRedirect(l, t, res, refetch)
	case res.Status/100 == 4:
		e.disc.SourceFailed(t.URL)
		e.finish(t, refetch, l, failed, fetch.KindHTTP4xx)
	case res.Status/100 == 5:
		e.disc.SourceFailed(t.URL)
		e.finish(t, refetch, l, failed, fetch.KindHTTP5xx)
	default:
		e.finish(t, refetch, l, failed, "http_"+strconv.Itoa(res.Status))
	}
}

// warnRefusedOn is the frontier side's word on a URL a worker's SSRF guard refused
// (M4): once per worker and host, as the worker's own log has the address. In one
// process the lane said it already (warnRefused), once per host, not per URL.
func (e *Engine) warnRefusedOn(o Outcome) {
	if o.Node == "" {
		return
	}
	if _, warned := e.ssrfWarned.LoadOrStore(o.Node+" "+strings.ToLower(o.Task.Host), struct{}{}); warned {
		return
	}
	e.logf(LevelWarn, o.Lane, o.Task.Host, "worker %s: the SSRF guard refused %s (a loopback/private/reserved address, or a redirect to one), first at %s: "+
		"its URLs fail as ssrf_blocked; to crawl it, start worker %s with --allow-private CIDR (its log names the address)",
		o.Node, o.Task.Host, o.Task.URL, o.Node)
}

// savePage stores a fetched page with the links it found and its revisit state, in
// one transaction, and queues the new links as the store confirms them. The main
// text's SimHash (M2) goes with the page; prev is the page's revisit state before
// this fetch (nil on a first fetch), and a refetch overwrites the stored page.
//
// at is when the response ended on its lane (a worker's clock on a distributed
// crawl); zero means now. capture, if any, is the exchange that fetched it (WARC
// export): stored with the page, or alone when the page is not.
func (e *Engine) savePage(lane int, egress string, t frontier.Task, res *fetch.Result, prev *revisit.Page, track bool, at time.Time, capture *store.Capture) {
	if at.IsZero() {
		at = e.now()
	}
	var known []string
	doc := e.disc.Read(t, res, prev, at) // a feed or sitemap: its entries become its links
	var docKind discover.Kind
	if doc != nil {
		docKind = doc.Kind
	}
	links := e.fr.ExtractLinks(t, res, &known, docKind)
	md := pageMeta(t, res, at)
	if doc == nil { // a feed is no result of its own; the articles it announces are
		e.collect(t, res, md.Published.Time, e.now())
	}
	if e.sites.Load().IsSource(t.URL) && len(known) > 0 {
		e.refetchResults(known, e.now()) // M3: entry/search results already in the URL index
	}
	stored := store.Page{
		URL: t.URL, FetchedAt: at, Status: res.Status, ContentType: res.ContentType, Body: res.Body,
		Bytes: int64(len(res.Body)), Duration: res.Duration, Lane: lane, Egress: egress,
		ETag: res.Header.Get("ETag"), LastModified: res.Header.Get("Last-Modified"),
	}
	if res.FinalURL != "" && res.FinalURL != t.URL {
		stored.FinalURL = res.FinalURL
	}
	// An empty, binary or undecodable body has no fingerprint: "unknown", never a
	// false "unchanged" or "changed" (revisit.Tracker.Observe).
	// (res.Parsed: the fetcher's link pass already tokenized the page for it.)
	// A worker's result comes signed (res.Signed): the master does not parse again.
	var sig page.Signature
	var text page.Text
	var ok bool
	if res.Signed != nil {
		sig, ok = res.Signed.Sig, res.Signed.OK
	} else {
		sig, text, ok = res.Parsed.Sign(res.PageBody(), res.PageType())
	}
	if ok && doc == nil && prev == nil && res.Status/100 == 2 {
		e.groupStory(t, res, text, md.Published.Time, at)
	}
	hash := sig.SimHash
	if ok {
		stored.SimHash = hash
	}
	stored.Meta = storeMeta(md)
	if track {
		stored.Revisit = e.observeRevisit(t.URL, prev, stored.FetchedAt,
			revisit.Outcome{Hash: hash, OK: ok, Sig: sig, HasDigest: ok})
		e.rv.KeepReplacedText(t.URL, stored.Revisit)
		if doc != nil {
			e.disc.SchedulePoll(t.URL, doc, links, feeds.Listing(links, known), stored.Revisit, at)
		} else {
			e.disc.AwaitHint(t.URL, stored.Revisit)               // a page a trusted feed or sitemap dates
			e.disc.PollEntry(t, links, known, stored.Revisit, at) // a seed of a site with neither feed nor sitemap
			if prev != nil && stored.Revisit.Distance >= 0 {
				e.disc.HintOutcome(t.URL, stored.Revisit.Distance > e.opts.Revisit.Threshold)
			} else {
				e.disc.HintDrop(t.URL)
			}
		}
	}
	if prev != nil && prev.HasHash && !ok {
		// A refetch with no usable text (an empty or garbled answer) does not replace
		// the last good copy; its state (nothing learned) is kept all the same.
		if stored.Revisit != nil {
			e.st.SaveRevisit(*stored.Revisit)
		}
		if capture != nil {
			e.st.SaveCapture(*capture) // the archive keeps what came, usable or not
		}
		e.fr.Submit(links, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
		e.finish(t, true, lane, store.Processed, "")
		return
	}
	if len(links) > 0 {
		e.parentURLs.Add(frontier.Hash(t.URL), t.URL)
	}
	stored.Capture = capture
	save := e.st.SavePage
	if prev != nil {
		save = e.st.ReplacePage
	} else { // a refetch replaces the page: it was counted when first stored
		counted := e.fr.OnCommit(e.c.PageCommitted) // counted once committed: a full disk never inflates it
		pub, fetchedAt := md.Published.Time, stored.FetchedAt
		stored.Committed = func() {
			counted()
			e.c.StoredAged(pub, fetchedAt)
			e.noteStored(t, pub, fetchedAt)
			e.hosts.Stored(t.Host, siteOf(t), egress)
		}
	}
	if prev != nil && e.sites.Load().IsSource(t.URL) {
		e.siteTally.SourceFetched(t.Site, stored.FetchedAt) // the Sites pane's last round
	}
	if len(links) == 0 {
		save(stored, nil, nil)
	} else {
		e.fr.Submit(links, func(u []store.URL, done store.LinkResult) { save(stored, u, done) })
	}
}

// skipNoindex ends a page that asked not to be indexed (meta robots or X-Robots-Tag
// noindex): it is not stored, and counts as skipped with kind "noindex"; its links
// are still queued unless it also said nofollow (extract), as "noindex" alone allows.
// A page stored by an earlier fetch keeps that copy (the URL stays processed).
func (e *Engine) skipNoindex(lane int, t frontier.Task, res *fetch.Result, refetch bool, st store.State) {
	if links := e.fr.Extract(t, res, nil); len(links) > 0 {
		e.fr.Submit(links, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	}
	e.finish(t, refetch, lane, st, fetch.KindNoindex)
}

// followRedirect queues a cross-host redirect's target as a new task (the fetcher
// follows same-host hops itself, paced) and records the redirecting URL as done.
func (e *Engine) followRedirect(lane int, t frontier.Task, res *fetch.Result, refetch bool) {
	links := e.fr.Extract(t, &fetch.Result{FinalURL: res.FinalURL, Links: []string{res.Header.Get("Location")}}, nil)
	e.fr.Submit(links, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	e.finish(t, refetch, lane, store.Processed, "")
	e.c.AddError("redirected") // not a failure: counted so the operator sees where pages went
}

// finish records a task that ended without a stored page. A refetch (M2) is not a
// URL done: it was counted when first fetched.
func (e *Engine) finish(t frontier.Task, refetch bool, lane int, st store.State, kind string) {
	e.st.SetState(t.URL, st, lane, kind)
	e.disc.HintDrop(t.URL)
	if kind != "" {
		e.c.AddError(kind)
		e.c.Example(kind, t.URL)
		e.hosts.Record(hostreport.Ending{Host: t.Host, Site: siteOf(t), Kind: kind, Skip: IsSkip(kind)})
	}
	if !refetch {
		done := e.fr.OnCommit(e.c.URLDone)
		e.st.AfterCommit(func(err error) { // the store stops the crawl on an error
			if err == nil {
				done()
			}
		})
	}
}
