package holds

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store/model"
)

// meta is a store's meta table in memory.
type meta map[string][]byte

func (m meta) GetMeta(key string) ([]byte, error) {
	if b, ok := m[key]; ok {
		return b, nil
	}
	return nil, model.ErrNotFound
}
func (m meta) SetMeta(key string, v []byte) { m[key] = v }

// crawl records what Restore set again and what it warned.
type crawl struct {
	paused   []string
	disabled map[string]time.Duration
	warns    []string
	b        *Book
}

func (c *crawl) controls() Controls {
	return Controls{
		PauseHost: func(h string) error {
			c.paused = append(c.paused, h)
			c.b.Pause(h, true) // as the engine's control does
			return nil
		},
		DisableFor: func(h string, d time.Duration) error {
			if c.disabled == nil {
				c.disabled = map[string]time.Duration{}
			}
			c.disabled[h] = d
			return nil
		},
		Warn: func(msg string) { c.warns = append(c.warns, msg) },
	}
}

// TestHoldsComeBackAfterARestart: a pause and a disable recorded by one run are
// set again by the next on the same store, the disable for what is left of it; one
// whose end passed while the process was down is not, nor is it kept; a resume and
// an enable are kept too.
func TestHoldsComeBackAfterARestart(t *testing.T) {
	st := meta{}
	now := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	b := New(st)
	b.Pause("a.test", true)
	b.Pause("gone.test", true)
	b.Pause("gone.test", false)
	b.Disable("b.test", now.Add(time.Hour))
	b.Disable("over.test", now.Add(time.Minute))
	b.Disable("back.test", now.Add(time.Hour))
	b.Disable("back.test", time.Time{})

	later := now.Add(10 * time.Minute)
	c := &crawl{b: New(st)}
	r := c.b.Restore(c.controls(), later)
	if r != (Restored{Paused: 1, Disabled: 1}) {
		t.Errorf("restored %+v, want 1 paused and 1 disabled", r)
	}
	if len(c.paused) != 1 || c.paused[0] != "a.test" {
		t.Errorf("paused again %v, want [a.test]", c.paused)
	}
	if d, ok := c.disabled["b.test"]; !ok || d != 50*time.Minute || len(c.disabled) != 1 {
		t.Errorf("disabled again %v, want b.test for the 50 minutes left", c.disabled)
	}
	if len(c.warns) > 0 {
		t.Errorf("warnings: %q", c.warns)
	}
	if got, want := r.Note(), ", 1 host paused and 1 disabled by the operator (kept)"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if strings.Contains(string(st[MetaKey]), "over.test") {
		t.Errorf("a disable over while the process was down is kept: %s", st[MetaKey])
	}
}

// TestUnreadableHoldsWarnAndTheCrawlGoesOn: a document that cannot be read is a
// warning naming the meta key, and the crawl goes on holding nothing; a hold the
// start cannot set is a warning, and kept for the next start.
func TestUnreadableHoldsWarnAndTheCrawlGoesOn(t *testing.T) {
	now := time.Now()
	for _, raw := range []string{"{not json", `{"v":99,"paused":["a.test"]}`} {
		c := &crawl{}
		c.b = New(meta{MetaKey: []byte(raw)})
		if r := c.b.Restore(c.controls(), now); r != (Restored{}) || len(c.paused) > 0 {
			t.Errorf("%s: restored %+v (%v)", raw, r, c.paused)
		}
		if len(c.warns) != 1 || !strings.Contains(c.warns[0], MetaKey) {
			t.Errorf("%s: warnings %q, want one naming %s", raw, c.warns, MetaKey)
		}
	}
	// A disable this start cannot set (no egress rotation): a warning, and the
	// record is kept for the next start.
	st := meta{}
	New(st).Disable("a.test", now.Add(time.Hour))
	c := &crawl{b: New(st)}
	ctl := c.controls()
	ctl.DisableFor = func(string, time.Duration) error { return errors.New("no egress rotation") }
	if r := c.b.Restore(ctl, now); r != (Restored{}) {
		t.Errorf("restored %+v, want none", r)
	}
	if len(c.warns) != 1 || !strings.Contains(c.warns[0], "no egress rotation") || !strings.Contains(c.warns[0], MetaKey) {
		t.Errorf("warnings %q, want one naming the error and %s", c.warns, MetaKey)
	}
	if !strings.Contains(string(st[MetaKey]), "a.test") {
		t.Errorf("a disable the start could not set is dropped: %s", st[MetaKey])
	}
	c = &crawl{b: New(meta{})}
	if r := c.b.Restore(c.controls(), now); r != (Restored{}) || len(c.warns) > 0 {
		t.Errorf("a store without holds: restored %+v, warnings %q", r, c.warns)
	}
}
