package steer

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Crawl is what steering needs of the crawl it steers (the engine implements it):
// the site book it swaps, the store's meta table, and the queue and budget
// operations a change leads to.
type Crawl interface {
	// Sites is the site book in force; SetSites swaps in the next one.
	Sites() *sites.Book
	SetSites(*sites.Book)
	// Now is the crawl's clock.
	Now() time.Time
	// Logf records an event in the crawl's log.
	Logf(level view.Level, format string, args ...any)
	// Kept records an event the store keeps whatever its level: an operator's
	// change, accepted or refused, is the crawl's audit trail.
	Kept(level view.Level, format string, args ...any)
	// Meta reads a key of the store's meta table; SetMeta writes one.
	Meta(key string) ([]byte, error)
	SetMeta(key string, data []byte)

	// CheckTarget applies the SSRF policy to a URL's host before it is queued, so
	// that an operator learns at once that it would never be fetched.
	CheckTarget(rawURL string) error
	// AddScope takes a URL's host into the crawl's scope, as a seed's.
	AddScope(u string)
	// QueueSeed queues a new seed (normalised) as its lane's next fetch. Its error
	// is the operator's answer: the crawl has the URL already, or the store failed.
	QueueSeed(u string) error
	// QueueSources queues entry and search URLs now, new or known, each as its
	// lane's next fetch; it returns how many went.
	QueueSources(items []revisit.Item) int
	// StartRounds starts the rounds over the sites unless they run already.
	StartRounds()
	// KeepSources forgets earlier withdrawals of sources added back, and writes
	// their end first so that QueueSources sees them finished.
	KeepSources(items []revisit.Item)
	// Withdraw takes sources out of the queue (wherever they wait) and keeps them
	// out; it returns how many were withdrawn now.
	Withdraw(items []revisit.Item) int
	// MarkOut keeps URLs out of the queue from now on, without looking for them:
	// the replay at start, before the queue is resumed.
	MarkOut(urls []string)
	// Unended are those of urls the store holds and has not ended (withdrawn by
	// steering, or failed).
	Unended(urls []string) ([]string, error)
	// RestoreDiscovery reads again (due now when live) the parked feeds and
	// sitemaps of the hosts the site book after gives the site just added, and
	// those no removal holds any more. WithdrawDiscovery stops reading those of
	// the hosts the book before gave the site just removed, leaving its sibling
	// sites' alone, and returns how many queued ones it withdrew.
	RestoreDiscovery(site string, after *sites.Book, live bool)
	WithdrawDiscovery(site string, before *sites.Book, live bool) int
	// SetSiteBudget sets a declared site's pages per round (a site added with one).
	SetSiteBudget(site string, n int)
	// SetBudget sets the page budget c to n (0: no cap) and returns how many URLs
	// it held back come back, and how many queued ones it recalled to count again
	// (a budget lowered). live is false while replaying at start.
	SetBudget(c Cap, n int, live bool) (back, recalled int, err error)
	// KnowsHost tells whether the crawl has seen host: a seed on it, or a URL of it
	// in the store (Control.KnowsHost).
	KnowsHost(host string) (bool, error)
}

// Cap names one page budget: a site's (a declared site's name or a registered
// domain) or a host's, per round or in total.
type Cap struct {
	Host  bool   // Name is a host; else a site
	Name  string // the site or host
	Total bool   // pages over the whole crawl; else per round
}

// Steerer makes steering changes one at a time and keeps them in the store.
type Steerer struct {
	c      Crawl
	rounds config.RoundOptions // what a site added live is validated with

	mu  sync.Mutex // one change at a time: each builds on the site book the last left
	log Log
}

// New returns the steering of crawl c; rounds are the crawl's round options.
func New(c Crawl, rounds config.RoundOptions) *Steerer {
	return &Steerer{c: c, rounds: rounds}
}

// Apply makes one change while the crawl runs, keeps it in the store, and says what
// happened. Nothing changes when it returns an error.
func (r *Steerer) Apply(s Change) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.At = r.c.Now()
	before := r.c.Sites()
	msg, err := r.apply(&s, true)
	if err != nil {
		// Kept in the log and the store as the accepted ones are: the console's
		// status line is cut at the terminal's width and gone at the next key.
		r.c.Kept(view.LevelInfo, "steering refused: %s: %v", s.String(), err)
		return "", err
	}
	r.log.keep(s, before, r.c.Sites())
	r.save()
	r.c.Kept(view.LevelInfo, "steering: %s", msg)
	return msg, nil
}

// Replay applies the changes an earlier run made, before the seeds and sources are
// queued (the engine's Start). A change that no longer applies (the config now
// declares the site itself, say) is skipped with a warning and left out of the
// list; the rest stand, folded as they are kept (Log).
func (r *Steerer) Replay() {
	data, err := r.c.Meta(Meta)
	if err != nil || len(data) == 0 {
		return
	}
	var log []Change
	if err := json.Unmarshal(data, &log); err != nil {
		r.c.Logf(view.LevelWarn, "steering changes of an earlier run unreadable, ignored: %v", err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range log {
		before := r.c.Sites()
		if _, err := r.apply(&log[i], false); err != nil {
			r.c.Logf(view.LevelWarn, "steering change %q of an earlier run no longer applies, dropped from the list: %v", log[i].String(), err)
			continue
		}
		r.log.keep(log[i], before, r.c.Sites())
	}
	if n := len(r.log.changes); n > 0 {
		r.c.Logf(view.LevelInfo, "%d steering changes of earlier runs applied (sites, keywords, budgets, seeds)", n)
	}
	r.restoreOut()
	if len(r.log.changes) < len(log) {
		r.save() // folded: the next start replays the shorter list
	}
	r.saveOut()
}

// Len is how many changes the list holds (folded).
func (r *Steerer) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log.changes)
}

// Outs is how many sources withdrawn by folded changes are kept for the next start.
func (r *Steerer) Outs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log.outs)
}

// save writes the list of changes to the store, and the sources withdrawn by
// changes folded out of it. Caller holds r.mu.
func (r *Steerer) save() {
	if data, err := json.Marshal(r.log.changes); err == nil {
		r.c.SetMeta(Meta, data)
	}
	r.saveOut()
}

// restoreOut marks at start the sources folded rms withdrew in earlier runs (after
// the replay, before the queue is resumed), but those the sites have again and those
// the store shows ended (withdrawn, failed) or does not have. Caller holds r.mu.
func (r *Steerer) restoreOut() {
	l := &r.log
	if data, err := r.c.Meta(OutMeta); err == nil && len(data) > 0 {
		var list []string
		if err := json.Unmarshal(data, &list); err != nil {
			r.c.Logf(view.LevelWarn, "withdrawn sources of an earlier run unreadable, ignored: %v", err)
		}
		for _, u := range list {
			if l.outs == nil {
				l.outs = map[string]bool{}
			}
			l.outs[u] = true
		}
	}
	if len(l.outs) == 0 {
		return
	}
	book := r.c.Sites()
	var cands []string
	for u := range l.outs {
		if !book.IsSource(u) {
			cands = append(cands, u)
		}
	}
	open, err := r.c.Unended(cands)
	if err != nil {
		r.c.Logf(view.LevelWarn, "withdrawn sources: store: %v (kept withdrawn)", err)
		open = cands
	}
	kept := make(map[string]bool, len(open))
	for _, u := range open {
		kept[u] = true
	}
	l.outsChanged = l.outsChanged || len(kept) != len(l.outs)
	l.outs = kept
	r.c.MarkOut(open)
}

// saveOut writes the withdrawn sources when they changed. Caller holds r.mu.
func (r *Steerer) saveOut() {
	l := &r.log
	if !l.outsChanged {
		return
	}
	list := make([]string, 0, len(l.outs))
	for u := range l.outs {
		list = append(list, u)
	}
	slices.Sort(list)
	if data, err := json.Marshal(list); err == nil {
		r.c.SetMeta(OutMeta, data)
		l.outsChanged = false
	}
}

// dropSources withdraws the sources of site that book old had and next lacks (a
// keyword or the site removed). Replaying at start (live false) it only marks them:
// the replay runs before the queue is resumed, so they are withdrawn as they are
// loaded, unless a later change of the list added them back. It returns how many
// were withdrawn.
func (r *Steerer) dropSources(old, next *sites.Book, site string, live bool) int {
	var gone []revisit.Item
	for _, it := range old.SourcesOf(site, "") {
		if !next.IsSource(it.URL) {
			gone = append(gone, it)
		}
	}
	if live {
		return r.c.Withdraw(gone)
	}
	urls := make([]string, len(gone))
	for i, it := range gone {
		urls[i] = it.URL
	}
	r.c.MarkOut(urls)
	return 0
}

// queuedNote says how many of a steering change's sources were queued, and that the
// others already were (in the queue or a lane's hand: a site added back while its
// entry was being fetched), rather than a bare "0 queued" that reads as a failure.
func queuedNote(queued, of int, what string) string {
	note := fmt.Sprintf("%d %s URLs queued", queued, what)
	if rest := of - queued; rest > 0 {
		note += fmt.Sprintf(" (%d already in the queue or being fetched)", rest)
	}
	return note
}
