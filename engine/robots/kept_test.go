package robots

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/internal/testclock"
)

// TestARefreshWithoutAnAnswerKeepsTheLastGoodCopy: a refresh that ends without an
// answer about the site (the egress's proxy failed, the crawl stopping) keeps what
// the cache knew of the origin: when the site is then down, its last good rules
// stand, as they do for a site down at the first refresh. The failed refresh
// dropped the entry and its good copy, and the site's URLs were all deferred.
func TestARefreshWithoutAnAnswerKeepsTheLastGoodCopy(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c := &Cache{TTL: time.Hour, Now: clock.Now}
	ctx := context.Background()
	good := FromResponse(200, []byte("User-agent: *\nDisallow: /private/\n"), "crawlconsole")
	if _, err := c.Get(ctx, "http://a.test", func(context.Context) (*Rules, error) { return good, nil }); err != nil {
		t.Fatal(err)
	}
	clock.Add(2 * time.Hour) // expired: the next asker refreshes it
	if _, err := c.Get(ctx, "http://a.test", func(context.Context) (*Rules, error) { return nil, errors.New("proxy down") }); err == nil {
		t.Fatal("the refresh's error was not returned")
	}
	r, err := c.Get(ctx, "http://a.test", func(context.Context) (*Rules, error) { return DisallowAll(503, "down"), nil })
	if err != nil {
		t.Fatal(err)
	}
	if r.Unreachable || r != good {
		t.Errorf("site down after a refresh without an answer: rules %q; want the last good copy standing", r.Note)
	}
}
