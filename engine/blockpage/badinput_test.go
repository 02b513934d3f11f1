package blockpage_test

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/blockpage"
)

// badInputs are hostile answers: a 10 MB challenge body, binary garbage, a flood of
// headers and cookies, each with the verdict it must still get.
func badInputs() []struct {
	name  string
	a     blockpage.Answer
	block bool
} {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 4<<20)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	huge := append([]byte(`<html><head><title>Just a moment...</title><script>window._cf_chl_opt={cType:'managed'}</script></head><body>`),
		bytes.Repeat([]byte("<div>x</div>"), 10<<20/12)...)
	flood := floodHeader(20000)
	return []struct {
		name  string
		a     blockpage.Answer
		block bool
	}{
		{"10 MB challenge body", blockpage.Answer{Status: 503, Header: http.Header{"Server": {"cloudflare"}}, Body: huge, BodyLen: int64(len(huge)), Links: -1}, true},
		{"binary garbage 200", blockpage.Answer{Status: 200, Body: garbage, BodyLen: int64(len(garbage)), Links: -1}, false},
		{"binary garbage 405", blockpage.Answer{Status: 405, Body: garbage, BodyLen: int64(len(garbage)), Links: -1}, false},
		{"header and cookie flood", blockpage.Answer{Status: 200, Header: flood, Body: []byte("<html><title>ok</title></html>"), Links: -1}, false},
		{"header flood with a block header", blockpage.Answer{Status: 405, Header: withBlockHeader(flood), Links: -1}, true},
	}
}

// floodHeader is n junk headers and n cookies set.
func floodHeader(n int) http.Header {
	h := http.Header{}
	for i := range n {
		h.Add("X-Junk-"+strconv.Itoa(i), strings.Repeat("v", 100))
		h.Add("Set-Cookie", "Junk"+strconv.Itoa(i)+"=1; path=/") // a name to lower-case: a copy each
	}
	h.Set("Content-Type", "text/html")
	return h
}

func withBlockHeader(h http.Header) http.Header {
	h = h.Clone()
	h.Set("X-Amzn-Waf-Action", "captcha")
	return h
}

// vendorChain is a redirect chain through ten vendors' challenge hosts.
var vendorChain = []string{
	"https://shop.example/cdn-cgi/challenge-platform/h/b/x", "https://geo.captcha-delivery.com/captcha/?x=1",
	"https://www.google.com/sorry/index?continue=x", "https://login.taobao.com//_____tmd_____/punish?x5secdata=1",
	"https://wappass.baidu.com/static/captcha/tuxing.html", "https://passport.weibo.com/visitor/visitor?a=1",
	"https://verify.snssdk.com/view?aid=1", "https://weixin.sogou.com/antispider/?from=1",
	"https://sec.douban.com/b?r=1", "https://aq.qq.com/cn2/login_limit/login_limit_index",
}

// guarded is body in memory that faults when read past its first readable bytes
// (a multiple of the page size): with debug.SetPanicOnFault a read past them
// panics, whatever the box's speed.
func guarded(t *testing.T, body []byte, readable int) []byte {
	t.Helper()
	page := os.Getpagesize()
	size := (len(body) + page - 1) / page * page
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	copy(m, body)
	if err := syscall.Mprotect(m[readable:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return m[:len(body)]
}

// judgeGuarded is Judge with a read of a guarded body's forbidden bytes failing t.
func judgeGuarded(t *testing.T, a blockpage.Answer) (v blockpage.Verdict) {
	t.Helper()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("the judge read the body past its first %d bytes: %v", blockpage.TextScan, r)
		}
	}()
	return blockpage.Judge(a, blockpage.NewHosts())
}

// TestBadInputIsBounded: a 10 MB challenge body, binary garbage, a flood of headers
// and cookies, and a redirect chain through ten vendors' challenge hosts are each
// judged with bounded work, never a crash, and still recognised where they carry a
// vendor's evidence. The bounds are counts no load changes: no byte of a body past
// the judge's 256 KiB text scan is read (the rest of the body faults when read), and
// a flood's cookies past the 64th cost nothing (the same allocations as 64). How
// long each takes is BenchmarkJudgeBadInput's.
func TestBadInputIsBounded(t *testing.T) {
	for _, tc := range badInputs() {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.a.Body) > blockpage.TextScan {
				tc.a.Body = guarded(t, tc.a.Body, blockpage.TextScan)
			}
			v := judgeGuarded(t, tc.a)
			if v.Refusal() != tc.block {
				t.Fatalf("refusal %v (%v), want %v", v.Refusal(), v, tc.block)
			}
			if len(v.String()) > 1024 {
				t.Errorf("evidence of %d bytes", len(v.String()))
			}
			if len(tc.a.Header["Set-Cookie"]) <= blockpage.MaxCookies {
				return
			}
			// The same junk headers with only the cookies the judge reads.
			few := tc.a.Header.Clone()
			few["Set-Cookie"] = few["Set-Cookie"][:blockpage.MaxCookies]
			fewer := tc.a
			fewer.Header = few
			judge := func(a blockpage.Answer) func() { return func() { blockpage.Judge(a, blockpage.NewHosts()) } }
			if all, capped := testing.AllocsPerRun(5, judge(tc.a)), testing.AllocsPerRun(5, judge(fewer)); all > capped {
				t.Errorf("%d cookies cost %v allocations, %d cost %v; want the cookies past the %dth left unread",
					len(tc.a.Header["Set-Cookie"]), all, blockpage.MaxCookies, capped, blockpage.MaxCookies)
			}
		})
	}
	t.Run("redirect chain through ten vendors", func(t *testing.T) {
		from := "https://news.example/a"
		for i, to := range vendorChain {
			v := blockpage.Judge(blockpage.Answer{URL: from, Status: 302, Header: http.Header{"Location": {to}}, Links: -1}, nil)
			if v.Strength != blockpage.Hard || v.Vendor == "" {
				t.Errorf("hop %d to %s: %v %v", i, to, v.Strength, v)
			}
			from = to
		}
	})
}

// BenchmarkJudgeBadInput is the time each bad input of TestBadInputIsBounded takes
// to judge (a 10 MB body as long as its first 256 KiB; a flood as long as its
// headers), and the redirect chain's ten hops.
func BenchmarkJudgeBadInput(b *testing.B) {
	for _, tc := range badInputs() {
		b.Run(tc.name, func(b *testing.B) {
			h := blockpage.NewHosts()
			for b.Loop() {
				blockpage.Judge(tc.a, h)
			}
		})
	}
	b.Run("redirect chain", func(b *testing.B) {
		for b.Loop() {
			from := "https://news.example/a"
			for _, to := range vendorChain {
				blockpage.Judge(blockpage.Answer{URL: from, Status: 302, Header: http.Header{"Location": {to}}, Links: -1}, nil)
				from = to
			}
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
