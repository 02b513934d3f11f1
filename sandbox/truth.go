package sandbox

import (
	"encoding/json"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Truth is the sandbox's ground truth: every request it answered, every ban, the change
// times of pages and every DNS query. Tests and benchmarks compare a crawler's own
// record with it. Times are real wall-clock times, so they compare directly with a
// crawler's timings; Config.Scale relates them to web time.
type Truth struct {
	web *Web

	mu       sync.Mutex
	requests []Request
	dropped  int64
	bans     []Ban

	dnsMu    sync.Mutex
	dns      map[string]int
	dnsTotal int

	inFlight atomic.Int64
}

// Request is one HTTP request the sandbox answered.
type Request struct {
	// Start and End are real wall times: the handler's start and the end of its response.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// IP is the client's source address, the identity anti-bot rules judge.
	IP string `json:"ip"`
	// Host is the requested host name (lower-case, no port).
	Host string `json:"host"`
	// URL is the absolute URL requested, with the port.
	URL string `json:"url"`
	// Status is the HTTP status sent; 0 for a connection reset.
	Status int `json:"status"`
	// Parent is the URL of the page's parent in the sandbox tree ("" for roots/unknown).
	Parent string `json:"parent"`
	// Kind is the page kind (entry, listing, article, post, search, private, robots, unknown).
	Kind string `json:"kind"`
	// Fault is the page's fault kind, "" if none.
	Fault string `json:"fault"`
	// Banned tells that the request was answered with a ban response.
	Banned bool `json:"banned"`
	// Robots tells that robots.txt disallows the path.
	Robots bool `json:"robots"`
	// Violation tells that the request broke the adjacency rule (M1).
	Violation bool `json:"violation"`
	// Limited tells that a request or search quota answered it with 429.
	Limited bool `json:"limited"`
	// Throttled tells that a throttling host answered it 429 without Retry-After
	// (LoadConfig.ThrottleShare).
	Throttled bool `json:"throttled,omitempty"`
	// Slowed is the latency a fragile host added to this answer for the load it was
	// under (LoadConfig.FragileShare); 0 on other hosts. The answer took at least this
	// long: Start..End also holds the machine's own delays, which this does not.
	Slowed time.Duration `json:"slowed_ns,omitempty"`
	// Cookie is which session cookie of the cookie rule the request carried:
	// CookieOwn (the one given to its address for the site), CookieOther (one given
	// to another address: a session carried between addresses) or "" (none).
	Cookie string `json:"cookie,omitempty"`
}

// Ban is one ban of a client IP from a host.
type Ban struct {
	IP     string    `json:"ip"`
	Host   string    `json:"host"`
	At     time.Time `json:"at"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
}

func newTruth(w *Web) *Truth {
	return &Truth{web: w, dns: map[string]int{}}
}

func (t *Truth) record(r Request) {
	t.mu.Lock()
	if max := t.web.cfg.MaxTruthRequests; max > 0 && len(t.requests) >= max {
		t.dropped++
	} else {
		t.requests = append(t.requests, r)
	}
	t.mu.Unlock()
}

func (t *Truth) recordBan(b Ban) {
	t.mu.Lock()
	t.bans = append(t.bans, b)
	t.mu.Unlock()
}

func (t *Truth) recordDNS(name string) {
	t.dnsMu.Lock()
	t.dns[name]++
	t.dnsTotal++
	t.dnsMu.Unlock()
}

// fill completes the fields derived from the model, which the hot path leaves out.
func (t *Truth) fill(rs []Request) []Request {
	for i := range rs {
		rs[i].Parent = t.web.Parent(rs[i].URL)
	}
	return rs
}

// Requests returns every recorded request, in the order they finished.
func (t *Truth) Requests() []Request {
	rs, _ := t.RequestsSince(0)
	return rs
}

// RequestsSince returns the requests from index since on, and the index to ask from next.
func (t *Truth) RequestsSince(since int) ([]Request, int) {
	t.mu.Lock()
	if since < 0 {
		since = 0
	}
	if since > len(t.requests) {
		since = len(t.requests)
	}
	rs := append([]Request(nil), t.requests[since:]...)
	next := len(t.requests)
	t.mu.Unlock()
	return t.fill(rs), next
}

// Dropped is the number of requests not kept because the log hit MaxTruthRequests.
func (t *Truth) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// InFlight is the number of HTTP requests being answered right now.
func (t *Truth) InFlight() int { return int(t.inFlight.Load()) }

// Bans returns every ban so far.
func (t *Truth) Bans() []Ban {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Ban(nil), t.bans...)
}

// RobotsViolations returns the requests for paths robots.txt disallows.
func (t *Truth) RobotsViolations() []Request {
	t.mu.Lock()
	var out []Request
	for _, r := range t.requests {
		if r.Robots {
			out = append(out, r)
		}
	}
	t.mu.Unlock()
	return t.fill(out)
}

// Changes returns the real times at which url's content changed, up to now.
func (t *Truth) Changes(url string) []time.Time {
	w := t.web
	now := w.cfg.Epoch
	if w.clock != nil {
		now = w.clock.now()
	}
	ts := w.ChangeTimes(url, w.cfg.Epoch, now)
	for i := range ts {
		ts[i] = w.realTime(ts[i])
	}
	return ts
}

// DNSQueries counts the DNS queries received per name (lower-case, no trailing dot).
func (t *Truth) DNSQueries() map[string]int {
	t.dnsMu.Lock()
	defer t.dnsMu.Unlock()
	out := make(map[string]int, len(t.dns))
	for k, v := range t.dns {
		out[k] = v
	}
	return out
}

// DNSTotal is the number of DNS queries received.
func (t *Truth) DNSTotal() int {
	t.dnsMu.Lock()
	defer t.dnsMu.Unlock()
	return t.dnsTotal
}

// TruthDump is the JSON form of the truth served at /truth and written by --truth FILE.
type TruthDump struct {
	// Now is the real time of the dump; WebNow the web time; Scale relates them.
	Now    time.Time `json:"now"`
	WebNow time.Time `json:"web_now"`
	Scale  float64   `json:"scale"`
	// Requests are the requests from index Since on; Next is the index to ask from next.
	Requests []Request `json:"requests"`
	Since    int       `json:"since"`
	Next     int       `json:"next"`
	Dropped  int64     `json:"dropped"`
	Bans     []Ban     `json:"bans"`
	// Changes holds the real change times, up to now, of the URLs in Requests that change.
	Changes          map[string][]time.Time `json:"changes"`
	DNSQueries       map[string]int         `json:"dns_queries"`
	DNSTotal         int                    `json:"dns_total"`
	RobotsViolations []Request              `json:"robots_violations"`
}

// Dump gathers the truth, with requests from index since on.
func (t *Truth) Dump(since int) TruthDump {
	d := TruthDump{Now: time.Now(), Scale: t.web.cfg.Scale, Since: since}
	d.WebNow = t.web.cfg.Epoch
	if t.web.clock != nil {
		d.WebNow = t.web.clock.webAt(d.Now)
	}
	d.Requests, d.Next = t.RequestsSince(since)
	if d.Since > d.Next {
		d.Since = d.Next
	}
	d.Dropped = t.Dropped()
	d.Bans = t.Bans()
	d.Changes = map[string][]time.Time{}
	urls := map[string]bool{}
	for _, r := range d.Requests {
		urls[r.URL] = true
	}
	keys := make([]string, 0, len(urls))
	for u := range urls {
		keys = append(keys, u)
	}
	sort.Strings(keys)
	for _, u := range keys {
		if t.web.ChangeRate(u) > 0 {
			ts := t.Changes(u)
			if ts == nil {
				ts = []time.Time{}
			}
			d.Changes[u] = ts
		}
	}
	d.DNSQueries = t.DNSQueries()
	d.DNSTotal = t.DNSTotal()
	d.RobotsViolations = t.RobotsViolations()
	if d.Requests == nil {
		d.Requests = []Request{}
	}
	if d.Bans == nil {
		d.Bans = []Ban{}
	}
	if d.RobotsViolations == nil {
		d.RobotsViolations = []Request{}
	}
	return d
}

// WriteJSON writes Dump(since) as JSON.
func (t *Truth) WriteJSON(out io.Writer, since int) error {
	enc := json.NewEncoder(out)
	return enc.Encode(t.Dump(since))
}
