package store

import (
	neturl "net/url"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/store/internal/bodycodec"
)

// The write methods queue an operation for the writer and return at once (they block
// only when Options.QueueSize operations are already waiting). Operations are applied
// in submission order; Flush waits for them, Err reports the first that failed.

// submit queues op; after Close it records ErrClosed instead (writes never panic).
func (s *Store) submit(op *writeOp) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.readOnly {
		s.w.setErr(ErrReadOnly)
		return false
	}
	if s.closed {
		s.w.setErr(ErrClosed)
		return false
	}
	s.w.ops <- op
	return true
}

// linkOutcome is one AddURLs/SavePage link result, reported after the commit.
type linkOutcome struct {
	url      string
	inserted bool
	seq      int64
}

// insertURLs inserts urls that are not known yet, with the given state, and collects
// what happened to each. The unique index decides, so a URL repeated inside one call
// or one batch is inserted once and reported new once.
func (w *writer) insertURLs(urls []URL, st State, now int64, out []linkOutcome) ([]linkOutcome, error) {
	for i := range urls {
		u := &urls[i]
		if err := w.writeStart(u.URL); err != nil {
			return out, err
		}
		res, err := w.execSparse(w.st.insertURL, u.URL, u.Host, int64(u.ParentHash), u.Depth,
			u.Class, u.Site, u.Keyword, int(st), u.Lane, now)
		if err != nil {
			return out, err
		}
		o := linkOutcome{url: u.URL}
		if n, _ := res.RowsAffected(); n == 1 {
			o.inserted = true
			o.seq, _ = res.LastInsertId() // seq is the rowid
			w.rememberURL(u.URL, o.seq)
		}
		out = append(out, o)
	}
	return out, nil
}

// reportLinks turns outcomes into a post-commit callback.
func reportLinks(done LinkResult, out []linkOutcome) func() {
	if done == nil {
		return nil
	}
	return func() {
		for _, o := range out {
			done(o.url, o.inserted, o.seq)
		}
	}
}

// AddURLs queues urls for insertion as Unprocessed; a URL already in the store is left
// as it is. Seq is assigned by the store. done (may be nil) reports per URL, after the
// commit, whether it was new.
func (s *Store) AddURLs(urls []URL, done LinkResult) {
	urls = slices.Clone(urls) // the caller may reuse its slice once we return
	key := ""
	if len(urls) > 0 {
		key = urls[0].URL
	}
	s.submit(&writeOp{what: "add URLs", key: key, apply: func(w *writer) (func(), error) {
		out, err := w.insertURLs(urls, Unprocessed, time.Now().UnixNano(), make([]linkOutcome, 0, len(urls)))
		if err != nil {
			return nil, err
		}
		return reportLinks(done, out), nil
	}})
}

// SetState queues a state change for url, recording the lane it was given and the
// error kind (empty to clear it). Going InProgress counts an attempt. An unknown url
// is ignored.
func (s *Store) SetState(url string, st State, lane int, errKind string) {
	s.submit(&writeOp{what: "set state", key: url, apply: func(w *writer) (func(), error) {
		if st == InProgress {
			return nil, w.holdStart(url, startMark{lane: lane, errKind: errKind, at: nowNanos()})
		}
		if err := w.writeStart(url); err != nil {
			return nil, err
		}
		_, err := w.exec(w.st.setState, int(st), lane, errKind, nowNanos(), url)
		return nil, err
	}})
}

// SetInProgress queues marking each of urls in progress, as SetState(url,
// InProgress, 0, "") does, in one write: a restarted master's rejoin takes back up to
// thousands of claims under the engine's lock, and a write each could fill the
// store's queue while the writer's callbacks wait for that lock.
func (s *Store) SetInProgress(urls []string) {
	if len(urls) == 0 {
		return
	}
	urls = slices.Clone(urls)
	s.submit(&writeOp{what: "set in progress", key: urls[0], apply: func(w *writer) (func(), error) {
		at := nowNanos()
		for _, u := range urls {
			if err := w.holdStart(u, startMark{at: at}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}})
}

// Defer queues setting url aside until the given time (M3: a disabled host's URLs are
// deferred, never lost); Queued hands it out again once that time has passed.
func (s *Store) Defer(url string, until time.Time) { s.DeferAs(url, until, "") }

// DeferAs is Defer for a URL set aside for a reason kept with it as its err_kind
// (robots_unreachable: its site's robots.txt did not answer; KindRobotsHeld; ""
// for none), so that the next start can tell why it waits (Open: a robots.txt wait
// is not kept).
func (s *Store) DeferAs(url string, until time.Time, kind string) {
	s.submit(&writeOp{what: "defer", key: url, apply: func(w *writer) (func(), error) {
		if err := w.writeStart(url); err != nil {
			return nil, err
		}
		_, err := w.exec(w.st.deferURL, nanos(until), kind, time.Now().UnixNano(), url)
		return nil, err
	}})
}

// KindRobotsHeld is the err_kind of a URL set aside because its site's robots.txt
// redirects to a host the operator holds. Like robots_unreachable's, its wait is
// not kept (Open): the run that set it aside brings it back as the hold ends, but
// the next start knows it only by its time, up to etiquette.robots_retry away.
// Due at that start, its robots.txt is asked again: still redirecting to the held
// host, it is set aside behind that host anew, and the hold's end brings it back.
const KindRobotsHeld = "robots_held"

// Undefer queues making url due at now if it is still set aside (a host enabled
// again). A URL fetched, failed or queued since it was deferred keeps its state:
// Defer would set it aside once more and have it fetched again.
func (s *Store) Undefer(url string, now time.Time) {
	s.submit(&writeOp{what: "undefer", key: url, apply: func(w *writer) (func(), error) {
		if err := w.writeStart(url); err != nil {
			return nil, err
		}
		_, err := w.exec(w.st.undeferURL, nanos(now), time.Now().UnixNano(), url)
		return nil, err
	}})
}

// UndeferHost queues making due at now every URL of host still set aside with no
// kind kept (a disable, a refusal's wait): a host enabled again gets back the URLs
// an earlier run of the crawl deferred, which the run enabling it does not know of.
// Those set aside for a reason kept with them (a robots.txt wait) keep their time.
func (s *Store) UndeferHost(host string, now time.Time) {
	s.submit(&writeOp{what: "undefer host", key: host, apply: func(w *writer) (func(), error) {
		_, err := w.execSQL(`UPDATE urls SET deferred_until = ?, updated_at = ?
			WHERE state = 4 AND host = ? AND err_kind = '' AND deferred_until > ?`,
			nanos(now), time.Now().UnixNano(), host, nanos(now))
		return nil, err
	}})
}

// SavePage queues storing a fetched page. In ONE transaction: the page is inserted
// unless already stored (a page is never stored twice, e.g. when a crash made the
// engine fetch it again), its URL becomes Processed (and is added if it was unknown),
// its revisit state (Page.Revisit, M2) is stored if given, and the links found on it
// are added as Unprocessed. done (may be nil) reports, after the commit, which links
// were new. The body is compressed on the caller's goroutine.
func (s *Store) SavePage(p Page, links []URL, done LinkResult) {
	s.queuePage(p, links, done, false)
}

// ReplacePage is SavePage for a refetch (M2 revisit): the stored page is overwritten
// with the new fetch instead of kept.
func (s *Store) ReplacePage(p Page, links []URL, done LinkResult) {
	s.queuePage(p, links, done, true)
}

// pageWrite is a queued page write's copy of the page, its capture and its revisit
// state, taken off the caller's in one allocation instead of one each.
type pageWrite struct {
	p  Page
	c  Capture
	rv Revisit
}

func (s *Store) queuePage(page Page, links []URL, done LinkResult, replace bool) {
	pw := &pageWrite{p: page}
	p := &pw.p
	body, codec := bodycodec.Compress(p.Body)
	size := p.Bytes
	if size == 0 {
		size = int64(len(p.Body))
	}
	var capture *Capture
	var captureBody []byte
	if p.Capture != nil {
		pw.c = *p.Capture
		pw.c.Body = p.Body
		captureBody, _ = prepareCapture(&pw.c, body, codec)
		capture = &pw.c
		p.Capture = nil
	}
	p.Body = nil
	committed := p.Committed
	p.Committed = nil
	if p.Revisit != nil {
		pw.rv = *p.Revisit
		pw.rv.Policy = slices.Clone(pw.rv.Policy)
		p.Revisit = &pw.rv
	}
	links = slices.Clone(links)
	s.submit(&writeOp{what: "save page", key: p.URL, apply: func(w *writer) (func(), error) {
		now := time.Now().UnixNano()
		mark := w.st.markFetched
		if _, started := w.takeStart(p.URL); started {
			mark = w.st.markFetchedStarted // the held InProgress mark's attempt, counted here
		}
		id, err := w.nextPageID()
		if err != nil {
			return nil, err
		}
		var row [2]int64 // the URL's seq and its stored page's id (0: none)
		var found bool
		row[0], row[1], found, err = w.findURL(p.URL)
		if err != nil {
			return nil, err
		}
		w.forgetURL(p.URL) // its row's page is set below, whichever way
		if found {
			// Without a stored page, the row takes id, the page's about to be inserted.
			if err := w.write(mark, p.Lane, now, row[0], id); err != nil {
				return nil, err
			}
		} else {
			// A page for a URL the store never saw (e.g. a seed the engine did not
			// add first): record the URL too, so pages.url always has its urls row.
			self := []URL{{URL: p.URL, Host: hostOf(p.URL), Lane: p.Lane}}
			out, err := w.insertURLs(self, Processed, now, make([]linkOutcome, 0, 1))
			if err != nil {
				return nil, err
			}
			w.forgetURL(p.URL)
			if err := w.write(w.st.setURLPage, id, out[0].seq); err != nil {
				return nil, err
			}
			row[0] = out[0].seq
		}
		stored := row[1]
		// A page is stored once per URL (a fetch again after a crash keeps the first);
		// a replacement overwrites the stored row in place.
		pageWritten := stored == 0 || replace
		if pageWritten {
			args := append(make([]any, 0, 29), p.URL, nanos(p.FetchedAt), p.Status, p.ContentType,
				size, len(body), codec, body, p.Duration.Milliseconds(), p.Lane, p.Egress, p.ETag,
				p.LastModified, int64(p.SimHash), p.FinalURL)
			args = appendMetaArgs(args, p.Meta)
			if stored == 0 {
				if err := w.write(w.st.insertPage, append(args, id)...); err != nil {
					return nil, err
				}
				w.pageID = id
			} else {
				// The capture sharing the body about to be replaced keeps a copy of
				// it (unless the new body is the same: then it still matches).
				digest := ""
				if capture != nil {
					digest = capture.PayloadDigest
				}
				if err := w.write(w.st.captureOwn, p.URL, digest, stored, row[0]); err != nil {
					return nil, err
				}
				if err := w.write(w.st.replacePage, append(args, stored)...); err != nil {
					return nil, err
				}
			}
		}
		if p.Revisit != nil {
			var seq int64 // the page's URL's row, when the state is the page's
			if p.Revisit.URL == p.URL {
				seq = row[0]
			}
			if err := w.upsertRevisit(p.Revisit, seq); err != nil {
				return nil, err
			}
		}
		if capture != nil {
			// Stored with the page's body when the page row now holds it under the
			// same URL (not after redirects: the capture is the final hop's); a page
			// already stored (a fetch again after a crash) keeps its first body.
			inPage := pageWritten && capture.URL == p.URL
			var seq int64 // the capture's URL's row: the page's, or looked up (after redirects)
			if capture.URL == p.URL {
				seq = row[0]
			}
			if err := w.insertCapture(capture, captureBody, codec, inPage, seq); err != nil {
				return nil, err
			}
		}
		out, err := w.insertURLs(links, Unprocessed, now, make([]linkOutcome, 0, len(links)))
		if err != nil {
			return nil, err
		}
		report := reportLinks(done, out)
		if committed == nil {
			return report, nil
		}
		return func() {
			committed()
			if report != nil {
				report()
			}
		}, nil
	}})
}

// AfterCommit queues fn to run once everything submitted before it is committed:
// the master of a distributed crawl acknowledges a worker's result with it (M4: ack
// after commit). fn runs on the writer's goroutine like a LinkResult (it must not
// block or call Flush) and gets the store's first write error (Err): a write that
// failed is rolled back alone, so a non-nil error means something submitted so far
// may not be stored.
func (s *Store) AfterCommit(fn func(err error)) {
	s.submit(&writeOp{what: "after commit", apply: func(w *writer) (func(), error) {
		return func() { fn(w.firstErr()) }, nil
	}})
}

// Flush is a barrier: it returns once everything submitted before it is committed,
// with the first write error so far (sticky, as Err). It must not be called from a
// LinkResult.
func (s *Store) Flush() error {
	op := &writeOp{barrier: make(chan struct{})}
	if !s.submit(op) {
		if s.readOnly {
			return ErrReadOnly
		}
		return ErrClosed
	}
	<-op.barrier
	return s.w.firstErr()
}

// Err is the first write error, if any; writes never panic.
func (s *Store) Err() error { return s.w.firstErr() }

// Failed is closed at the first write that failed (disk full, I/O error, a
// constraint): from then on the store and its caller's memory may disagree, so the
// engine stops fetching on it and Err says why. What was committed stays
// committed; the failed batch was rolled back whole (SQLite's atomic commit). Writes
// refused after Close or on a read-only store do not close it; on a read-only store it
// is nil (never ready).
func (s *Store) Failed() <-chan struct{} { return s.w.failed }

// hostOf is the host of rawURL, "" when it does not parse.
func hostOf(rawURL string) string {
	u, err := neturl.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
