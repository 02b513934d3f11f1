package sites

import (
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Tally keeps per-site figures for the Sites pane, on its own lock: pages are
// stored on the store writer's goroutine. The zero Tally is ready to use.
type Tally struct {
	// Since is when the crawl began watching: the publish-to-store delay counts
	// only pages published since (zero: every page). A first crawl stores a site's
	// archive, articles of months or years ago that its sitemaps list, and their
	// delay is the archive's age, not how late the crawl is: counted, those old
	// pages would set every site's median, however fast its new articles come.
	// The engine sets it DelayGrace before its start: a story published in the
	// minute before the operator started the crawl is what it was started for, and
	// the demo's web publishes every page at its start, moments before the crawl's.
	Since time.Time

	mu    sync.Mutex
	sites map[string]*siteFigures
}

// siteFigures is one site's tally. New pages are counted per minute over the last
// day (a ring of 1440 minutes), so the pane's hour and day counts cost a sum.
type siteFigures struct {
	stored    int64
	minutes   [1440]int32
	minuteAt  [1440]int64 // the Unix minute each slot counts
	lastRound time.Time
	delays    []time.Duration // last publish-to-store delays (ring of delaySamples)
	next      int
}

const delaySamples = 256

// DelayGrace is how long before a crawl's start a page may have been published and
// still count for the publish-to-store delay (Tally.Since).
const DelayGrace = time.Minute

// Restore sets the pages each site stored in earlier runs (site -> pages).
func (t *Tally) Restore(stored map[string]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s, n := range stored {
		t.get(s).stored = n
	}
}

func (t *Tally) get(site string) *siteFigures {
	if t.sites == nil {
		t.sites = map[string]*siteFigures{}
	}
	f := t.sites[site]
	if f == nil {
		f = &siteFigures{}
		t.sites[site] = f
	}
	return f
}

// Stored counts a page of site first stored at, published at pub (zero: unknown);
// its delay counts when it was published since t.Since.
func (t *Tally) Stored(site string, at, pub time.Time, source bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.get(site)
	f.stored++
	m := at.Unix() / 60
	i := m % int64(len(f.minutes))
	if f.minuteAt[i] != m {
		f.minuteAt[i], f.minutes[i] = m, 0
	}
	f.minutes[i]++
	if source {
		f.lastRound = at
	}
	if !pub.IsZero() && !pub.After(at) && !pub.Before(t.Since) {
		if len(f.delays) < delaySamples {
			f.delays = append(f.delays, at.Sub(pub))
		} else {
			f.delays[f.next] = at.Sub(pub)
			f.next = (f.next + 1) % delaySamples
		}
	}
}

// SourceFetched notes a round's entry or search page fetched again.
func (t *Tally) SourceFetched(site string, at time.Time) {
	t.mu.Lock()
	t.get(site).lastRound = at
	t.mu.Unlock()
}

// Fill copies a site's figures into its row.
func (t *Tally) Fill(r *view.SiteRow, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.sites[r.Name]
	if f == nil {
		return
	}
	r.Stored, r.LastRound = f.stored, f.lastRound
	nowMin := now.Unix() / 60
	for i := range f.minutes {
		age := nowMin - f.minuteAt[i]
		if f.minutes[i] == 0 || age < 0 || age >= int64(len(f.minutes)) {
			continue
		}
		r.NewDay += int(f.minutes[i])
		if age < 60 {
			r.NewHour += int(f.minutes[i])
		}
	}
	if len(f.delays) > 0 {
		d := slices.Clone(f.delays)
		slices.Sort(d)
		r.PublishDelay = d[len(d)/2]
	}
}
