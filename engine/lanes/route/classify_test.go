package route

import (
	"net/http"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// TestRoutesAgreeOnRefusals: the direct route (no --egress) and egress rotation (M3)
// count the same responses as refusals with the same evidence, by one classifier:
// a long article that mentions "captcha" is a page on both, a captcha page, an AWS
// WAF 405, a Cloudflare 503 challenge and a redirect to a visitor system are
// refusals on both.
func TestRoutesAgreeOnRefusals(t *testing.T) {
	t.Parallel()
	html := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	article := "<html><head><title>How sites tell people from bots</title></head><body>" +
		strings.Repeat("<p>A CAPTCHA asks a visitor to prove it is human.</p>", 800) + "</body></html>"
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   string
		want   bool
	}{
		{"200 captcha page", 200, html, "<html><head><title>Security check</title></head><body>Please complete the CAPTCHA to continue.</body></html>", true},
		{"long article mentioning captcha", 200, html, article, false},
		{"403", 403, html, "<html>Forbidden</html>", true},
		{"429", 429, http.Header{"Retry-After": {"120"}}, "slow down", true},
		{"200 page", 200, html, "<html><head><title>Weather</title></head><body>sunny</body></html>", false},
		{"404 mentioning captcha", 404, html, "<html>no captcha here</html>", false},
		{"503 with Retry-After: a server error on both", 503, http.Header{"Retry-After": {"30"}}, "busy", false},
		{"AWS WAF 405 captcha: a refusal on both", 405, http.Header{"X-Amzn-Waf-Action": {"captcha"}}, "", true},
		{"Cloudflare 503 challenge: a refusal on both", 503, http.Header{"Server": {"cloudflare"}, "Content-Type": {"text/html"}},
			"<html><title>Just a moment...</title><script>window._cf_chl_opt={cType:'managed'}</script></html>", true},
		{"redirect to Weibo's visitor system", 302, http.Header{"Location": {"https://passport.weibo.com/visitor/visitor?entry=miniblog"}}, "", true},
		{"login page with a 验证码 field", 200, html, `<html><title>登录</title><form><input type="password"><input name="code">验证码</form></html>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &fetch.Result{Status: tc.status, Header: tc.header, Body: []byte(tc.body), FinalURL: "http://news.test/a"}
			d := Verdict(egress.NewClassifier(nil), &Link{Name: "direct"}, "news.test", res, nil)
			judge, link := rotationRoute(t)
			v := Verdict(judge, link, "news.test", res, nil)
			// As the lanes count them: a site ban, except an overloaded server's 503.
			direct := d.Class == egress.SiteBan && !d.Unavailable
			rotation := v.Class == egress.SiteBan && !v.Unavailable
			if direct != tc.want || rotation != tc.want || d.Reason != v.Reason {
				t.Fatalf("refusal: direct route %v (%q), rotation %v (%s %q); want %v on both", direct, d.Reason, rotation, v.Class, v.Reason, tc.want)
			}
		})
	}
}

// rotationRoute is a one-egress rotation's classifier and its egress: enough for
// Verdict, the rotation route's classification of a fetch.
func rotationRoute(t *testing.T) (*egress.Classifier, *Link) {
	t.Helper()
	specs, err := egress.ParseSpecs([]string{"e1=bind:127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	table, err := egress.OpenTable(&egress.MemoryStore{}, specs)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := egress.NewPool(table, egress.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	eg, err := pool.Egress("e1")
	if err != nil {
		t.Fatal(err)
	}
	return pool.Classifier(), &Link{Name: "e1", Eg: eg}
}
