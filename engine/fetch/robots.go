package fetch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// Rules are one origin's robots.txt rules for our User-Agent.
type Rules struct {
	group       *robotstxt.Group
	CrawlDelay  time.Duration // Crawl-delay for our agent (0 if none): raises the host's gap
	Unreachable bool          // robots.txt answered 5xx or not at all: everything is disallowed (RFC 9309)
	fetchedAt   time.Time
}

// Allowed reports whether path (with query) may be fetched.
func (r *Rules) Allowed(path string) bool {
	if r.Unreachable {
		return false
	}
	if r.group == nil {
		return true
	}
	return r.group.Test(path)
}

// Robots caches robots.txt per origin for the whole crawl. The first lane that needs
// an origin's rules fetches them (through its egress and the politeness gate: a
// robots.txt request is a request to the host like any other); lanes that need the
// same origin meanwhile wait for that one answer.
type Robots struct {
	UserAgent string
	// RetryUnreachable is how long "unreachable" rules stand before a new fetch.
	RetryUnreachable time.Duration

	mu sync.Mutex
	m  map[string]*robotsEntry
}

type robotsEntry struct {
	ready chan struct{}
	rules *Rules
}

// Get returns the rules for origin ("http://host:port"), calling fetch if nobody has.
func (r *Robots) Get(ctx context.Context, origin string, fetch func(ctx context.Context) (*Rules, error)) (*Rules, error) {
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]*robotsEntry{}
	}
	e := r.m[origin]
	if e != nil && e.rules != nil && e.rules.Unreachable && time.Since(e.rules.fetchedAt) > r.RetryUnreachable {
		e = nil // try again
	}
	if e != nil {
		r.mu.Unlock()
		select {
		case <-e.ready:
			return e.rules, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e = &robotsEntry{ready: make(chan struct{})}
	r.m[origin] = e
	r.mu.Unlock()
	rules, err := fetch(ctx)
	if err != nil { // cancelled: let the next asker fetch
		r.mu.Lock()
		delete(r.m, origin)
		r.mu.Unlock()
		close(e.ready)
		return nil, err
	}
	r.mu.Lock() // readers look at e.rules under r.mu (the retry check above)
	e.rules = rules
	r.mu.Unlock()
	close(e.ready)
	return rules, nil
}

// Known returns the cached rules for origin without fetching.
func (r *Robots) Known(origin string) (*Rules, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.m[origin]
	if e == nil || e.rules == nil {
		return nil, false
	}
	return e.rules, true
}

// robotsMaxBytes is how much of a robots.txt is read (decoded); the rest is ignored.
const robotsMaxBytes = 512 << 10

// FetchRobots downloads origin's robots.txt through this egress and parses it for ua.
// Network failures and 5xx give Unreachable rules; 4xx gives allow-all (RFC 9309).
func (f *Fetcher) FetchRobots(ctx context.Context, origin, ua string) *Rules {
	now := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return &Rules{Unreachable: true, fetchedAt: now}
	}
	req.Header.Set("User-Agent", ua)
	resp, err := f.robots.Do(req)
	if err != nil {
		return &Rules{Unreachable: true, fetchedAt: now}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, robotsMaxBytes)) // RFC 9309: parse at least 500 KiB
	if err != nil {
		return &Rules{Unreachable: true, fetchedAt: now}
	}
	if resp.StatusCode >= 500 {
		return &Rules{Unreachable: true, fetchedAt: now}
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil { // unparseable: treat as no rules
		return &Rules{fetchedAt: now}
	}
	g := data.FindGroup(ua)
	return &Rules{group: g, CrawlDelay: g.CrawlDelay, fetchedAt: now}
}

// String describes the rules briefly for events.
func (r *Rules) String() string {
	switch {
	case r.Unreachable:
		return "unreachable (all disallowed)"
	case r.CrawlDelay > 0:
		return fmt.Sprintf("crawl-delay %v", r.CrawlDelay)
	}
	return "ok"
}
