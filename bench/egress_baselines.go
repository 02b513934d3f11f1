package main

// The two baselines of benchmark "egress" (see egress.go): one crawl loop — workers
// over a per-host-slot frontier — with a pluggable egress policy: colly's round-robin
// proxy switcher, or scrapy-rotating-proxies' random choice with exponential backoff.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// egressPolicy is a baseline's choice of egress and its reading of the answers.
type egressPolicy interface {
	// pick returns the egress (index into egressAddrs) for the next request.
	pick() int
	// observe reports the answer to a request through egress i (status 0 on error)
	// and says whether the URL goes back to the queue for another try.
	observe(i, status, bodyLen int, err error) (retry bool)
}

// roundRobin is colly's RoundRobinProxySwitcher: the next egress in turn, always.
type roundRobin struct{ n atomic.Uint32 }

func (r *roundRobin) pick() int { return int((r.n.Add(1) - 1) % uint32(len(egressAddrs))) }

// observe: colly calls OnError for an error or a status ≥ 203 (unless
// ParseHTTPErrorResponse); the usual OnError handler retries the request.
func (r *roundRobin) observe(_, status, _ int, err error) bool { return err != nil || status >= 203 }

// rotatingProxies is scrapy-rotating-proxies' Proxies container with its default
// BanDetectionPolicy, its times divided by the sandbox Scale.
type rotatingProxies struct {
	base, cap, reanimateEvery time.Duration

	mu            sync.Mutex
	rng           *rand.Rand
	state         []rotatingState
	lastReanimate time.Time
}

type rotatingState struct {
	dead, good bool // neither: unchecked
	failed     int  // failed_attempts: failures since the last success
	nextCheck  time.Time
}

func newRotatingProxies(scale float64) *rotatingProxies {
	return &rotatingProxies{
		base: egressReal(300*time.Second, scale), cap: egressReal(3600*time.Second, scale),
		reanimateEvery: egressReal(5*time.Second, scale),
		rng:            rand.New(rand.NewPCG(1, 2)), state: make([]rotatingState, len(egressAddrs)),
	}
}

// pick is get_random over good and unchecked proxies; none: reset the dead to
// unchecked (ROTATING_PROXY_CLOSE_SPIDER off). The reanimate loop runs every 5 s.
func (p *rotatingProxies) pick() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.lastReanimate) >= p.reanimateEvery {
		p.lastReanimate = now
		for i := range p.state {
			if p.state[i].dead && !now.Before(p.state[i].nextCheck) {
				p.state[i].dead = false
			}
		}
	}
	var alive []int
	for i, s := range p.state {
		if !s.dead {
			alive = append(alive, i)
		}
	}
	if len(alive) == 0 {
		for i := range p.state {
			p.state[i].dead = false
			alive = append(alive, i)
		}
	}
	return alive[p.rng.IntN(len(alive))]
}

// observe is BanDetectionPolicy (ban = status not 200/301/302, an empty 200, or any
// error) with mark_dead (backoff uniform(0, min(cap, base·2^failed)), then failed++)
// and mark_good (failed = 0). A ban retries the URL on another proxy.
func (p *rotatingProxies) observe(i, status, bodyLen int, err error) bool {
	ban := err != nil || (status != 200 && status != 301 && status != 302) || (status == 200 && bodyLen == 0)
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.state[i]
	if !ban {
		s.good, s.dead, s.failed = true, false, 0
		return false
	}
	limit := p.cap
	if s.failed < 32 {
		limit = min(p.cap, p.base<<s.failed)
	}
	backoff := time.Duration(p.rng.Float64() * float64(limit))
	s.dead, s.good = true, false
	s.nextCheck = time.Now().Add(backoff)
	s.failed++
	return true
}

// egressTask is a URL in a baseline's queue and how often it was sent back.

// egressTask is a URL in a baseline's frontier and how often it was sent back.
type egressTask struct {
	url   string
	tries int
	seq   int64 // queue order
}

// egressSlot is one host's share of the frontier: its tasks in order, and when the
// host may be fetched next (1 request per web second across every egress).
type egressSlot struct {
	tasks []egressTask
	next  time.Time
}

// egressFrontier is a baseline's frontier, scheduled like scrapy's downloader slots:
// a worker takes the oldest task of the host that may be fetched soonest, so workers
// do not queue up behind one host's politeness gap while other hosts wait. Breadth
// first within that. It knows the URLs ever queued and the workers holding a task (the
// crawl runs dry when nothing is queued and none is busy).
type egressFrontier struct {
	gap time.Duration

	mu     sync.Mutex
	cond   *sync.Cond
	slots  map[string]*egressSlot
	seen   map[string]bool
	seq    int64
	queued int
	busy   int
	closed bool
}

func newEgressFrontier(seeds []string, gap time.Duration) *egressFrontier {
	f := &egressFrontier{gap: gap, slots: map[string]*egressSlot{}, seen: map[string]bool{}}
	f.cond = sync.NewCond(&f.mu)
	for _, s := range seeds {
		f.add(s, 0)
	}
	return f
}

// add queues a URL not seen before (tries > 0: a retry, always queued). Caller holds f.mu.
func (f *egressFrontier) add(rawURL string, tries int) {
	if tries == 0 {
		if f.seen[rawURL] {
			return
		}
		f.seen[rawURL] = true
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	sl := f.slots[u.Hostname()]
	if sl == nil {
		sl = &egressSlot{}
		f.slots[u.Hostname()] = sl
	}
	f.seq++
	sl.tasks = append(sl.tasks, egressTask{url: rawURL, tries: tries, seq: f.seq})
	f.queued++
}

// next hands out a task and the time its host's gap allows it to be fetched;
// ok=false when the frontier is closed or ran dry.
func (f *egressFrontier) next() (t egressTask, at time.Time, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.queued == 0 && f.busy > 0 && !f.closed {
		f.cond.Wait()
	}
	if f.closed || f.queued == 0 {
		f.closed = true
		f.cond.Broadcast()
		return egressTask{}, time.Time{}, false
	}
	now := time.Now()
	var best *egressSlot
	var bestAt time.Time
	for _, sl := range f.slots {
		if len(sl.tasks) == 0 {
			continue
		}
		at := sl.next
		if at.Before(now) {
			at = now
		}
		if best == nil || at.Before(bestAt) || (at.Equal(bestAt) && sl.tasks[0].seq < best.tasks[0].seq) {
			best, bestAt = sl, at
		}
	}
	t = best.tasks[0]
	best.tasks = best.tasks[1:]
	best.next = bestAt.Add(f.gap)
	f.queued--
	f.busy++
	return t, bestAt, true
}

// reserve books the next request slot of host (a robots.txt fetch) and says when.
func (f *egressFrontier) reserve(host string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	sl := f.slots[host]
	if sl == nil {
		sl = &egressSlot{}
		f.slots[host] = sl
	}
	at := sl.next
	if now := time.Now(); at.Before(now) {
		at = now
	}
	sl.next = at.Add(f.gap)
	return at
}

// done returns a worker's task: its page's links are queued, and the task itself
// again when it is to be retried.
func (f *egressFrontier) done(links []string, retry *egressTask) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range links {
		f.add(l, 0)
	}
	if retry != nil {
		f.add(retry.url, retry.tries)
	}
	f.busy--
	f.cond.Broadcast()
}

// dry reports whether the crawl ran out of URLs (as opposed to being stopped).
func (f *egressFrontier) dry() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued == 0 && f.busy == 0
}

func (f *egressFrontier) close() {
	f.mu.Lock()
	f.closed = true
	f.cond.Broadcast()
	f.mu.Unlock()
}

// egressSleepUntil waits for t or the end of ctx; false means ctx ended.
func egressSleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// egressBaseline crawls a fresh sandbox with -lanes workers choosing egresses by pol.
// A worker takes a task (see egressFrontier), waits for its host's slot, fetches it
// through the egress pol picks (robots.txt first, once per host, the same way), queues
// the page's links, sends the URL back if pol says so (at most egressMaxRetries
// times), and pauses like a lane.
func egressBaseline(s egressSetup, name string, pol egressPolicy) (egressRun, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return egressRun{}, err
	}
	defer sb.Close()
	clients := make([]*http.Client, len(egressAddrs))
	for i, a := range egressAddrs {
		tr := crawlTransport(sb.DNSAddr(), netip.MustParseAddr(a))
		defer tr.CloseIdleConnections()
		clients[i] = &http.Client{Transport: tr, Timeout: 5 * time.Second}
	}
	inScope := crawlInHosts(crawlHosts(sb))
	fr := newEgressFrontier(egressSeeds(sb), s.hostGap)
	var robotsMu sync.Mutex
	robots := map[string]*egressRobots{}
	var kept, retried atomic.Int64

	fetch := func(ctx context.Context, rawURL string, at time.Time) (status int, body []byte, final *url.URL, err error) {
		if !egressSleepUntil(ctx, at) {
			return 0, nil, nil, ctx.Err()
		}
		i := pol.pick()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return 0, nil, nil, err
		}
		req.Header.Set("User-Agent", "crawlconsole-bench-"+name)
		resp, err := clients[i].Do(req)
		if err == nil {
			body, err = io.ReadAll(io.LimitReader(resp.Body, 10<<20))
			resp.Body.Close()
			status, final = resp.StatusCode, resp.Request.URL
		}
		if ctx.Err() != nil {
			return 0, nil, nil, ctx.Err() // stopped: not the egress's fault
		}
		if pol.observe(i, status, len(body), err) && err == nil {
			err = fmt.Errorf("refused: status %d", status)
		}
		return status, body, final, err
	}
	allowed := func(ctx context.Context, u *url.URL) bool {
		robotsMu.Lock()
		rb := robots[u.Host]
		if rb == nil {
			rb = &egressRobots{}
			robots[u.Host] = rb
		}
		robotsMu.Unlock()
		rb.once.Do(func() {
			status, body, _, _ := fetch(ctx, u.Scheme+"://"+u.Host+"/robots.txt", fr.reserve(u.Hostname()))
			rb.data, _ = robotstxt.FromStatusAndBytes(status, body)
		})
		return rb.data == nil || rb.data.TestAgent(u.EscapedPath(), "crawlconsole-bench")
	}

	ctx, cancel := context.WithTimeout(context.Background(), s.window)
	defer cancel()
	stop := context.AfterFunc(ctx, fr.close)
	defer stop()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < s.lanes; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			for {
				t, at, ok := fr.next()
				if !ok {
					return
				}
				u, err := url.Parse(t.url)
				if err != nil || !allowed(ctx, u) {
					fr.done(nil, nil)
					continue
				}
				status, body, final, err := fetch(ctx, t.url, at)
				var links []string
				var retry *egressTask
				switch {
				case ctx.Err() != nil:
				case err != nil:
					if t.tries < egressMaxRetries {
						retried.Add(1)
						retry = &egressTask{url: t.url, tries: t.tries + 1}
					}
				case status == http.StatusOK:
					kept.Add(1)
					for _, l := range crawlPageLinks(final, body) {
						if inScope(l) {
							links = append(links, l)
						}
					}
				}
				fr.done(links, retry)
				pause := s.lo + time.Duration(rng.Int64N(int64(s.hi-s.lo)+1))
				if !egressSleepUntil(ctx, time.Now().Add(pause)) {
					return
				}
			}
		}(uint64(w) + 1)
	}
	wg.Wait()
	end := start.Add(s.window)
	var dry time.Time
	if fr.dry() && time.Now().Before(end) {
		dry = time.Now()
	}
	r := egressRun{name: name, start: start, end: end, dry: dry}
	r.reqs, r.bans = truthWindow(sb, start, end)
	r.note = fmt.Sprintf("kept %d pages (its own view), %d URLs sent back", kept.Load(), retried.Load())
	return r, nil
}

// egressRobots is one host's robots.txt, fetched once.
type egressRobots struct {
	once sync.Once
	data *robotstxt.RobotsData
}
