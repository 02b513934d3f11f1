package front

import (
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/store"
)

// Prepare completes a task a lane of this process is about to fetch: a stored page
// is a refetch, with its validators for a conditional GET (M2), and its revisit
// state goes with the outcome (Prior); a URL a fetched page stands for as its
// canonical ends unsent (Kind SkipCanonicalVariant).
func (f *Front) Prepare(o *lanes.Outcome) {
	p := Prior{}
	p.Page, p.Track = f.RevisitState(o.Task)
	o.Note = p
	if p.Page != nil {
		f.setValidators(&o.Task)
		return
	}
	if f.Variants.StandsFor(o.Task.URL) {
		// Queued before a page fetched since named it as its rel=canonical: the
		// article is stored under that page's URL, and is not fetched again.
		o.Kind = SkipCanonicalVariant
	}
}

// PrepareHandOut marks a task in progress in the store as it leaves for a worker
// (M4): a refetch carries its validators (M2, a conditional GET), and a URL a
// fetched page stands for as its canonical is marked Stood (the worker ends it
// unsent).
func (f *Front) PrepareHandOut(t *frontier.Task) {
	if prev, _ := f.RevisitState(*t); prev != nil {
		f.setValidators(t)
	} else if f.Variants.StandsFor(t.URL) {
		t.Stood = true
	}
	f.Store.SetState(t.URL, store.InProgress, 0, "")
}

// setValidators marks a task as a refetch of a stored page and gives it the page's
// validators for a conditional GET (M2), when conditional GET is on.
func (f *Front) setValidators(t *frontier.Task) {
	t.Refetch = true
	if !f.Opts.Revisit.ConditionalGet {
		return
	}
	if etag, lm, err := f.Store.PageValidators(t.URL); err == nil {
		t.ETag, t.LastModified = etag, lm
	}
}
