package front

import (
	"fmt"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// queueState tracks which queued URLs live in memory. Every queued URL is in the
// store (state unprocessed); memory holds at most Options.QueueMemory of them. When
// memory is full, newly confirmed URLs stay only in the store ("spilled") and are
// paged in, in seq order, as the lanes drain the queue.
type queueState struct {
	spillFrom   int64 // 0: all queued URLs are in memory; else seq >= spillFrom wait in the store
	maxSpilled  int64 // highest seq left in the store while spilled
	ignoreBelow int64 // insert confirmations below this seq were already loaded from the store
	refilling   bool
}

// Spilled reports whether queued URLs wait in the store for room in memory. Lock held.
func (f *Front) Spilled() bool { return f.q.spillFrom != 0 }

// SpilledCount estimates how many queued URLs wait in the store. Lock held.
func (f *Front) SpilledCount() int {
	if f.q.spillFrom == 0 {
		return 0
	}
	return int(f.q.maxSpilled - f.q.spillFrom + 1)
}

// Settled reports whether nothing waits in the store and no insert or other
// store write is on its way. Lock held.
func (f *Front) Settled() bool { return f.q.spillFrom == 0 && f.outstanding == 0 }

// Busy reports whether a write the crawl waits for is on its way (a link insert, a
// counted commit, a seed list) or a withdrawn source has not ended yet (waiting
// for its flush, or being ended by one), or revisits are claimed and not placed
// yet (a round's, a hint's, steering's requeue: their write on its way, their
// tasks in no queue): the crawl is not idle. Lock held.
func (f *Front) Busy() bool {
	return f.outstanding != 0 || len(f.out.pending) > 0 || f.out.ending > 0 || f.claimed > 0
}

// AddOutstanding counts writes on their way (d > 0) or arrived (d < 0), as a seed
// list open for more counts as one. Lock held.
func (f *Front) AddOutstanding(d int) { f.outstanding += d }

// queuedLen is how many queued tasks wait in memory: on the lane board, or at the
// master for its workers. Lock held.
func (f *Front) queuedLen() int {
	waiting, _ := f.crawl.Counts()
	return waiting
}

// Resume loads what an earlier run left unprocessed (in-progress URLs were put back
// by store.Open) so the crawl goes on where it stopped.
func (f *Front) Resume() error {
	rows, err := f.Store.Queued(f.crawl.Now(), 0, f.Opts.QueueMemory)
	if err != nil {
		return err
	}
	// What an earlier run left waiting (queued, or deferred and parked, due later)
	// is taken by this run as what it discovers is: counted among the URLs queued,
	// or the URLs done of them would outrun it and the header read 100% done with
	// the resumed queue still waiting.
	c, err := f.Store.Counts()
	if err != nil {
		return err
	}
	f.Counters.URLsQueued.Add(c.Unprocessed + c.Deferred)
	f.undefer(rows)
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.loadRows(rows, 0, f.Opts.QueueMemory)
	if len(rows) > 0 {
		f.crawl.Logf(view.LevelInfo, "", "resuming %d queued URLs from %s", len(rows), f.Store.Path())
	}
	return nil
}

// undefer marks the deferred rows of rows (due: Queued reads those too) unprocessed
// in the store before loadRows places them, as the deferrals' requeue does: left
// deferred until a lane takes it, a row is found due by the requeue's next look at
// the store and placed again, and its URL fetched and counted done twice. Called
// without the lock: a write may wait for room in the store's queue, whose writer
// may be waiting for the lock.
func (f *Front) undefer(rows []store.URL) {
	for _, r := range rows {
		if r.State == store.Deferred {
			f.Store.SetState(r.URL, store.Unprocessed, 0, "")
		}
	}
}

// loadRows places rows read from the store (undefer first) and updates the spill
// window. Lock held.
func (f *Front) loadRows(rows []store.URL, from int64, limit int) {
	last := from
	for _, r := range rows {
		last = r.Seq
		f.Place(TaskOf(r))
	}
	if len(rows) >= limit || f.q.maxSpilled > last {
		f.q.spillFrom = last + 1
	} else {
		f.q.spillFrom, f.q.maxSpilled = 0, 0
	}
	f.q.ignoreBelow = max(f.q.ignoreBelow, last+1)
}

// TaskOf is the task of a URL row read from the store.
func TaskOf(r store.URL) frontier.Task {
	return frontier.Task{Seq: r.Seq, URL: r.URL, Host: r.Host, ParentHash: r.ParentHash, Depth: r.Depth,
		Class: r.Class, Site: r.Site, Keyword: r.Keyword, Attempts: r.Attempts}
}

// QueueSeeds normalises the seeds and hands them to the store with the sites'
// entry and search URLs (M3: sources, with their site and keyword). Bad seeds are
// reported and skipped; the crawl needs at least one good seed, a site, or resumable
// work.
func (f *Front) QueueSeeds(seeds []string, sources []revisit.Item) error {
	var urls []store.URL
	var bad []string
	for _, it := range sources {
		f.Scope.AddSeed(it.URL)
		r := f.LinkRecord(it.URL, 0, 0)
		r.Site, r.Keyword = it.Site, it.Keyword
		urls = append(urls, r)
	}
	for _, s := range seeds {
		n, err := frontier.Normalize(strings.TrimSpace(s))
		if err != nil {
			f.Counters.AddError(URLErrKind(err))
			f.Counters.Example(URLErrKind(err), s)
			f.crawl.Logf(view.LevelWarn, "", "seed skipped: %v", err)
			bad = append(bad, err.Error()) // the URL cut, with why
			continue
		}
		f.Scope.AddSeed(n)
		urls = append(urls, f.LinkRecord(n, 0, 0))
	}
	f.Mu.Lock()
	// A master's queue is its units' (the board has none), and what it handed out
	// before a restart waits for its workers' claims.
	waiting, out := f.crawl.Counts()
	resumable := waiting+out > 0 || f.q.spillFrom != 0
	f.Mu.Unlock()
	if !resumable && f.Opts.Revisit.Enabled {
		// M2: a crawl whose discovery ran dry still keeps its pages fresh; started
		// again on its database alone (a master restarted while IDLE between
		// revisits), it goes on with them rather than refusing "nothing to crawl".
		// Only a page due some day counts: one parked for good (revisit.Never, its
		// class window closed) is never fetched again, and a store of those alone
		// would start and idle.
		due, err := f.Store.RevisitQueue(1, revisit.Never)
		if err != nil {
			return fmt.Errorf("resume: the revisit queue unreadable: %w", err)
		}
		resumable = len(due) > 0
	}
	if resumable && len(seeds) == 0 {
		// Resumed on its database alone (after a kill -9, say): the scope is the
		// sites of the seeds it was started with, or every link would be off-site.
		hosts, err := f.Store.SeedHosts()
		if err != nil {
			return fmt.Errorf("resume: the seeds' hosts unreadable: %w", err)
		}
		for _, h := range hosts {
			f.Scope.AddSeed("http://" + h + "/")
		}
	}
	if len(urls) == 0 && !resumable {
		if len(bad) > 0 {
			return &SeedError{Bad: bad}
		}
		if len(seeds) == 0 {
			return &SeedError{}
		}
	}
	// Seeds go to the store whatever the dedupe says (the store knows them on a
	// resume); recording them lets the links back to them stop at the dedupe.
	seen := make([]string, len(urls))
	for i, u := range urls {
		seen[i] = u.URL
	}
	f.Dedupe.CheckURLs(seen)
	f.Submit(urls, f.Store.AddURLs)
	return nil
}

// SeedError says no usable seed was given.
type SeedError struct {
	Bad []string // why each seed was refused, its URL cut to a recognisable length
}

// seedErrorsShown is how many refused seeds SeedError names; the rest are counted.
const seedErrorsShown = 3

func (e *SeedError) Error() string {
	if len(e.Bad) == 0 {
		return "nothing to crawl: give seed URLs as arguments or with --seeds FILE (or resume a --db with queued URLs)"
	}
	shown := e.Bad[:min(len(e.Bad), seedErrorsShown)]
	more := ""
	if n := len(e.Bad) - len(shown); n > 0 {
		more = fmt.Sprintf("; and %d more", n)
	}
	return "no usable seed: every seed was refused: " + strings.Join(shown, "; ") + more +
		" (a seed is an absolute http or https URL of at most " + fmt.Sprint(frontier.MaxURLLength) + " bytes)"
}

// URLErrKind is the error kind a URL that did not normalise is counted under.
func URLErrKind(err error) string {
	if ue, ok := err.(*frontier.URLError); ok {
		return ue.Kind
	}
	return "malformed_url"
}

// LinkRecord builds the store row for a URL found on a page (parent hash of that
// page's URL, one level deeper) or a seed (parent 0, depth 0).
func (f *Front) LinkRecord(n string, parent uint64, depth int) store.URL {
	host := HostOf(n)
	site, class := f.Classify(host) // M3: results and costs are counted per declared site
	return store.URL{URL: n, Host: host, ParentHash: parent, Depth: depth, Class: class, Site: site}
}

// Submit hands URLs to the store (write) and, as the store reports each one new,
// queues it. Inserts not yet confirmed count as outstanding, so the crawl is not
// called idle while links are on their way into the queue.
func (f *Front) Submit(urls []store.URL, write func([]store.URL, store.LinkResult)) {
	f.submit(urls, nil, false, write)
}

// SubmitLinks is Submit for the rows of a page's links with their Claims (Extract):
// each claimed URL that this write inserts as new is a Bloom false positive the
// store rescued, counted once, by the batch that carried the claim, unless a batch
// that found it New is still on its way (that batch's insert, ignored, is the
// link's first). Every row Extract returned must come here: the others are those
// New verdicts, which are on their way until their insert comes back.
func (f *Front) SubmitLinks(urls []store.URL, maybe Claims, write func([]store.URL, store.LinkResult)) {
	f.submit(urls, maybe, true, write)
}

// submit is Submit, and SubmitLinks when links (the rows are Extract's).
func (f *Front) submit(urls []store.URL, maybe Claims, links bool, write func([]store.URL, store.LinkResult)) {
	if len(urls) == 0 {
		return
	}
	byURL := make(map[string]int, len(urls))
	for i, u := range urls {
		byURL[u.URL] = i
	}
	f.Mu.Lock()
	f.outstanding += len(urls)
	f.Mu.Unlock()
	write(urls, func(u string, inserted bool, seq int64) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.outstanding--
		_, claimed := maybe[u]
		if links && !claimed { // a New verdict's insert is back
			if n := f.fresh[u] - 1; n > 0 {
				f.fresh[u] = n
			} else {
				delete(f.fresh, u)
			}
		}
		if inserted {
			if claimed && f.fresh[u] == 0 {
				f.Counters.DedupeFalsePositives.Add(1)
			}
			r := urls[byURL[u]]
			r.Seq = seq
			f.confirm(TaskOf(r))
		}
		f.crawl.CheckIdle()
	})
}

// confirm queues a URL the store has just inserted as new. Lock held.
func (f *Front) confirm(t frontier.Task) {
	if t.Seq < f.q.ignoreBelow {
		return // already paged in from the store
	}
	if len(f.early) > 0 && !f.confirmEarly(t) {
		return // an operator's new source, on the board since the command
	}
	f.Counters.URLsQueued.Add(1)
	if f.q.spillFrom != 0 || f.queuedLen() >= f.Opts.QueueMemory {
		if f.q.spillFrom == 0 {
			f.q.spillFrom = t.Seq
		}
		f.q.maxSpilled = max(f.q.maxSpilled, t.Seq)
		return
	}
	f.Place(t)
}

// Place puts a task on a lane by the M1 rule (or leaves it pending), unless
// steering withdrew it or a page budget holds it back. Lock held.
func (f *Front) Place(t frontier.Task) {
	f.placed.Add(1)
	if f.SteeredOut(t) { // its keyword or site was removed while it waited
		return
	}
	if !f.admit(&t) { // a page budget holds it back until the next round (budget.go)
		return
	}
	f.crawl.Place(t)
}

// StartRefill pages spilled URLs in from the store when memory has room. Lock held.
func (f *Front) StartRefill() {
	if f.q.spillFrom == 0 || f.q.refilling || f.queuedLen() >= f.Opts.QueueMemory/2 || f.crawl.Stopping() {
		return
	}
	from := f.q.spillFrom
	f.q.refilling = f.crawl.Go(func() {
		limit := f.Opts.QueueMemory / 2
		err := f.Store.Flush() // everything confirmed so far is committed and visible
		var rows []store.URL
		if err == nil {
			rows, err = f.Store.Queued(f.crawl.Now(), from-1, limit)
		}
		f.undefer(rows)
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.q.refilling = false
		if err != nil {
			f.crawl.Logf(view.LevelError, "", "paging queued URLs in from the store: %v", err)
			return
		}
		f.loadRows(rows, from-1, limit)
		f.crawl.CheckIdle()
	})
}

// Placing marks a task on its way to its crew's queue (by the M1 rule on a lane
// board, or to a master's unit): a queued revisit is counted as placed, an
// operator's new source becomes urgent (its lane's next fetch), and an article a
// discovery read just listed goes ahead of its lane's due reads. Lock held.
func (f *Front) Placing(t frontier.Task) frontier.Task {
	f.marks.Placed(t.URL)
	if f.TakeUrgent(t.URL) {
		t.Urgent = true
	}
	if !t.Urgent && !t.Ahead && !f.marks.Queued(t.URL) && f.disc.TakeAhead(t.URL) {
		t.Ahead = true
	}
	return t
}
