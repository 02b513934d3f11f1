package blockpage_test

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/blockpage"
)

// TestBadInputIsBounded: a 10 MB challenge body, binary garbage, a flood of headers
// and cookies, and a redirect chain through ten vendors' challenge hosts are each
// judged in bounded time and memory, never a crash, and still recognised where they
// carry a vendor's evidence.
func TestBadInputIsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 4<<20)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	huge := append([]byte(`<html><head><title>Just a moment...</title><script>window._cf_chl_opt={cType:'managed'}</script></head><body>`),
		bytes.Repeat([]byte("<div>x</div>"), 10<<20/12)...)
	flood := http.Header{}
	for i := range 20000 {
		flood.Add("X-Junk-"+strconv.Itoa(i), strings.Repeat("v", 100))
		flood.Add("Set-Cookie", "c"+strconv.Itoa(i)+"=1; path=/")
	}
	flood.Set("Content-Type", "text/html")
	chain := []string{
		"https://shop.example/cdn-cgi/challenge-platform/h/b/x", "https://geo.captcha-delivery.com/captcha/?x=1",
		"https://www.google.com/sorry/index?continue=x", "https://login.taobao.com//_____tmd_____/punish?x5secdata=1",
		"https://wappass.baidu.com/static/captcha/tuxing.html", "https://passport.weibo.com/visitor/visitor?a=1",
		"https://verify.snssdk.com/view?aid=1", "https://weixin.sogou.com/antispider/?from=1",
		"https://sec.douban.com/b?r=1", "https://aq.qq.com/cn2/login_limit/login_limit_index",
	}
	for _, tc := range []struct {
		name  string
		a     blockpage.Answer
		block bool
	}{
		{"10 MB challenge body", blockpage.Answer{Status: 503, Header: http.Header{"Server": {"cloudflare"}}, Body: huge, BodyLen: int64(len(huge)), Links: -1}, true},
		{"binary garbage 200", blockpage.Answer{Status: 200, Body: garbage, BodyLen: int64(len(garbage)), Links: -1}, false},
		{"binary garbage 405", blockpage.Answer{Status: 405, Body: garbage, BodyLen: int64(len(garbage)), Links: -1}, false},
		{"header and cookie flood", blockpage.Answer{Status: 200, Header: flood, Body: []byte("<html><title>ok</title></html>"), Links: -1}, false},
		{"header flood with a block header", blockpage.Answer{Status: 405, Header: func() http.Header {
			h := flood.Clone()
			h.Set("X-Amzn-Waf-Action", "captcha")
			return h
		}(), Links: -1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			v := blockpage.Judge(tc.a, blockpage.NewHosts())
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if v.Refusal() != tc.block {
				t.Fatalf("refusal %v (%v), want %v", v.Refusal(), v, tc.block)
			}
			if len(v.String()) > 1024 {
				t.Errorf("evidence of %d bytes", len(v.String()))
			}
		})
	}
	t.Run("redirect chain through ten vendors", func(t *testing.T) {
		start := time.Now()
		from := "https://news.example/a"
		for i, to := range chain {
			v := blockpage.Judge(blockpage.Answer{URL: from, Status: 302, Header: http.Header{"Location": {to}}, Links: -1}, nil)
			if v.Strength != blockpage.Hard || v.Vendor == "" {
				t.Errorf("hop %d to %s: %v %v", i, to, v.Strength, v)
			}
			from = to
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	})
}

// FuzzJudge: any status, header and body is judged without a crash.
func FuzzJudge(f *testing.F) {
	f.Add(200, "Set-Cookie", "__ac_nonce=1", []byte("<script>document.cookie='a';location.reload()</script>"))
	f.Add(405, "X-Amzn-Waf-Action", "captcha", []byte{0, 1, 2, 0xff})
	f.Add(302, "Location", "https://passport.weibo.com/visitor/visitor", []byte(""))
	f.Fuzz(func(t *testing.T, status int, name, value string, body []byte) {
		h := http.Header{}
		h.Add(name, value)
		v := blockpage.Judge(blockpage.Answer{URL: value, Status: status, Header: h, Body: body, BodyLen: int64(len(body)), Links: -1}, blockpage.NewHosts())
		_ = v.String()
	})
}
