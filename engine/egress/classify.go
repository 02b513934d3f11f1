package egress

import (
	"bytes"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/blockpage"
)

// Class is what a response means for rotation.
type Class int

// Response classes. Only ProxyFault and SiteBan count as refusals (M3: rotate).
const (
	OK         Class = iota // the site answered normally: success for rotation
	SiteError               // 404, 304, other 5xx, site timeouts: no penalty, no rotation
	SiteBan                 // 403, 429, 503+Retry-After, challenge page, odd body: penalise (egress, host)
	ProxyFault              // proxy unreachable, 407, CONNECT failure, proxy 502: penalise the egress everywhere
)

// String names the class as logs and the console show it.
func (c Class) String() string {
	switch c {
	case OK:
		return "ok"
	case SiteError:
		return "site-error"
	case SiteBan:
		return "site-ban"
	case ProxyFault:
		return "proxy-fault"
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Refusal reports whether the class makes the node rotate (seed 003 step 3-2).
func (c Class) Refusal() bool { return c == SiteBan || c == ProxyFault }

// Verdict is the classification of one response.
type Verdict struct {
	Class      Class
	RetryAfter time.Duration // from Retry-After (seconds or HTTP date); 0 when absent
	Reason     string        // for the log and `show URL`: the vendor and the evidence ("AWS WAF: header x-amzn-waf-action: captcha")
	Vendor     string        // the anti-bot vendor recognised, "" when none
	// Confirm: a site ban on soft evidence only (a keyword on a page that says
	// nothing, a script that sets a cookie and reloads). It punishes nobody until a
	// refetch repeats it (Confirmed); a true block repeats, an ordinary page does not.
	Confirm bool
	// Unavailable: a 503 with Retry-After and no block evidence, an overloaded
	// server: it rotates like a ban but counts as a server error.
	Unavailable bool
	// OneURL: a soft refusal confirmed on this URL only; it condemns the URL, not the
	// (egress, host) pair, until another URL corroborates it (Corroborated).
	OneURL bool
}

// Response is what the engine saw for one request through an egress (or the direct
// route, a node with one egress).
type Response struct {
	Host    string      // target host (per-host template statistics)
	URL     string      // the URL that answered, after same-host redirects ("" unknown)
	Status  int         // HTTP status, 0 when Err is set before any response
	Header  http.Header // response headers (Retry-After, Content-Type, Location, vendor headers)
	Body    []byte      // a prefix of the body (a few KiB is enough)
	BodyLen int64       // full body length, -1 when unknown
	Links   int         // links the fetcher found on the page (used when URL is set: a fetched page)
	// Text is the page's main text from the fetcher's parse (blockpage.Answer.Text);
	// nil: the judge extracts it from Body.
	Text      func() (string, bool)
	Err       error // transport error, if any
	FromProxy bool  // the status or error came from the proxy, not the site
}

// Classifier turns responses into verdicts with blockpage's judge (one classifier
// for every route, so an answer gets one verdict whichever route it came by),
// keeping per host the usual template of its ordinary pages (size, links) that
// soft evidence is weighed against. Safe for concurrent use.
type Classifier struct {
	now   func() time.Time
	hosts *blockpage.Hosts
	soft  softTrail // URLs whose soft refusal repeated, per (egress, host): see Corroborated
}

// NewClassifier makes a classifier; now is the clock for HTTP-date Retry-After
// (nil: time.Now).
func NewClassifier(now func() time.Time) *Classifier {
	if now == nil {
		now = time.Now
	}
	return &Classifier{now: now, hosts: blockpage.NewHosts()}
}

// Classify decides what resp means: see Class. Whether a site's answer refuses us is
// blockpage.Judge's verdict: hard evidence (403, 429, a vendor's block header,
// challenge cookie, status with its markers, a redirect to its challenge host) is a
// SiteBan at once; soft evidence is a SiteBan with Confirm set.
func (c *Classifier) Classify(r Response) Verdict {
	if r.Err != nil {
		if r.FromProxy || IsProxyError(r.Err) {
			return Verdict{Class: ProxyFault, Reason: "proxy error"}
		}
		var ge *GuardError
		if errors.As(r.Err, &ge) {
			return Verdict{Class: SiteError, Reason: "refused by guard"}
		}
		return Verdict{Class: SiteError, Reason: "site unreachable or timed out"}
	}
	switch s := r.Status; {
	case s == http.StatusProxyAuthRequired:
		return Verdict{Class: ProxyFault, Reason: "status 407"}
	case (s == http.StatusBadGateway || s == http.StatusGatewayTimeout) && r.FromProxy:
		return Verdict{Class: ProxyFault, Reason: "proxy status " + strconv.Itoa(s)}
	}
	links := -1 // counted by the judge
	if r.URL != "" {
		links = r.Links // a fetched page: the fetcher counted them
	}
	bv := blockpage.Judge(blockpage.Answer{URL: r.URL, Host: r.Host, Status: r.Status, Header: r.Header,
		Body: r.Body, BodyLen: r.BodyLen, Links: links, Text: r.Text}, c.hosts)
	if bv.Refusal() {
		retry := min(ParseRetryAfter(r.Header.Get("Retry-After"), c.now()), maxRetryAfter)
		return Verdict{Class: SiteBan, RetryAfter: retry, Reason: bv.String(), Vendor: bv.Vendor,
			Confirm: bv.Strength == blockpage.Soft, Unavailable: bv.Unavailable}
	}
	switch s := r.Status; {
	case s == http.StatusServiceUnavailable:
		return Verdict{Class: SiteError, Reason: "status 503"}
	case s == http.StatusOK:
		if c.hosts != nil && links >= 0 && htmlish(r.Header.Get("Content-Type"), r.Body) {
			n := r.BodyLen
			if n < 0 {
				n = int64(len(r.Body))
			}
			c.hosts.Learn(r.Host, n, links) // an ordinary page: the host's template
		}
		return Verdict{Class: OK}
	case s == http.StatusNotModified:
		return Verdict{Class: SiteError, Reason: "status 304"}
	case s >= 200 && s < 400:
		return Verdict{Class: OK}
	default:
		return Verdict{Class: SiteError, Reason: "status " + strconv.Itoa(s)}
	}
}

// Confirmed settles a soft site ban (first.Confirm) with the verdict on a refetch of
// the same URL: a refusal again is a ban, confirmed, with both pieces of evidence; an
// ordinary answer means the first was not a block, and the refetch's verdict stands.
func Confirmed(first, again Verdict) Verdict {
	if again.Class != SiteBan {
		return again
	}
	again.Confirm = false
	if first.Reason != again.Reason {
		again.Reason += "; first answer: " + first.Reason
	}
	again.Reason += "; repeated on refetch"
	if again.Vendor == "" {
		again.Vendor = first.Vendor
	}
	return again
}

// Classify is Classifier.Classify without host history and with the wall clock;
// use a Classifier in a crawl.
func Classify(r Response) Verdict {
	return (&Classifier{now: time.Now}).Classify(r)
}

// maxRetryAfter caps the wait a Retry-After may impose on the rotation: a pair ban
// of more than a day is a broken or hostile header, not a site's real intent.
const maxRetryAfter = 24 * time.Hour

// ParseRetryAfter parses a Retry-After value (delay-seconds or an HTTP date) as the
// wait from now; 0 when empty, malformed or past. It does not cap the wait: the
// classifier caps it at maxRetryAfter, the direct route's lane back-off does not.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n > math.MaxInt64/int64(time.Second) {
			return math.MaxInt64 // saturate rather than wrap
		}
		return time.Duration(max(n, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// htmlish: only pages teach a host's template, not images or feeds.
func htmlish(contentType string, body []byte) bool {
	ct := strings.ToLower(contentType)
	if ct != "" {
		return strings.Contains(ct, "html")
	}
	return bytes.Contains(bytes.ToLower(body), []byte("<html"))
}
