package feeds

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Dates as hints: a page whose date a trusted feed or sitemap moved is refetched, and
// what the refetch finds teaches the site's Trust whether its dates can be believed.

// hintDueIfOlder makes due now the stored pages of dated whose last fetch is older
// than the date their site's feed or sitemap gives them: they changed since. A page
// not stored yet (a new entry, queued as a link) is left alone.
func (d *Discovery) hintDueIfOlder(dated map[string]time.Time, site string, now time.Time) {
	urls := make([]string, 0, len(dated))
	for u := range dated {
		urls = append(urls, u)
	}
	states, err := d.st.Revisits(urls)
	if err != nil || len(states) == 0 {
		return
	}
	var due []string
	for _, s := range states {
		if date, ok := dated[s.URL]; ok && s.Fetches > 0 && s.Last.Before(date) {
			due = append(due, s.URL)
		}
	}
	if len(due) == 0 {
		return
	}
	d.mu.Lock()
	if sd := d.sites[site]; sd != nil {
		for _, u := range due {
			sd.at(hostOf(u)).hints++
		}
	}
	for _, u := range due {
		d.hint(u, site)
	}
	d.mu.Unlock()
	if _, err := d.c.Requeue(due, now); err != nil {
		d.c.Logf(view.LevelWarn, "", "discovery hints: %v", err)
	}
}

// hintDue makes stored pages due now: their date in a feed or sitemap moved, or
// they are the entry pages of a site its sitemaps no longer cover.
func (d *Discovery) hintDue(urls []string, now time.Time) {
	// A hinted page that is not refetched now drops its mark: not stored yet (its
	// first fetch not committed when its date moved again), or already in the queue.
	// Its mark would wait for a refetch that no hint asks for any more.
	defer func() {
		for _, u := range d.c.NotQueued(urls) {
			d.HintDrop(u)
		}
	}()
	states, err := d.st.Revisits(urls)
	if err != nil || len(states) == 0 {
		return
	}
	var due []string
	for _, s := range states {
		due = append(due, s.URL)
	}
	if _, err := d.c.Requeue(due, now); err != nil {
		d.c.Logf(view.LevelWarn, "", "discovery hints: %v", err)
	}
}

// AwaitHint replaces a newly stored page's first revisit (revisit.initial, the
// probe that M2 spends on every new page) when a feed or sitemap of a site whose
// dates are trusted lists the page with a date: that source is read on its own
// schedule and a date that moves makes the page due at once (readDocument), so a
// blind refetch an hour later buys nothing the next read would not tell. The page
// waits instead the mean interval its revisit budget affords (1/budget days: ten
// days at the default 0.1), within its class window. Only with the estimator
// policy, which has a budget; the seed rule keeps its initial delay. A site known
// only from one sitemap read has not shown yet whether its lastmod is always "now"
// (that takes two): its pages get the initial delay too. A feed's dates are
// publication dates, which do not lie that way (feeds are not judged on it).
func (d *Discovery) AwaitHint(u string, rv *model.Revisit) {
	if d == nil {
		return
	}
	o := d.opts.Revisit
	if rv == nil || rv.Fetches != 1 || rv.Next.Equal(revisit.Never) || o.Policy != revisit.PolicyEstimator {
		return
	}
	d.hintMu.Lock()
	_, dated := d.hintSeen[u]
	d.hintMu.Unlock()
	if !dated {
		return
	}
	d.follow()
	d.mu.Lock()
	trusted := false
	if s := d.sites[d.unitOf(hostOf(u))]; s != nil && (len(s.feeds) > 0 || s.sitemapReads >= 2) {
		trusted, _ = s.trust.Trusted()
	}
	d.mu.Unlock()
	if !trusted {
		return
	}
	budget := o.Budget
	if c, ok := o.Classes[rv.Class]; ok && c.Budget > 0 {
		budget = c.Budget
	}
	next := rv.Last.Add(time.Duration(float64(24*time.Hour) / budget))
	if w := revisit.Windows(o.Windows).Window(rv.Class); w > 0 && next.After(rv.First.Add(w)) {
		next = rv.First.Add(w)
	}
	if next.After(rv.Next) {
		rv.Next = next
	}
}

// HintOutcome teaches the site's Trust what a hinted refetch found.
func (d *Discovery) HintOutcome(u string, changed bool) {
	if d == nil {
		return
	}
	d.follow()
	d.mu.Lock()
	defer d.mu.Unlock()
	site, ok := d.hinted[u]
	if !ok {
		return
	}
	delete(d.hinted, u)
	d.nHinted.Store(int64(len(d.hinted)))
	if s := d.sites[site]; s != nil {
		s.trust.ObserveHint(changed)
		d.changes.Add(1)
	}
}

// hint marks u's next fetch as a hinted refetch of site's. Caller holds d.mu.
func (d *Discovery) hint(u, site string) {
	d.hinted[u] = site
	d.nHinted.Store(int64(len(d.hinted)))
}

// HintDrop forgets a hinted fetch that teaches the site's Trust nothing: a first
// fetch (a page whose date moved while it still waited in the queue), a failed or
// unreadable one. No later fetch would take the mark away: it would stay for the
// rest of the run, and the hinted set would only grow.
func (d *Discovery) HintDrop(u string) {
	if d == nil || d.nHinted.Load() == 0 {
		return
	}
	d.mu.Lock()
	if _, ok := d.hinted[u]; ok {
		delete(d.hinted, u)
		d.nHinted.Store(int64(len(d.hinted)))
	}
	d.mu.Unlock()
}
