package front

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Prior is a page's revisit state before its fetch, as the front read it when a
// lane prepared the task (Outcome.Note, never on the wire): page nil for a first
// fetch; track false when it could not be read.
type Prior struct {
	Page  *revisit.Page
	Track bool
}

// priorOf is the page state before o's fetch: the note prepare left, else read now.
func (f *Front) priorOf(o lanes.Outcome) (*revisit.Page, bool) {
	if p, ok := o.Note.(Prior); ok {
		return p.Page, p.Track
	}
	return f.RevisitState(o.Task)
}

// RecordHeaders are the response headers record reads; a worker sends only these
// to its master (M4: a result's headers cost the master's decoder more than its body).
// A header Record starts to read must be added here.
var RecordHeaders = []string{"Location", "Etag", "Last-Modified", "Content-Type"}

// Record is the frontier side of a task's end: the page stored with its links and
// revisit state, or the URL marked failed with its kind, the counters moved.
//
// A page already stored is a refetch (M2): it was asked for conditionally, a 304
// keeps the stored page and counts as unchanged, and a failed refetch (or one with no
// usable text) leaves the stored page as it was (the URL stays processed) with a new
// due time.
func (f *Front) Record(o lanes.Outcome) {
	t, res := o.Task, o.Res
	f.Counters.Settled(t.URL)
	prev, track := f.priorOf(o)
	refetch := prev != nil
	failed := store.Failed
	if refetch {
		failed = store.Processed // the stored page stays; the error is recorded with it
	}
	var capture *store.Capture // the exchange of a page to store, stored with it
	if res != nil {
		f.Counters.Response(res.Status)
		f.Counters.BytesFetched.Add(int64(len(res.Body)))
		f.Hosts.Record(hostreport.Ending{Host: t.Host, Site: SiteOf(t), Egress: o.Egress, Status: res.Status,
			Refused: o.Kind == fetch.KindRefused})
		f.countCost(t, res)
		capture = f.saveCaptures(o, refetch, o.Kind == "" && res.Status/100 == 2)
		if res.RobotsRead && f.disc != nil {
			// The origin's robots.txt Sitemap lines ride on its first response,
			// whatever it was: a 404 or a redirect never reaches discoverFrom, and
			// the host's cross-submission would be lost for the crawl.
			f.disc.RobotsSitemaps(t, res)
		}
	} else {
		// No response, and none counted; but the redirects answered before the
		// fetch failed (Outcome.Hops) are archived like any response received.
		f.saveCaptures(o, refetch, false)
	}
	l := o.Lane
	switch {
	case o.Kind == fetch.KindRefused && res != nil && f.crawl.DirectRefusals():
		f.Counters.Refused.Add(1)
		f.endUnstored(t, prev, l, failed, o.Kind)
	case o.Kind != "":
		if !IsSkip(o.Kind) {
			f.disc.SourceFailed(t.URL)
			if o.Kind != fetch.KindContentType && o.Kind != fetch.KindBinary && o.Kind != fetch.KindTooLarge {
				f.disc.FailedDocument(t, o.Kind, 0)
			}
		}
		if o.Kind == fetch.KindContentType || o.Kind == fetch.KindBinary || o.Kind == fetch.KindTooLarge {
			f.disc.RefusedDocument(t, o.Kind, res)
		}
		f.endUnstored(t, prev, l, failed, o.Kind)
		switch {
		case o.Kind == fetch.KindBlocked:
			f.warnRefusedOn(o)
		case !IsSkip(o.Kind) && o.Kind != fetch.KindRobotsDown && o.Kind != frontier.KindMalformed:
			f.crawl.LaneLogf(view.LevelWarn, l, t.Host, "%s: %s%s", o.Kind, t.URL, failNote(o.Kind))
		}
	case res.Status == http.StatusNotModified:
		if refetch {
			// M2: unchanged, and it cost no body; the stored page is kept.
			rv := f.observe(t.URL, prev, f.crawl.Now(), revisit.Outcome{NotModified: true})
			f.disc.NotModified(t.URL, rv)
			f.Store.SaveRevisit(*rv)
		}
		f.Finish(t, refetch, l, store.Processed, "")
	case res.Status/100 == 2 && res.Robots.NoIndex && f.Opts.EtiquetteFor(t.Host).PageDirectives:
		f.skipNoindex(l, t, res, prev, failed)
	case res.Status/100 == 2:
		f.savePage(l, o.Egress, t, res, prev, track, o.At, capture)
	case res.Status/100 == 3 && res.Header.Get("Location") != "":
		f.followRedirect(l, t, res, prev)
	case res.Status/100 == 4:
		f.disc.SourceFailed(t.URL)
		f.disc.FailedDocument(t, fetch.KindHTTP4xx, res.Status)
		kind := fetch.KindHTTP4xx
		// "Not there" only: a 403 or 429 on the probe is a block or a rate limit,
		// which the counts keep showing as a failure.
		if (res.Status == http.StatusNotFound || res.Status == http.StatusGone) && f.disc.Probe(t.URL) {
			kind = SkipNoSitemap
		}
		f.endUnstored(t, prev, l, failed, kind)
	case res.Status/100 == 5:
		f.disc.SourceFailed(t.URL)
		f.disc.FailedDocument(t, fetch.KindHTTP5xx, res.Status)
		f.endUnstored(t, prev, l, failed, fetch.KindHTTP5xx)
	default:
		f.endUnstored(t, prev, l, failed, "http_"+strconv.Itoa(res.Status))
	}
}

// endUnstored ends a fetch that stored no page (an error, a refusal, a redirect
// elsewhere, a 4xx/5xx, noindex). A refetch's (prev, the page's state before it)
// learned nothing, and the page gets a next due time again instead of staying parked
// (M2). That due time is written before the URL state: the store commits in batches,
// in the order written, and Requeue takes a URL it reads processed for a fetch whose
// due time it reads next; a batch ending between the two would show it processed and
// still parked, and it would be queued and fetched again at once.
func (f *Front) endUnstored(t frontier.Task, prev *revisit.Page, lane int, st store.State, kind string) {
	if prev != nil {
		f.Store.SaveRevisit(*f.observe(t.URL, prev, f.crawl.Now(), revisit.Outcome{}))
	}
	f.Finish(t, prev != nil, lane, st, kind)
}

// warnRefusedOn is the frontier side's word on a URL a worker's SSRF guard refused
// (M4): once per worker and host, as the worker's own log has the address. In one
// process the lane said it already (warnRefused), once per host, not per URL.
func (f *Front) warnRefusedOn(o lanes.Outcome) {
	if o.Node == "" {
		return
	}
	if _, warned := f.ssrfWarned.LoadOrStore(o.Node+" "+strings.ToLower(o.Task.Host), struct{}{}); warned {
		return
	}
	f.crawl.LaneLogf(view.LevelWarn, o.Lane, o.Task.Host, "worker %s: the SSRF guard refused %s (a loopback/private/reserved address, or a redirect to one), first at %s: "+
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
func (f *Front) savePage(lane int, egress string, t frontier.Task, res *fetch.Result, prev *revisit.Page, track bool, at time.Time, capture *store.Capture) {
	if at.IsZero() {
		at = f.crawl.Now()
	}
	var known []string
	doc := f.disc.Read(t, res, prev, at) // a feed or sitemap: its entries become its links
	var docKind discover.Kind
	if doc != nil {
		docKind = doc.Kind
	}
	links, maybe := f.ExtractLinks(t, res, &known, docKind)
	md := pageMeta(t, res, at)
	if doc == nil { // a feed is no result of its own; the articles it announces are
		f.collect(t, res, md.Published.Time, f.crawl.Now())
	}
	if f.isSource(t.URL) && len(known) > 0 {
		f.refetchResults(known, f.crawl.Now()) // M3: entry/search results already in the URL index
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
		f.groupStory(t, res, text, md.Published.Time, at)
	}
	hash := sig.SimHash
	if ok {
		stored.SimHash = hash
	}
	stored.Meta = storeMeta(md)
	if track {
		stored.Revisit = f.observe(t.URL, prev, stored.FetchedAt,
			revisit.Outcome{Hash: hash, OK: ok, Sig: sig, HasDigest: ok})
		f.Revisit.KeepReplacedText(t.URL, stored.Revisit)
		if doc != nil {
			f.disc.SchedulePoll(t.URL, doc, links, feeds.Listing(links, known), stored.Revisit, at)
		} else {
			f.disc.AwaitHint(t.URL, stored.Revisit)               // a page a trusted feed or sitemap dates
			f.disc.PollEntry(t, links, known, stored.Revisit, at) // a seed of a site with neither feed nor sitemap
			if prev != nil && stored.Revisit.Distance >= 0 {
				f.disc.HintOutcome(t.URL, stored.Revisit.Distance > f.Opts.Revisit.Threshold)
			} else {
				f.disc.HintDrop(t.URL)
			}
		}
	}
	if prev != nil && prev.HasHash && !ok {
		// A refetch with no usable text (an empty or garbled answer) does not replace
		// the last good copy; its state (nothing learned) is kept all the same.
		if stored.Revisit != nil {
			f.Store.SaveRevisit(*stored.Revisit)
		}
		if capture != nil {
			f.Store.SaveCapture(*capture) // the archive keeps what came, usable or not
		}
		f.SubmitLinks(links, maybe, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
		f.Finish(t, true, lane, store.Processed, "")
		return
	}
	if len(links) > 0 {
		f.crawl.LinkedFrom(frontier.Hash(t.URL), t.URL)
	}
	stored.Capture = capture
	save := f.Store.SavePage
	if prev != nil {
		save = f.Store.ReplacePage
	} else { // a refetch replaces the page: it was counted when first stored
		counted := f.OnCommit(f.Counters.PageCommitted) // counted once committed: a full disk never inflates it
		pub, fetchedAt := md.Published.Time, stored.FetchedAt
		stored.Committed = func() {
			counted()
			f.Counters.StoredAged(pub, fetchedAt)
			f.noteStored(t, pub, fetchedAt)
			f.Hosts.Stored(t.Host, SiteOf(t), egress)
		}
	}
	if prev != nil && f.isSource(t.URL) {
		f.sourceFetched(t.Site, stored.FetchedAt) // the Sites pane's last round
	}
	if len(links) == 0 {
		save(stored, nil, nil)
	} else {
		f.SubmitLinks(links, maybe, func(u []store.URL, done store.LinkResult) { save(stored, u, done) })
	}
}

// skipNoindex ends a page that asked not to be indexed (meta robots or X-Robots-Tag
// noindex): it is not stored, and counts as skipped with kind "noindex"; its links
// are still queued unless it also said nofollow (extract), as "noindex" alone allows.
// A page stored by an earlier fetch keeps that copy (the URL stays processed).
func (f *Front) skipNoindex(lane int, t frontier.Task, res *fetch.Result, prev *revisit.Page, st store.State) {
	if links, maybe := f.Extract(t, res, nil); len(links) > 0 {
		f.SubmitLinks(links, maybe, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
	}
	f.endUnstored(t, prev, lane, st, fetch.KindNoindex)
}

// followRedirect queues a cross-host redirect's target as a new task (the fetcher
// follows same-host hops itself, paced) and records the redirecting URL as done.
func (f *Front) followRedirect(lane int, t frontier.Task, res *fetch.Result, prev *revisit.Page) {
	links, maybe := f.Extract(t, &fetch.Result{FinalURL: res.FinalURL, Links: []string{res.Header.Get("Location")}}, nil)
	f.SubmitLinks(links, maybe, func(u []store.URL, done store.LinkResult) { f.Store.AddURLs(u, done) })
	f.endUnstored(t, prev, lane, store.Processed, "")
	f.Counters.AddError("redirected") // not a failure: counted so the operator sees where pages went
}

// Finish records a task that ended without a stored page. A refetch (M2) is not a
// URL done: it was counted when first fetched.
func (f *Front) Finish(t frontier.Task, refetch bool, lane int, st store.State, kind string) {
	f.Store.SetState(t.URL, st, lane, kind)
	f.disc.HintDrop(t.URL)
	if kind != "" {
		f.Counters.AddError(kind)
		f.Counters.Example(kind, t.URL)
		f.Hosts.Record(hostreport.Ending{Host: t.Host, Site: SiteOf(t), Kind: kind, Skip: IsSkip(kind)})
	}
	if !refetch {
		done := f.OnCommit(f.Counters.URLDone)
		f.Store.AfterCommit(func(err error) { // the store stops the crawl on an error
			if err == nil {
				done()
			}
		})
	}
}

// failNote says in words what a failure kind the name alone leaves unclear means,
// for the log line that names the URL ("" for the others).
func failNote(kind string) string {
	if kind == fetch.KindHeadersTooLarge {
		return " (the server sent over " + strconv.Itoa(egress.MaxResponseHeaderBytes>>20) + " MiB of response headers: not read further)"
	}
	return ""
}
