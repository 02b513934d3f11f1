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
		{"long article mentioning captcha in title", Response{Status: 200, Header: html, Body: []byte(longArticle), BodyLen: int64(len(longArticle))}, OK, 0},
		{"AWS WAF 405 captcha", Response{Status: 405, Header: hdr("X-Amzn-Waf-Action", "captcha")}, SiteBan, 0},
		{"Jiasule 521 challenge", Response{Status: 521, Header: hdr("Set-Cookie", "__jsluid_s=1; path=/"), Body: []byte("<script>document.cookie='__jsl_clearance_s=1';location.href=location.pathname</script>")}, SiteBan, 0},
		{"plain 405 stays a site error", Response{Status: 405, Header: html, Body: []byte("<h1>Method Not Allowed</h1>")}, SiteError, 0},
		{"redirect to Weibo's visitor system", Response{Status: 302, Header: hdr("Location", "https://passport.weibo.com/visitor/visitor?entry=miniblog")}, SiteBan, 0},
		{"login page with a captcha field", Response{Status: 200, Header: html, Body: []byte(`<title>登录</title><form><input type="password"><input name="captcha">验证码</form>`)}, OK, 0},
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

// TestClassifyWeighsHostTemplate: once a host's usual template is known, a small
// page alone is no ban (a maintenance notice), a short page with a keyword that still
// carries the template's links is the site's own, and a keyword on a page with none
// of it is a ban to confirm.
func TestClassifyWeighsHostTemplate(t *testing.T) {
	c := NewClassifier(nil)
	html := hdr("Content-Type", "text/html")
	page := func(n, links int, body string) Response {
		return Response{Host: "news.test", URL: "http://news.test/a", Status: 200, Header: html, Body: []byte(body), BodyLen: int64(n), Links: links}
	}
	for i := range 12 {
		if v := c.Classify(page(18000+500*i, 30, "<html><title>News</title>")); v.Class != OK {
			t.Fatalf("learning page %d = %v", i, v.Class)
		}
	}
	for _, tc := range []struct {
		name    string
		resp    Response
		want    Class
		confirm bool
	}{
		{"usual page", page(21000, 30, "<html><title>News</title>"), OK, false},
		{"235-byte maintenance notice", page(235, 0, "<html><title>Maintenance</title><p>Back soon.</p></html>"), OK, false},
		{"short brief about 验证码 in the template", page(3000, 28, "<html><title>新版验证码上线</title><p>旅客购票需完成验证。</p></html>"), OK, false},
		{"captcha page without the template", page(300, 0, "<html><title>安全验证</title><p>请完成验证</p></html>"), SiteBan, true},
		{"a vendor's hard evidence needs no confirmation", Response{Host: "news.test", URL: "http://news.test/b", Status: 202,
			Header: hdr("X-Amzn-Waf-Action", "challenge"), Links: 0}, SiteBan, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := c.Classify(tc.resp)
			if v.Class != tc.want || v.Confirm != tc.confirm {
				t.Fatalf("Classify = %v confirm=%v (%s), want %v confirm=%v", v.Class, v.Confirm, v.Reason, tc.want, tc.confirm)
			}
		})
	}
}

// TestConfirmed: a soft ban stands only when the refetch refuses again; the
// evidence of both answers is kept.
func TestConfirmed(t *testing.T) {
	soft := Verdict{Class: SiteBan, Confirm: true, Reason: "keyword \"captcha\" in title"}
	if v := Confirmed(soft, Verdict{Class: OK}); v.Class != OK {
		t.Fatalf("refetch ordinary: %v", v.Class)
	}
	v := Confirmed(soft, Verdict{Class: SiteBan, Confirm: true, Reason: "keyword \"captcha\" in title"})
	if v.Class != SiteBan || v.Confirm || !strings.Contains(v.Reason, "repeated on refetch") {
		t.Fatalf("refetch refused again: %+v", v)
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
