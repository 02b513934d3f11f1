package egress

import (
	"bytes"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Class is what a response means for rotation (issue 6 item 4).
type Class int

// Response classes. Only ProxyFault and SiteBan count as refusals (SPEC M3: rotate).
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
	Reason     string        // short, for the log: "status 429", "challenge page: captcha", ...
}

// Response is what the engine saw for one request through an egress.
type Response struct {
	Host      string      // target host (per-host body statistics)
	Status    int         // HTTP status, 0 when Err is set before any response
	Header    http.Header // response headers (Retry-After, Content-Type, Location)
	Body      []byte      // a prefix of the body (a few KiB is enough)
	BodyLen   int64       // full body length, -1 when unknown
	Err       error       // transport error, if any
	FromProxy bool        // the status or error came from the proxy, not the site
}

// Classifier turns responses into verdicts. It keeps, per host, running statistics
// of normal page sizes so that a page far smaller than the host's usual ones (a
// soft block page served with 200) counts as a ban. Safe for concurrent use.
type Classifier struct {
	now func() time.Time

	mu    sync.Mutex
	sizes map[string]*sizeStats
}

// NewClassifier makes a classifier; now is the clock for HTTP-date Retry-After
// (nil: time.Now).
func NewClassifier(now func() time.Time) *Classifier {
	if now == nil {
		now = time.Now
	}
	return &Classifier{now: now, sizes: map[string]*sizeStats{}}
}

// Size-outlier rule: only after sizeMinSamples normal pages, and only when the body
// is both sizeMinSigmas (robust) standard deviations and sizeMinRatio times below the
// host's usual (median) size. Both bounds: the first alone flags every short page
// of a site whose pages are all alike, the second alone flags natural variety.
const (
	sizeMinSamples = 10
	sizeMinSigmas  = 4.0
	sizeMinRatio   = 8.0
	// contentScanMax: a challenge keyword in a page longer than this counts only in
	// its <title>; an article that mentions "captcha" is not a block page.
	contentScanMax = 32 << 10
)

// Classify decides what resp means: see Class. Challenge keywords are matched case
// insensitively in several languages.
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
	if why := SiteRefusal(r); why != "" {
		retry := min(ParseRetryAfter(r.Header.Get("Retry-After"), c.now()), maxRetryAfter)
		return Verdict{Class: SiteBan, RetryAfter: retry, Reason: why}
	}
	switch s := r.Status; {
	case s == http.StatusServiceUnavailable:
		return Verdict{Class: SiteError, Reason: "status 503"}
	case s == http.StatusOK:
		if c.sizeOutlier(r) {
			return Verdict{Class: SiteBan, Reason: "body far smaller than the host's usual pages"}
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

// SiteRefusal says why a site's answer refuses us, judged on its status, headers and
// body alone; "" when it does not. 403, 429, 503 with Retry-After, a challenge page
// (200 or 503) and a redirect to a challenge are refusals. It is Classify's SiteBan
// rule without the per-host size statistics, and the direct route's too, so that a
// crawl with and without egress rotation judge a page alike. Err is not looked at.
func SiteRefusal(r Response) string {
	switch s := r.Status; {
	case s == http.StatusForbidden, s == http.StatusTooManyRequests:
		return "status " + strconv.Itoa(s)
	case s == http.StatusServiceUnavailable && r.Header.Get("Retry-After") != "":
		return "status 503 with Retry-After"
	case s == http.StatusServiceUnavailable || s == http.StatusOK:
		if kw := challengeKeyword(r.Body, r.BodyLen); kw != "" {
			return "challenge page: " + kw
		}
	case s >= 300 && s < 400 && s != http.StatusNotModified:
		if loc := strings.ToLower(r.Header.Get("Location")); loc != "" {
			for _, kw := range challengeLocations {
				if strings.Contains(loc, kw) {
					return "redirect to a challenge: " + kw
				}
			}
		}
	}
	return ""
}

// Classify is Classifier.Classify without per-host size statistics (no soft-ban
// detection by body size) and with the wall clock; use a Classifier in a crawl.
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

// challengeKeywords are lower-case markers of block, challenge and captcha pages.
var challengeKeywords = []string{
	"captcha", "verify you are human", "are you a robot", "i'm not a robot", "not a robot",
	"unusual traffic", "access denied", "access to this page has been denied",
	"too many requests", "request blocked", "checking your browser", "attention required",
	"cf-chl", "just a moment...", "bot detection",
	"验证", "访问过于频繁", "访问频繁", "请求过于频繁", "拒绝访问", "访问被拒绝", "安全检查", // zh
	"驗證", "訪問過於頻繁", "拒絕訪問", // zh-Hant
	"アクセスが拒否", "ロボットではありません", // ja
	"비정상적인 트래픽", "접근이 거부", // ko
	"zugriff verweigert", "ungewöhnlicher datenverkehr", // de
	"accès refusé", "trafic inhabituel", // fr
	"acceso denegado", "tráfico inusual", // es
	"доступ запрещен", "доступ запрещён", "необычный трафик", // ru
}

// challengeLocations mark a redirect to a challenge or "sorry" page.
var challengeLocations = []string{"captcha", "challenge", "/sorry", "verify", "blocked", "validate"}

// challengeKeyword returns the first challenge marker in body, or "". A long page
// counts only if the marker is in its <title>.
func challengeKeyword(body []byte, fullLen int64) string {
	if len(body) == 0 {
		return ""
	}
	text := body
	if fullLen > contentScanMax || len(body) > contentScanMax {
		text = titleOf(body)
		if text == nil {
			return ""
		}
	}
	return keywordIn(bytes.ToLower(text))
}

// keywordIndex finds challenge keywords in one pass: a bitmap of the keywords' first
// two bytes rules out almost every position before any comparison.
var keywordIndex = func() (idx struct {
	first2 [1 << 16 / 64]uint64
	byKey  map[uint16][]string
}) {
	idx.byKey = map[uint16][]string{}
	for _, kw := range challengeKeywords {
		k := uint16(kw[0])<<8 | uint16(kw[1])
		idx.first2[k/64] |= 1 << (k % 64)
		idx.byKey[k] = append(idx.byKey[k], kw)
	}
	return idx
}()

func keywordIn(lower []byte) string {
	for i := 0; i+1 < len(lower); i++ {
		k := uint16(lower[i])<<8 | uint16(lower[i+1])
		if keywordIndex.first2[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, kw := range keywordIndex.byKey[k] {
			if bytes.HasPrefix(lower[i:], []byte(kw)) {
				return kw
			}
		}
	}
	return ""
}

// titleOf returns the text between <title> and </title>, or nil.
func titleOf(body []byte) []byte {
	lower := bytes.ToLower(body)
	i := bytes.Index(lower, []byte("<title"))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(lower[i:], '>')
	if j < 0 {
		return nil
	}
	start := i + j + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return nil
	}
	return body[start : start+end]
}

// sizeStats keeps the log sizes of a host's last sizeWindow normal pages; log space
// because page sizes spread multiplicatively. The rule uses the median and the
// median absolute deviation, so a few early block pages that slipped in before
// sizeMinSamples do not drag the host's "usual" size down.
type sizeStats struct {
	ring [sizeWindow]float32
	n    int // pages seen (the ring holds min(n, sizeWindow))
}

const sizeWindow = 64

func (s *sizeStats) add(x float64) {
	s.ring[s.n%sizeWindow] = float32(x)
	s.n++
}

// medianMAD returns the median and median absolute deviation of the window.
func (s *sizeStats) medianMAD() (med, mad float64) {
	vals := make([]float64, min(s.n, sizeWindow))
	for i := range vals {
		vals[i] = float64(s.ring[i])
	}
	med = median(vals)
	for i, v := range vals {
		vals[i] = math.Abs(v - med)
	}
	return med, median(vals)
}

func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// sizeOutlier reports whether a 200 HTML-ish body is far below the host's usual
// size; if not, the body joins the host's statistics.
func (c *Classifier) sizeOutlier(r Response) bool {
	n := r.BodyLen
	if n < 0 {
		n = int64(len(r.Body))
	}
	if c.sizes == nil || r.Host == "" || !htmlish(r.Header.Get("Content-Type"), r.Body) {
		return false
	}
	x := math.Log1p(float64(n))
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.sizes[r.Host]
	if st == nil {
		st = &sizeStats{}
		c.sizes[r.Host] = st
	}
	if st.n >= sizeMinSamples {
		med, mad := st.medianMAD()
		sd := 1.4826 * mad // MAD scaled to a normal's standard deviation
		if x < med-math.Max(sizeMinSigmas*sd, math.Log(sizeMinRatio)) {
			return true // an outlier does not join the statistics
		}
	}
	st.add(x)
	return false
}

// htmlish: sizes are compared only among pages, not images or feeds.
func htmlish(contentType string, body []byte) bool {
	ct := strings.ToLower(contentType)
	if ct != "" {
		return strings.Contains(ct, "html")
	}
	return bytes.Contains(bytes.ToLower(body), []byte("<html"))
}
