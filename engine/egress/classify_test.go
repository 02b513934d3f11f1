package egress

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// TestClassify: 404/304/500 and site timeouts never count as bans; 403, 429,
// 503+Retry-After and challenge pages do; 407 and proxy failures blame the egress.
func TestClassify(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	html := hdr("Content-Type", "text/html; charset=utf-8")
	longArticle := "<html><head><title>Why sites use CAPTCHA</title></head><body>" + strings.Repeat("A long article. ", 4000) + "</body></html>"
	longArticleNoTitle := "<html><head><title>News</title></head><body>" + strings.Repeat("We discuss captcha. ", 3000) + "</body></html>"
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}
	for _, tc := range []struct {
		name  string
		resp  Response
		want  Class
		retry time.Duration
	}{
		{"200 page", Response{Status: 200, Header: html, Body: []byte("<html><title>Weather</title>sunny</html>")}, OK, 0},
		{"204", Response{Status: 204}, OK, 0},
		{"301 redirect", Response{Status: 301, Header: hdr("Location", "/new-home")}, OK, 0},
		{"404 never bans", Response{Status: 404, Header: html, Body: []byte("not found")}, SiteError, 0},
		{"410", Response{Status: 410}, SiteError, 0},
		{"304 never bans", Response{Status: 304}, SiteError, 0},
		{"500 never bans", Response{Status: 500, Body: []byte("internal error")}, SiteError, 0},
		{"503 without Retry-After", Response{Status: 503, Body: []byte("maintenance")}, SiteError, 0},
		{"502 from the site", Response{Status: 502}, SiteError, 0},
		{"401", Response{Status: 401}, SiteError, 0},
		{"site timeout", Response{Err: timeout}, SiteError, 0},
		{"site reset", Response{Err: errors.New("connection reset by peer")}, SiteError, 0},
		{"guard refusal", Response{Err: &GuardError{Host: "x", Err: errors.New("private")}}, SiteError, 0},
		{"403", Response{Status: 403}, SiteBan, 0},
		{"429 with seconds", Response{Status: 429, Header: hdr("Retry-After", "120")}, SiteBan, 2 * time.Minute},
		{"429 with HTTP date", Response{Status: 429, Header: hdr("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))}, SiteBan, 90 * time.Second},
		{"429 with date in the past", Response{Status: 429, Header: hdr("Retry-After", now.Add(-time.Hour).Format(http.TimeFormat))}, SiteBan, 0},
		{"429 with Retry-After past a day is capped", Response{Status: 429, Header: hdr("Retry-After", "999999999")}, SiteBan, 24 * time.Hour},
		{"429 with garbage Retry-After", Response{Status: 429, Header: hdr("Retry-After", "soon")}, SiteBan, 0},
		{"503 with Retry-After", Response{Status: 503, Header: hdr("Retry-After", "30")}, SiteBan, 30 * time.Second},
		{"200 captcha page", Response{Status: 200, Header: html, Body: []byte("<html><body>Please solve this CAPTCHA</body></html>")}, SiteBan, 0},
		{"200 verify you are human", Response{Status: 200, Header: html, Body: []byte("<h1>Verify you are human</h1>")}, SiteBan, 0},
		{"200 unusual traffic", Response{Status: 200, Header: html, Body: []byte("Our systems have detected unusual traffic from your network")}, SiteBan, 0},
		{"200 access denied", Response{Status: 200, Header: html, Body: []byte("<title>Access Denied</title>")}, SiteBan, 0},
		{"200 Chinese verification", Response{Status: 200, Header: html, Body: []byte("<html><body>请完成安全验证后继续访问</body></html>")}, SiteBan, 0},
		{"200 Chinese too frequent", Response{Status: 200, Header: html, Body: []byte("<p>您的访问过于频繁，请稍后再试</p>")}, SiteBan, 0},
		{"200 Russian", Response{Status: 200, Header: html, Body: []byte("<p>Доступ запрещен</p>")}, SiteBan, 0},
		{"503 challenge", Response{Status: 503, Header: html, Body: []byte("<title>Just a moment...</title> Checking your browser")}, SiteBan, 0},
		{"302 to a captcha", Response{Status: 302, Header: hdr("Location", "https://x.test/sorry/index?continue=1")}, SiteBan, 0},
		{"404 page that mentions captcha", Response{Status: 404, Header: html, Body: []byte("captcha")}, SiteError, 0},
		{"long article mentioning captcha in title", Response{Status: 200, Header: html, Body: []byte(longArticle), BodyLen: int64(len(longArticle))}, SiteBan, 0},
		{"long article mentioning captcha in body", Response{Status: 200, Header: html, Body: []byte(longArticleNoTitle), BodyLen: int64(len(longArticleNoTitle))}, OK, 0},
		{"407 blames the egress", Response{Status: 407}, ProxyFault, 0},
		{"502 from the proxy", Response{Status: 502, FromProxy: true}, ProxyFault, 0},
		{"proxy error", Response{Err: &ProxyError{Egress: "e1", Op: "connect", Status: 502}}, ProxyFault, 0},
		{"wrapped proxyconnect error", Response{Err: fmt.Errorf("get: %w", &net.OpError{Op: "proxyconnect", Err: errors.New("refused")})}, ProxyFault, 0},
		{"error flagged from proxy", Response{Err: errors.New("malformed HTTP response"), FromProxy: true}, ProxyFault, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewClassifier(func() time.Time { return now })
			v := c.Classify(tc.resp)
			if v.Class != tc.want || v.RetryAfter != tc.retry {
				t.Fatalf("Classify = %v retry=%v (%s), want %v retry=%v", v.Class, v.RetryAfter, v.Reason, tc.want, tc.retry)
			}
			if tc.want.Refusal() != v.Class.Refusal() {
				t.Fatalf("Refusal() disagrees")
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestClassifyBodySizeOutlier: once a host's usual page size is known, a 200 page
// far smaller than usual is a soft ban; natural variety and other hosts are not.
func TestClassifyBodySizeOutlier(t *testing.T) {
	c := NewClassifier(nil)
	html := hdr("Content-Type", "text/html")
	page := func(host string, n int) Response {
		return Response{Host: host, Status: 200, Header: html, Body: []byte("<html>"), BodyLen: int64(n)}
	}
	sizes := []int{18000, 22000, 25000, 19500, 30000, 21000, 24000, 27000, 20000, 23000, 26000, 28000}
	for i, n := range sizes[:5] {
		if v := c.Classify(page("news.test", n)); v.Class != OK {
			t.Fatalf("learning page %d (%d bytes) = %v", i, n, v.Class)
		}
	}
	// Too few samples yet: a tiny page is not judged.
	if v := c.Classify(page("news.test", 900)); v.Class != OK {
		t.Fatalf("tiny page before %d samples = %v, want OK", sizeMinSamples, v.Class)
	}
	for _, n := range sizes[5:] {
		c.Classify(page("news.test", n))
	}
	for _, tc := range []struct {
		name string
		resp Response
		want Class
	}{
		{"usual size", page("news.test", 21500), OK},
		{"half the usual size", page("news.test", 11000), OK},
		{"twice the usual size", page("news.test", 50000), OK},
		{"block page of 900 bytes", page("news.test", 900), SiteBan},
		{"same size on an unknown host", page("other.test", 900), OK},
		{"small image is not a page", Response{Host: "news.test", Status: 200, Header: hdr("Content-Type", "image/png"), BodyLen: 900}, OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v := c.Classify(tc.resp); v.Class != tc.want {
				t.Fatalf("Classify = %v (%s), want %v", v.Class, v.Reason, tc.want)
			}
		})
	}
	// Outliers do not poison the statistics: many block pages stay bans.
	for i := 0; i < 50; i++ {
		if v := c.Classify(page("news.test", 900)); v.Class != SiteBan {
			t.Fatalf("block page %d = %v, want SiteBan", i, v.Class)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"0", 0}, {"45", 45 * time.Second}, {" 45 ", 45 * time.Second}, {"-5", 0},
		{"999999999", 999999999 * time.Second}, {"99999999999999999999", 0}, {"9999999999999", math.MaxInt64},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{now.Add(10 * time.Minute).Format(http.TimeFormat), 10 * time.Minute},
		{"Sun, 01 Mar 2026 12:05:00 GMT", 5 * time.Minute}, {"", 0}, {"tomorrow", 0},
	} {
		if got := ParseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
