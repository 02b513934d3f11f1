package dnscache

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// activeList is the names the test server is answering right now, sorted.
func (s *testServer) activeList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name := range s.active {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func TestRefreshWindowCoversUpstreamLatency(t *testing.T) {
	cases := []struct {
		name       string
		ttl, sweep time.Duration
		answerP99  time.Duration
		want       time.Duration
	}{
		{"long TTL: last 10%", 100 * time.Second, time.Second, 200 * time.Millisecond, 10 * time.Second},
		{"short TTL: a sweep plus an answer", 2 * time.Second, 50 * time.Millisecond, 220 * time.Millisecond, 270 * time.Millisecond},
		{"slow upstream: never past half the TTL", time.Second, 50 * time.Millisecond, 2 * time.Second, 500 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Servers = []string{"127.0.0.1:9"}
			o.RefreshAhead, o.SweepEvery = 0.1, tc.sweep
			c := newTestCache(t, o)
			c.answerP99.Store(int64(tc.answerP99))
			now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
			if exp := now.Add(tc.want); !c.nearExpiry(exp, tc.ttl, now) {
				t.Errorf("%v before expiry is not in the refresh window, want a window of %v", tc.want, tc.want)
			}
			if exp := now.Add(tc.want + time.Millisecond); c.nearExpiry(exp, tc.ttl, now) {
				t.Errorf("%v before expiry is in the refresh window, want a window of %v", tc.want+time.Millisecond, tc.want)
			}
		})
	}
}

func TestShortTTLRenewedBeforeItRunsOut(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	clock := newFakeClock()
	// Answers take 300 ms: longer than 10% of the 2 s TTL.
	srv.set("fast.example.com", zone{a: []string{"192.0.2.60"}, ttl: 2, delay: 300 * time.Millisecond})
	o := testOptions(srv, clock)
	o.MinTTL, o.MaxTTL = time.Second, time.Hour
	o.RefreshAhead, o.SweepEvery = 0.1, 50*time.Millisecond
	o.StillNeeded = func(string) bool { return true }
	c := newTestCache(t, o)
	q := func() int { return srv.queries("fast.example.com", dns.TypeA) }

	c.Prefetch("fast.example.com")
	waitFor(t, "prefetch", func() bool { return c.Stats().Prefetched == 1 })
	clock.Add(o.SweepEvery)
	c.Prefetch() // a sweep learns the upstream's answer time
	if c.answerP99.Load() < int64(300*time.Millisecond) {
		t.Fatalf("answer p99 %v after a 300 ms answer", time.Duration(c.answerP99.Load()))
	}
	// 350 ms left: outside the last 10% (200 ms), inside sweep + answer time.
	clock.Add(2*time.Second - 350*time.Millisecond - o.SweepEvery)
	c.Prefetch()
	waitFor(t, "refresh ahead", func() bool { return q() == 2 && c.View(0).Backlog == 0 })
	clock.Add(400 * time.Millisecond) // past the first answer's TTL
	before := c.Stats()
	mustAddrs(t, c, "fast.example.com", "192.0.2.60")
	if s := c.Stats(); s.Misses != before.Misses || s.StaleServed != before.StaleServed {
		t.Fatalf("lookup after the first TTL: %+v; want a fresh hit, no wait", s)
	}
}

func TestExpiredAnswerServedWhileItsRefreshIsUnderWay(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("busy.example.com", zone{a: []string{"192.0.2.70"}, ttl: 60})
	o := testOptions(srv, clock) // TTL 60 s, Timeout 3 s
	o.StillNeeded = func(string) bool { return true }
	c := newTestCache(t, o)
	mustAddrs(t, c, "busy.example.com", "192.0.2.70")

	hold := make(chan struct{})
	srv.set("busy.example.com", zone{a: []string{"192.0.2.71"}, ttl: 60, hold: hold})
	clock.Add(55 * time.Second)
	mustAddrs(t, c, "busy.example.com", "192.0.2.70") // near expiry: refresh starts
	waitFor(t, "refresh in flight", func() bool { return srv.activeNames() == 1 })

	cases := []struct {
		advance time.Duration
		wait    bool
	}{
		{6 * time.Second, false}, // 1 s past the TTL, refresh under way: served at once
		{3 * time.Second, true},  // 4 s past: more than a DNS timeout, the lookup waits
	}
	for _, tc := range cases {
		clock.Add(tc.advance)
		before := c.Stats()
		if !tc.wait {
			mustAddrs(t, c, "busy.example.com", "192.0.2.70")
			if s := c.Stats(); s.Misses != before.Misses || s.StaleServed != before.StaleServed+1 {
				t.Fatalf("%+v: want the expiring answer at once while its refresh is under way", s)
			}
			continue
		}
		got := make(chan error, 1)
		go func() {
			addrs, err := lookup(t, c, "busy.example.com")
			if err == nil && (len(addrs) != 1 || addrs[0].String() != "192.0.2.71") {
				err = fmt.Errorf("got %v, want the refreshed 192.0.2.71", addrs)
			}
			got <- err
		}()
		waitFor(t, "lookup waiting on the refresh", func() bool { return c.Stats().Misses == before.Misses+1 })
		close(hold)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.queries("busy.example.com", dns.TypeA); n != 2 {
		t.Fatalf("%d A queries, want 2 (the waiting lookup joined the refresh)", n)
	}
}

func TestFailingNameRetriedEachBackoffStepWhileNeeded(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("sick.example.com", zone{rcode: dns.RcodeServerFailure})
	srv.set("gone.example.com", zone{rcode: dns.RcodeServerFailure})
	o := testOptions(srv, clock) // backoff step 1 in [5 s, 10 s]
	o.StillNeeded = func(host string) bool { return host == "sick.example.com" }
	c := newTestCache(t, o)
	q := func(name string) int { return srv.queries(name, dns.TypeA) }

	c.Prefetch("sick.example.com", "gone.example.com")
	waitFor(t, "first tries", func() bool { return c.Stats().Prefetched == 2 && c.View(0).Backlog == 0 })

	hold := make(chan struct{})
	srv.set("sick.example.com", zone{rcode: dns.RcodeServerFailure, hold: hold})
	clock.Add(10*time.Second + time.Millisecond) // step over
	c.Prefetch()                                 // the sweep retries the needed name
	waitFor(t, "retry in flight", func() bool { return srv.activeNames() == 1 })

	// A lane asking meanwhile gets the standing failure, not a wait on the retry.
	before := c.Stats()
	if _, err := lookup(t, c, "sick.example.com"); kindOf(err) != KindServFail {
		t.Fatalf("err = %v, want the standing servfail", err)
	}
	if s := c.Stats(); s.Misses != before.Misses || s.NegativeHits != before.NegativeHits+1 {
		t.Fatalf("%+v: want a negative hit without wait", s)
	}
	close(hold)
	waitFor(t, "retry done", func() bool { return c.View(0).Backlog == 0 && c.View(0).InFlight == 0 })
	if a, b := q("sick.example.com"), q("gone.example.com"); a != 2 || b != 1 {
		t.Fatalf("A queries: needed name %d, unneeded name %d; want 2 and 1", a, b)
	}
	// The retry failed again: the next step is twice as long, no retry before it.
	clock.Add(5*time.Second - time.Millisecond)
	c.Prefetch()
	if a := q("sick.example.com"); a != 2 {
		t.Fatalf("%d A queries inside step 2, want 2", a)
	}
}

func TestNewNamesResolvedBeforeRefreshesInQueueOrder(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("old.example.com", zone{a: []string{"192.0.2.80"}, ttl: 60})
	o := testOptions(srv, clock)
	o.MaxWorkers = 1
	c := newTestCache(t, o)
	mustAddrs(t, c, "old.example.com", "192.0.2.80")
	clock.Add(55 * time.Second) // near expiry: worth a refresh

	names := []string{"old.example.com", "n1.example.com", "n2.example.com", "n3.example.com"}
	holds := map[string]chan struct{}{}
	for i, name := range names {
		holds[name] = make(chan struct{})
		srv.set(name, zone{a: []string{fmt.Sprintf("192.0.2.%d", 90+i)}, ttl: 60, hold: holds[name]})
	}
	c.Prefetch(names...)
	for _, want := range []string{"n1.example.com", "n2.example.com", "n3.example.com", "old.example.com"} {
		waitFor(t, want+" resolved next", func() bool {
			return slices.Equal(srv.activeList(), []string{want + "."})
		})
		close(holds[want])
	}
	waitFor(t, "prefetch done", func() bool { return c.View(0).Backlog == 0 })
}

func TestLostDatagramSentAgainWithinTheTimeout(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	srv.set("lossy.example.com", zone{a: []string{"192.0.2.99"}, ttl: 300, lose: 1})
	o := testOptions(srv, newFakeClock())
	// The resend goes out at half the timeout and its answer must come in the other
	// half: on a loaded box a loopback answer has taken over 200 ms, so the half left
	// for it is 1.5 s, not 200 ms (the test waits the first half either way).
	o.Timeout = 3 * time.Second
	c := newTestCache(t, o)

	start := time.Now()
	mustAddrs(t, c, "lossy.example.com", "192.0.2.99")
	if el := time.Since(start); el < o.Timeout/2 {
		t.Fatalf("answered after %v: the first query was lost, the answer cannot come before the resend at %v", el, o.Timeout/2)
	}
	if n := srv.queries("lossy.example.com", dns.TypeA); n != 2 {
		t.Fatalf("%d A queries, want 2 (the lost one and its resend)", n)
	}
	if s := c.Stats(); s.UpstreamQueries != 1 || s.UpstreamMessages < 3 {
		t.Fatalf("stats %+v: one resolution, its resend counted as a message", s)
	}
}

// TestResendOfADelayedResolverStillGoesOut: a resolver goroutine that a busy box
// runs again only after the whole timeout has passed since its first datagram still
// sends the resend and takes its answer: a lost datagram is retried however late
// the scheduler gets to it, so a host that answers is not reported failed.
func TestResendOfADelayedResolverStillGoesOut(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	srv.set("late.example.com", zone{a: []string{"192.0.2.98"}, ttl: 300, lose: 1})
	o := testOptions(srv, newFakeClock())
	o.Timeout = 2 * time.Second
	c := newTestCache(t, o)
	// The delay: the goroutine resumes once the first try's whole timeout is
	// over, as a descheduled one on a loaded box would.
	c.up.beforeResend = func() { time.Sleep(o.Timeout) }

	mustAddrs(t, c, "late.example.com", "192.0.2.98")
	if n := srv.queries("late.example.com", dns.TypeA); n != 2 {
		t.Fatalf("%d A queries, want 2 (the lost one and its resend)", n)
	}
}

func TestNewWorkersStartPaced(t *testing.T) {
	srv := newTestServer(t)
	hold := make(chan struct{})
	const n = 200
	var names []string
	for i := range n {
		name := fmt.Sprintf("burst%d.example.com", i)
		names = append(names, name)
		srv.set(name, zone{a: []string{"192.0.2.1"}, ttl: 300, hold: hold})
	}
	o := testOptions(srv, newFakeClock())
	o.MaxWorkers, o.HostsPerWorker = n, 1
	c := newTestCache(t, o)
	start := time.Now()
	c.Prefetch(names...)
	waitFor(t, "every worker at work", func() bool { return srv.activeNames() == n })
	// The server must not get n names' queries in one instant: a UDP receive buffer
	// would drop part of them.
	if el, least := time.Since(start), (n-1)*spawnGap; el < least {
		t.Fatalf("%d workers at work after %v, want them started at least %v apart (%v in all)", n, el, spawnGap, least)
	}
	close(hold)
	waitFor(t, "prefetch done", func() bool { return c.View(0).Backlog == 0 })
}
