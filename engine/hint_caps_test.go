package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// hasEvent says whether a warning event on host contains every one of parts.
func hasEvent(e *Engine, host string, parts ...string) bool {
	for _, ev := range e.EventsSince(0, 1<<20) {
		if ev.Level < view.LevelWarn || ev.Host != host {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(ev.Msg, p)
		}
		if all {
			return true
		}
	}
	return false
}

// hintServer serves one refusing or slow-asking host on 127.0.0.1: handler answers
// everything but robots.txt, which robots gives (404 when empty).
func hintServer(t *testing.T, robots string, handler http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if robots == "" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprint(w, robots)
			return
		}
		handler(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestLongRetryAfterDefersInsteadOfHoldingTheLane: on the direct route a 429 with a
// huge Retry-After (seconds or a far-future date) no longer sleeps the lane for
// years: the URL is deferred (capped at fetch.max_retry_after, never lost), the one
// lane goes on to the other host, and the crawl runs dry (--until-idle ends).
func TestLongRetryAfterDefersInsteadOfHoldingTheLane(t *testing.T) {
	t.Parallel()
	for name, retryAfter := range map[string]string{
		"seconds": "86400000",
		"date":    time.Now().AddDate(30, 0, 0).UTC().Format(http.TimeFormat),
	} {
		t.Run(name, func(t *testing.T) {
			var refusals atomic.Int64
			refuser := hintServer(t, "", func(w http.ResponseWriter, r *http.Request) {
				refusals.Add(1)
				w.Header().Set("Retry-After", retryAfter)
				http.Error(w, "slow down", http.StatusTooManyRequests)
			})
			w := newMiniWeb(t, 1, 5, 0)
			o := testOptions(t, w)
			refused := "http://" + refuser + "/p/0"
			o.Seeds = []string{refused, "http://" + w.hosts[0] + "/p/0"}
			o.Lanes.Max = 1 // one lane: held by the refusal, the other host would never be crawled
			o.Fetch.MaxRetryAfter = 2 * time.Hour
			from := time.Now()
			e := startEngine(t, o)
			waitDone(t, e, 20*time.Second)
			e.Close()
			if h, _, _ := net.SplitHostPort(refuser); !hasEvent(e, h, "asks to wait 2h0m0s", "capped at fetch.max_retry_after", "deferred until") {
				t.Errorf("no warning naming host %s and the capped wait: %+v", h, e.EventsSince(0, 1<<20))
			}
			st := e.Stats()
			if refusals.Load() != 1 || st.Deferred != 1 || st.Refused != 1 {
				t.Fatalf("refusals %d, deferred %d, refused %d: want 1, 1, 1", refusals.Load(), st.Deferred, st.Refused)
			}
			if got := w.hits.Load(); got < 5 {
				t.Fatalf("other host got %d requests, want its 5 pages: the lane was held", got)
			}
			u, err := storedURL(t, o.DB, refused)
			if err != nil || u.State != store.Deferred {
				t.Fatalf("refused URL state %v (%v), want deferred", u.State, err)
			}
			if lo, hi := from.Add(2*time.Hour-time.Minute), time.Now().Add(2*time.Hour); u.DeferredUntil.Before(lo) || u.DeferredUntil.After(hi) {
				t.Fatalf("deferred until %v, want about now + fetch.max_retry_after (2h): in [%v, %v]", u.DeferredUntil, lo, hi)
			}
		})
	}
}

// TestShortRetryAfterStillBacksOffTheLane: a Retry-After within the lane's normal
// back-off keeps today's behaviour: the refusal is recorded, nothing is deferred.
func TestShortRetryAfterStillBacksOffTheLane(t *testing.T) {
	t.Parallel()
	refuser := hintServer(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	w := newMiniWeb(t, 1, 1, 0)
	o := testOptions(t, w)
	o.Seeds = []string{"http://" + refuser + "/p/0"}
	o.Fetch.RefusalBackoff = 10 * time.Millisecond
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	e.Close()
	if st := e.Stats(); st.Deferred != 0 || st.Refused != 1 {
		t.Fatalf("deferred %d, refused %d: want 0, 1", st.Deferred, st.Refused)
	}
}

// TestHugeCrawlDelayIsCapped: robots.txt's Crawl-delay: 100000 raises the host's gap
// only up to fetch.max_crawl_delay, so the host is still crawled.
func TestHugeCrawlDelayIsCapped(t *testing.T) {
	t.Parallel()
	var pages atomic.Int64
	host := hintServer(t, "User-agent: *\nCrawl-delay: 100000\n", func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		if n == 1 {
			fmt.Fprint(w, `<html><a href="/p/1">next</a></html>`)
			return
		}
		fmt.Fprint(w, "<html>page</html>")
	})
	w := newMiniWeb(t, 1, 1, 0)
	o := testOptions(t, w)
	o.Seeds = []string{"http://" + host + "/p/0"}
	o.Fetch.MaxCrawlDelay = 100 * time.Millisecond
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	h, _, _ := net.SplitHostPort(host)
	if iv, _ := e.lanes.Run.HostInterval(h); iv <= 0 || iv > o.Fetch.MaxCrawlDelay {
		t.Fatalf("hostInterval(%s) = %v, want capped at fetch.max_crawl_delay %v", h, iv, o.Fetch.MaxCrawlDelay)
	}
	e.Close()
	if !hasEvent(e, h, "Crawl-delay 27h46m40s", "capped at fetch.max_crawl_delay 100ms") {
		t.Errorf("no warning naming host %s and the capped Crawl-delay: %+v", h, e.EventsSince(0, 1<<20))
	}
	if pages.Load() != 2 {
		t.Fatalf("pages fetched %d, want 2", pages.Load())
	}
}

// TestHintCapsAreValidated: fetch.max_retry_after and fetch.max_crawl_delay must be
// positive, and default to 1h and 60s.
func TestHintCapsAreValidated(t *testing.T) {
	t.Parallel()
	d := testDefaults()
	if d.Fetch.MaxRetryAfter != time.Hour || d.Fetch.MaxCrawlDelay != time.Minute {
		t.Fatalf("defaults %v, %v: want 1h, 60s", d.Fetch.MaxRetryAfter, d.Fetch.MaxCrawlDelay)
	}
	refusedNaming(t, map[string]func(*config.Options){
		"fetch.max_retry_after": func(o *config.Options) { o.Fetch.MaxRetryAfter = 0 },
		"fetch.max_crawl_delay": func(o *config.Options) { o.Fetch.MaxCrawlDelay = -time.Second },
	})
}

// validOptions are the defaults with a seed and a database: they validate.
func validOptions(t *testing.T) config.Options {
	o := testDefaults()
	o.Seeds = []string{"http://example.com/"}
	o.DB = filepath.Join(t.TempDir(), "c.db")
	return o
}

// refusedNaming checks that each change to valid options fails Validate with an
// error containing its key.
func refusedNaming(t *testing.T, cases map[string]func(*config.Options)) {
	t.Helper()
	for key, set := range cases {
		o := validOptions(t)
		set(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: Validate() = %v, want an error naming it", key, err)
		}
	}
}

// Negative rotation and DNS settings were taken silently as the defaults (a
// walkthrough's config with per_node: -1, dns.workers: -1, dns.timeout: -1s); a
// max_ttl below min_ttl named the cache's field, not the config key.
func TestRotationAndDNSSettingsAreValidated(t *testing.T) {
	t.Parallel()
	refusedNaming(t, map[string]func(*config.Options){
		"rotation.per_node":    func(o *config.Options) { o.Rotation.PerNode = -1 },
		"rotation.disable_for": func(o *config.Options) { o.Rotation.DisableFor = -2 * time.Hour },
		"dns.workers":          func(o *config.Options) { o.DNS.Workers = -1 },
		"dns.min_ttl, max_ttl, slow_threshold and timeout": func(o *config.Options) { o.DNS.Timeout = -time.Second },
		"dns.max_ttl 1m0s is below dns.min_ttl 5m0s":       func(o *config.Options) { o.DNS.MinTTL, o.DNS.MaxTTL = 5*time.Minute, time.Minute },
	})
	d := validOptions(t)
	if err := d.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}
