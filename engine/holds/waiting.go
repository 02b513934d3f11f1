package holds

import "time"

// Waiting are the URLs a run deferred for each host the operator may hold, its own
// (disabled) and those of the sites whose robots.txt redirects to it, each until
// its deferral's end: lifting the hold brings them back at once (Take). A URL past
// its end came back by itself and is forgotten as more are added, so a long crawl
// (hosts disabled whose disables run out, deferrals for a page budget, a
// Retry-After, a robots.txt that does not answer) keeps only the URLs still
// deferred, not every deferral it made. The zero value is ready to use; not safe
// for concurrent use (the crawl's lock guards it).
type Waiting struct {
	byHost map[string][]waiting
	next   time.Time // the earliest end among them (zero: none)
	swept  time.Time // the last sweep of the ended ones
}

type waiting struct {
	url   string
	until time.Time
}

// sweepEvery is the least time between two sweeps: deferrals that end one after
// another cost a walk of the whole list a second at most.
const sweepEvery = time.Second

// Add files url under host until until, first forgetting the URLs whose deferral
// ended by now.
func (w *Waiting) Add(host, url string, until, now time.Time) {
	w.sweep(now)
	if w.byHost == nil {
		w.byHost = map[string][]waiting{}
	}
	w.byHost[host] = append(w.byHost[host], waiting{url: url, until: until})
	if w.next.IsZero() || until.Before(w.next) {
		w.next = until
	}
}

// Take returns the URLs filed under host, and forgets them.
func (w *Waiting) Take(host string) []string {
	list := w.byHost[host]
	delete(w.byHost, host)
	if len(list) == 0 {
		return nil
	}
	urls := make([]string, len(list))
	for i, x := range list {
		urls[i] = x.url
	}
	return urls
}

// Len is the number of URLs filed.
func (w *Waiting) Len() int {
	n := 0
	for _, list := range w.byHost {
		n += len(list)
	}
	return n
}

// sweep forgets the URLs whose deferral ended by now, once one has and sweepEvery
// passed since the last sweep.
func (w *Waiting) sweep(now time.Time) {
	if w.next.IsZero() || now.Before(w.next) || now.Sub(w.swept) < sweepEvery {
		return
	}
	w.swept, w.next = now, time.Time{}
	for host, list := range w.byHost {
		kept := list[:0]
		for _, x := range list {
			if now.Before(x.until) {
				kept = append(kept, x)
				if w.next.IsZero() || x.until.Before(w.next) {
					w.next = x.until
				}
			}
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(w.byHost, host)
		} else {
			w.byHost[host] = kept
		}
	}
}
