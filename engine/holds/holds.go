// Package holds keeps the operator's host holds, the hosts they paused and those
// they disabled with the end of each disable, in the store's meta table, so a crawl
// or a master started again on the same database holds them still: an operator who
// paused a host because its owner complained expects it paused until they resume
// it, whatever happened to the process. A worker has no store: its master gives it
// the holds as it joins.
package holds

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// MetaKey is the meta key of the holds document.
const MetaKey = "operator.holds.v1"

// version is the document's layout; a document of another is not read (a warning
// names the key).
const version = 1

// Meta is the part of the store the holds are kept in.
type Meta interface {
	GetMeta(key string) ([]byte, error)
	SetMeta(key string, v []byte)
}

// doc is the stored document: the hosts paused, and the hosts disabled with when
// each disable ends.
type doc struct {
	V        int                  `json:"v"`
	Paused   []string             `json:"paused,omitempty"`
	Disabled map[string]time.Time `json:"disabled,omitempty"`
}

// Book is the holds in force, written to the store on every change. Safe for
// concurrent use; its writes are queued on the store's writer in the order of the
// changes, and it never calls back into the crawl while it holds its lock.
type Book struct {
	st       Meta
	mu       sync.Mutex
	paused   map[string]bool
	disabled map[string]time.Time
}

// New keeps the holds in st (nil: kept nowhere, a worker's).
func New(st Meta) *Book {
	return &Book{st: st, paused: map[string]bool{}, disabled: map[string]time.Time{}}
}

// Pause records host paused by the operator (on) or resumed.
func (b *Book) Pause(host string, on bool) {
	if b == nil || b.st == nil || host == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused[host] == on {
		return
	}
	if on {
		b.paused[host] = true
	} else {
		delete(b.paused, host)
	}
	b.save()
}

// Disable records host disabled by the operator until until, or enabled again
// (until zero).
func (b *Book) Disable(host string, until time.Time) {
	if b == nil || b.st == nil || host == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if was, ok := b.disabled[host]; ok == !until.IsZero() && was.Equal(until) {
		return
	}
	if until.IsZero() {
		delete(b.disabled, host)
	} else {
		b.disabled[host] = until
	}
	b.save()
}

// Disabled records host disabled by the operator (on) until until, or enabled
// again, if the crew holds it as it answered err (crew.Holds: a master holds a
// disable a worker did not answer, and tells it to the workers joining later).
func (b *Book) Disabled(host string, on bool, until time.Time, err error) {
	if !crew.Holds(err) {
		return
	}
	if !on {
		until = time.Time{}
	}
	b.Disable(host, until)
}

// save queues the document on the store's writer. Caller holds b.mu, so the
// writes keep the order of the changes.
func (b *Book) save() {
	d := doc{V: version, Paused: slices.Sorted(maps.Keys(b.paused)), Disabled: b.disabled}
	if len(d.Disabled) == 0 {
		d.Disabled = nil
	}
	data, err := json.Marshal(d)
	if err != nil {
		return // a map of strings and times always marshals
	}
	b.st.SetMeta(MetaKey, data)
}

// Controls are what Restore sets the holds again through: the crawl's own
// controls (a master's reach the workers joining).
type Controls struct {
	PauseHost  func(host string) error
	DisableFor func(host string, d time.Duration) error
	Warn       func(msg string)
}

// Restored counts the holds Restore set again.
type Restored struct{ Paused, Disabled int }

// Note is the start line's part on the holds restored ("" for none), e.g. ", 2
// hosts paused and 1 disabled by the operator (kept)".
func (r Restored) Note() string {
	switch {
	case r.Paused > 0 && r.Disabled > 0:
		return fmt.Sprintf(", %s paused and %d disabled by the operator (kept)", plural.Count(r.Paused, "host"), r.Disabled)
	case r.Paused > 0:
		return fmt.Sprintf(", %s paused by the operator (kept)", plural.Count(r.Paused, "host"))
	case r.Disabled > 0:
		return fmt.Sprintf(", %s disabled by the operator (kept)", plural.Count(r.Disabled, "host"))
	}
	return ""
}

// Restore reads the holds an earlier run kept and sets them again through c, before
// the crawl hands out its first task. A disable whose end passed while the process
// was down is not restored: its deferred URLs are due. A hold is restored whether or
// not the store has a URL of its host: the host a site's robots.txt redirects to
// (a CDN, say) often has none, and its hold is what keeps the site's robots.txt
// requests off it. A document that cannot be read is a warning naming the key; the
// crawl goes on without the holds (nothing crawled is lost).
func (b *Book) Restore(c Controls, now time.Time) Restored {
	var r Restored
	if b == nil || b.st == nil {
		return r
	}
	raw, err := b.st.GetMeta(MetaKey)
	if errors.Is(err, model.ErrNotFound) || err == nil && len(raw) == 0 {
		return r
	}
	var d doc
	if err == nil {
		if err = json.Unmarshal(raw, &d); err == nil && d.V != version {
			err = fmt.Errorf("version %d, this crawlconsole reads %d", d.V, version)
		}
	}
	if err != nil {
		c.Warn(fmt.Sprintf("the operator's host holds kept in the store (meta key %s) cannot be read (%v): no host is held paused or disabled from the last run; pause or disable them again", MetaKey, err))
		return r
	}
	b.mu.Lock()
	for _, h := range d.Paused {
		b.paused[h] = true
	}
	for h, until := range d.Disabled {
		if until.After(now) {
			b.disabled[h] = until
		}
	}
	paused, disabled := slices.Sorted(maps.Keys(b.paused)), maps.Clone(b.disabled)
	b.mu.Unlock()
	// Set without the lock: the crawl's controls record their holds in b. One the
	// crawl could not set (a disable on a start without egresses) stays recorded
	// for the next start.
	for _, h := range paused {
		if warnErr(c, h, "paused", c.PauseHost(h)) {
			r.Paused++
		}
	}
	for _, h := range slices.Sorted(maps.Keys(disabled)) {
		if warnErr(c, h, "disabled", c.DisableFor(h, disabled[h].Sub(now))) {
			r.Disabled++
		}
	}
	b.mu.Lock()
	if len(d.Disabled) != len(b.disabled) {
		b.save() // the disables that ended while the process was down are gone
	}
	b.mu.Unlock()
	return r
}

// warnErr says why host's hold (what) could not be set again; true when it was.
func warnErr(c Controls, host, what string, err error) bool {
	if err != nil {
		c.Warn(fmt.Sprintf("host %s %s by the operator in the store (meta key %s) is not held again: %v", host, what, MetaKey, err))
	}
	return err == nil
}
